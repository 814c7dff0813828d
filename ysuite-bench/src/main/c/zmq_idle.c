/*
 * What idle connections cost in libzmq, as ysuite-examples' idle_cpu measures ysuite's: one ROUTER and
 * <connections> DEALERs in this process, connected over loopback tcp with ZMQ_HEARTBEAT_IVL of
 * <heartbeat-ms> on both ends (0: none), then left idle; prints this process's CPU time (every thread)
 * over <seconds> of silence as a percentage of one core.
 *   zmq_idle <seconds> <heartbeat-ms> [connections [settle-seconds]]   (settle: default 2)
 * Build: gcc -O2 -o zmq_idle zmq_idle.c -lzmq
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check(int rc, const char *what) {
    if (rc != 0) {
        fprintf(stderr, "zmq_idle: %s: %s\n", what, zmq_strerror(zmq_errno()));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: zmq_idle <seconds> <heartbeat-ms> [connections [settle-seconds]]\n");
        return 2;
    }
    int seconds = atoi(argv[1]), hb = atoi(argv[2]), n = argc >= 4 ? atoi(argv[3]) : 1;
    int settle = argc == 5 ? atoi(argv[4]) : 2;
    if (seconds < 1 || hb < 0 || n < 1 || settle < 0) {
        fprintf(stderr, "zmq_idle: seconds >= 1, heartbeat-ms >= 0, connections >= 1, settle-seconds >= 0\n");
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    int zero = 0;
    check(zmq_setsockopt(router, ZMQ_LINGER, &zero, sizeof zero), "linger");
    check(zmq_setsockopt(router, ZMQ_HEARTBEAT_IVL, &hb, sizeof hb), "heartbeat");
    check(zmq_bind(router, "tcp://127.0.0.1:*"), "bind");
    char ep[256];
    size_t len = sizeof ep;
    check(zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, ep, &len), "last endpoint");
    void **dealers = calloc((size_t) n, sizeof(void *));
    for (int i = 0; i < n; i++) {
        dealers[i] = zmq_socket(ctx, ZMQ_DEALER);
        check(zmq_setsockopt(dealers[i], ZMQ_LINGER, &zero, sizeof zero), "linger");
        check(zmq_setsockopt(dealers[i], ZMQ_HEARTBEAT_IVL, &hb, sizeof hb), "heartbeat");
        check(zmq_connect(dealers[i], ep), "connect");
        if (zmq_send(dealers[i], "up", 2, 0) != 2) {
            check(-1, "send");
        }
    }
    char buf[256];
    for (int i = 0; i < 2 * n; i++) {
        if (zmq_recv(router, buf, sizeof buf, 0) < 0) {
            check(-1, "recv");
        }
    }
    sleep((unsigned) settle);
    double c0 = cpu_seconds(), t0 = wall_seconds();
    sleep((unsigned) seconds);
    double cpu = cpu_seconds() - c0, wall = wall_seconds() - t0;
    printf("connections: %d\nheartbeat interval: %d [ms]\nsettled: %d [s]\nidle time: %d [s]\n", n, hb, settle, seconds);
    printf("idle CPU: %.3f %% of a core\n", 100.0 * cpu / wall);
    for (int i = 0; i < n; i++) {
        zmq_close(dealers[i]);
    }
    free(dealers);
    zmq_close(router);
    zmq_ctx_term(ctx);
    return 0;
}
