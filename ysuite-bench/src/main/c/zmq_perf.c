/*
 * libzmq's four perf tools as one program, written against libzmq's C API for ysuite's zmq report
 * (same command lines, same output lines, so each side can be swapped for ysuite's or JeroMQ's):
 *
 *   zmq_perf local_thr  <bind-to>    <message-size> <message-count>   PULL, binds, prints the throughput
 *   zmq_perf remote_thr <connect-to> <message-size> <message-count>   PUSH, connects, sends
 *   zmq_perf local_lat  <bind-to>    <message-size> <roundtrip-count> REP, binds, echoes
 *   zmq_perf remote_lat <connect-to> <message-size> <roundtrip-count> REQ, connects, prints the latency
 *                                     and, after libzmq's lines, the 99th percentile of the round trips
 *                                     (halved, as the average is)
 *
 * Throughput is timed from the first message received to the last; latency is the whole run's time
 * over twice the round trips (half a round trip, as libzmq prints it). Default socket options.
 *
 * CURVE (ZeroMQ RFC 25/26): with CURVE_SERVER_SECRET and CURVE_SERVER_PUBLIC set in the environment (Z85,
 * 40 characters each), the binding side is a CURVE server with that key pair and the connecting side a
 * CURVE client with a fresh key pair (zmq_curve_keypair) trusting CURVE_SERVER_PUBLIC, as ysuite's ZmqPerf.
 * Build: gcc -O2 -o zmq_perf zmq_perf.c -lzmq
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static void fail(const char *what) {
    fprintf(stderr, "zmq_perf: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

/* Makes s a CURVE server (binds) or client when CURVE_SERVER_SECRET and CURVE_SERVER_PUBLIC are set. */
static void secure(void *s, int binds) {
    const char *secret = getenv("CURVE_SERVER_SECRET");
    const char *public_key = getenv("CURVE_SERVER_PUBLIC");
    if (secret == NULL || public_key == NULL) {
        return;
    }
    if (strlen(secret) != 40 || strlen(public_key) != 40) {
        fprintf(stderr, "zmq_perf: CURVE_SERVER_SECRET and CURVE_SERVER_PUBLIC must be 40 Z85 characters each\n");
        exit(1);
    }
    if (binds) {
        int on = 1;
        if (zmq_setsockopt(s, ZMQ_CURVE_SERVER, &on, sizeof on) != 0
            || zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, public_key, 40) != 0
            || zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, secret, 40) != 0) {
            fail("CURVE server options");
        }
    } else {
        char pk[41], sk[41];
        if (zmq_curve_keypair(pk, sk) != 0
            || zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, public_key, 40) != 0
            || zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, pk, 40) != 0
            || zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, sk, 40) != 0) {
            fail("CURVE client options");
        }
    }
}

/* Receives one message into msg and checks its size. */
static void receive_sized(void *s, zmq_msg_t *msg, size_t size) {
    if (zmq_msg_recv(msg, s, 0) < 0) {
        fail("zmq_msg_recv");
    }
    if (zmq_msg_size(msg) != size) {
        fprintf(stderr, "zmq_perf: message of %zu B, expected %zu B\n", zmq_msg_size(msg), size);
        exit(1);
    }
}

static int local_thr(void *ctx, const char *ep, size_t size, long count) {
    void *s = zmq_socket(ctx, ZMQ_PULL);
    zmq_msg_t msg;
    if (s != NULL) {
        secure(s, 1);
    }
    if (s == NULL || zmq_bind(s, ep) != 0) {
        fail("bind");
    }
    zmq_msg_init(&msg);
    receive_sized(s, &msg, size);
    uint64_t start = now_us();
    for (long i = 1; i < count; i++) {
        receive_sized(s, &msg, size);
    }
    uint64_t elapsed = now_us() - start;
    if (elapsed == 0) {
        elapsed = 1;
    }
    zmq_msg_close(&msg);
    unsigned long throughput = (unsigned long) ((double) count / (double) elapsed * 1000000.0);
    double megabits = (double) throughput * (double) size * 8.0 / 1000000.0;
    printf("message size: %d [B]\n", (int) size);
    printf("message count: %d\n", (int) count);
    printf("mean throughput: %d [msg/s]\n", (int) throughput);
    printf("mean throughput: %.3f [Mb/s]\n", megabits);
    zmq_close(s);
    return 0;
}

static int remote_thr(void *ctx, const char *ep, size_t size, long count) {
    void *s = zmq_socket(ctx, ZMQ_PUSH);
    if (s != NULL) {
        secure(s, 0);
    }
    if (s == NULL || zmq_connect(s, ep) != 0) {
        fail("connect");
    }
    for (long i = 0; i < count; i++) {
        zmq_msg_t msg;
        if (zmq_msg_init_size(&msg, size) != 0) {
            fail("zmq_msg_init_size");
        }
        memset(zmq_msg_data(&msg), 0, size);
        if (zmq_msg_send(&msg, s, 0) < 0) {
            fail("zmq_msg_send");
        }
    }
    zmq_close(s); /* the default linger (forever) delivers every message before zmq_ctx_term returns */
    return 0;
}

static int local_lat(void *ctx, const char *ep, size_t size, long count) {
    void *s = zmq_socket(ctx, ZMQ_REP);
    zmq_msg_t msg;
    if (s != NULL) {
        secure(s, 1);
    }
    if (s == NULL || zmq_bind(s, ep) != 0) {
        fail("bind");
    }
    zmq_msg_init(&msg);
    for (long i = 0; i < count; i++) {
        receive_sized(s, &msg, size);
        if (zmq_msg_send(&msg, s, 0) < 0) {
            fail("zmq_msg_send");
        }
    }
    zmq_msg_close(&msg);
    zmq_close(s);
    return 0;
}

static int remote_lat(void *ctx, const char *ep, size_t size, long count) {
    void *s = zmq_socket(ctx, ZMQ_REQ);
    zmq_msg_t msg;
    if (s != NULL) {
        secure(s, 0);
    }
    if (s == NULL || zmq_connect(s, ep) != 0) {
        fail("connect");
    }
    zmq_msg_init_size(&msg, size);
    memset(zmq_msg_data(&msg), 0, size);
    uint64_t *trips = malloc(sizeof(uint64_t) * (size_t) count);
    if (trips == NULL) {
        fail("malloc");
    }
    uint64_t start = now_us();
    for (long i = 0; i < count; i++) {
        uint64_t t0 = now_ns();
        if (zmq_msg_send(&msg, s, 0) < 0) {
            fail("zmq_msg_send");
        }
        receive_sized(s, &msg, size);
        trips[i] = now_ns() - t0;
    }
    uint64_t elapsed = now_us() - start;
    zmq_msg_close(&msg);
    double latency = (double) elapsed / (count * 2.0);
    qsort(trips, (size_t) count, sizeof(uint64_t), compare_u64);
    long rank = (long) ((count * 99 + 99) / 100); /* nearest rank, 1-based */
    printf("message size: %d [B]\n", (int) size);
    printf("roundtrip count: %d\n", (int) count);
    printf("average latency: %.3f [us]\n", latency);
    printf("p99 latency: %.3f [us]\n", (double) trips[rank - 1] / 2000.0);
    free(trips);
    zmq_close(s);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: zmq_perf local_thr|remote_thr|local_lat|remote_lat <endpoint> <message-size> <count>\n");
        return 2;
    }
    const char *ep = argv[2];
    long size = atol(argv[3]);
    long count = atol(argv[4]);
    if (size < 0 || count < 1) {
        fprintf(stderr, "zmq_perf: message-size %ld must be >= 0 and count %ld >= 1\n", size, count);
        return 2;
    }
    void *ctx = zmq_ctx_new();
    int rc;
    if (strcmp(argv[1], "local_thr") == 0) {
        rc = local_thr(ctx, ep, (size_t) size, count);
    } else if (strcmp(argv[1], "remote_thr") == 0) {
        rc = remote_thr(ctx, ep, (size_t) size, count);
    } else if (strcmp(argv[1], "local_lat") == 0) {
        rc = local_lat(ctx, ep, (size_t) size, count);
    } else if (strcmp(argv[1], "remote_lat") == 0) {
        rc = remote_lat(ctx, ep, (size_t) size, count);
    } else {
        fprintf(stderr, "zmq_perf: unknown tool %s\n", argv[1]);
        return 2;
    }
    zmq_ctx_term(ctx);
    return rc;
}
