/*
 * Many peers on one socket, written against libzmq's C API for ysuite's `report zmq-peers`. One program,
 * two roles, driven by lines on stdin and answering with lines on stdout:
 *
 *   zmq_peers server  router|pub <bind-to>    <n>   libzmq's ROUTER or PUB, the yardstick server
 *   zmq_peers clients router|pub <connect-to> <n>   n DEALERs or n SUBs in this one process
 *
 * server: binds, prints "bound", then reads commands: "stats" (prints "stats"), "quit", and
 *   router: "serve" (answers n requests, each [routing id][payload] sent back to its routing id, then
 *   prints "served n");
 *   pub: "warm" (publishes "w"), "pub K" (publishes "t K", printing "sent K T" with T the CLOCK_MONOTONIC
 *   time in ns just before the send).
 * clients router: n DEALERs connect and each sends one request; prints "answered n T" once every
 *   DEALER has its answer (T: ns from the first connect), "answered K" on "report", exits on "quit".
 * clients pub: n SUBs subscribe to everything and connect; prints "ready n" once every SUB has seen a
 *   "w", "round K last T" once every SUB has seen "t K" (T: CLOCK_MONOTONIC ns of the last receipt),
 *   on "report" the counts so far ("ready K", "round K count C"), exits on "quit".
 *
 * The clients wait on the sockets' ZMQ_FD descriptors with one epoll set, so a wake-up costs the sockets
 * that have something, not all n. Build: gcc -O2 -o zmq_peers zmq_peers.c -lzmq
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_ROUNDS 1000

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void fail(const char *what) {
    fprintf(stderr, "zmq_peers: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

/* Lines from stdin without stdio's buffering, so that epoll on fd 0 sees every line. */
static char line_buf[4096];
static size_t line_len;

/* Reads what stdin has; returns 1 and fills out with the next whole line, 0 if none yet, -1 at EOF. */
static int next_line(char *out, size_t cap, int do_read) {
    if (do_read) {
        ssize_t r = read(0, line_buf + line_len, sizeof line_buf - 1 - line_len);
        if (r == 0) {
            return -1;
        }
        if (r > 0) {
            line_len += (size_t) r;
        }
    }
    char *nl = memchr(line_buf, '\n', line_len);
    if (nl == NULL) {
        return 0;
    }
    size_t n = (size_t) (nl - line_buf);
    size_t c = n < cap - 1 ? n : cap - 1;
    memcpy(out, line_buf, c);
    out[c] = 0;
    memmove(line_buf, nl + 1, line_len - n - 1);
    line_len -= n + 1;
    return 1;
}

/* Blocks for the next line of stdin; -1 at EOF. */
static int read_line(char *out, size_t cap) {
    int r = next_line(out, cap, 0);
    while (r == 0) {
        r = next_line(out, cap, 1);
    }
    return r;
}

static int server(const char *kind, const char *endpoint, int n) {
    void *ctx = zmq_ctx_new();
    int router = strcmp(kind, "router") == 0;
    void *s = zmq_socket(ctx, router ? ZMQ_ROUTER : ZMQ_PUB);
    if (s == NULL) {
        fail("zmq_socket");
    }
    /* libzmq's default listen backlog is 100; ysuite's (Netty's) is net.core.somaxconn. The same for both,
     * so that N connects at once are not dropped and retried with the kernel's SYN back-off here only. */
    int backlog = 4096;
    zmq_setsockopt(s, ZMQ_BACKLOG, &backlog, sizeof backlog);
    if (zmq_bind(s, endpoint) != 0) {
        fail("zmq_bind");
    }
    printf("bound\n");
    char line[256];
    while (read_line(line, sizeof line) > 0) {
        if (strcmp(line, "quit") == 0) {
            break;
        } else if (strcmp(line, "stats") == 0) {
            printf("stats\n");
        } else if (strcmp(line, "serve") == 0 && router) {
            char id[256];
            char payload[256];
            for (int i = 0; i < n; i++) {
                int il = zmq_recv(s, id, sizeof id, 0);
                int pl = zmq_recv(s, payload, sizeof payload, 0);
                if (il < 0 || pl < 0) {
                    fail("zmq_recv");
                }
                if (zmq_send(s, id, (size_t) il, ZMQ_SNDMORE) < 0 || zmq_send(s, payload, (size_t) pl, 0) < 0) {
                    fail("zmq_send");
                }
            }
            printf("served %d\n", n);
        } else if (strcmp(line, "warm") == 0 && !router) {
            zmq_send(s, "w", 1, 0);
        } else if (strncmp(line, "pub ", 4) == 0 && !router) {
            int k = atoi(line + 4);
            char m[32];
            int ml = snprintf(m, sizeof m, "t %d", k);
            uint64_t t = now_ns();
            if (zmq_send(s, m, (size_t) ml, 0) < 0) {
                fail("zmq_send");
            }
            printf("sent %d %llu\n", k, (unsigned long long) t);
        } else {
            fprintf(stderr, "zmq_peers: unknown command %s\n", line);
        }
    }
    int zero = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    zmq_close(s);
    zmq_ctx_term(ctx);
    return 0;
}

/* The clients' state, shared by drain(). */
static int c_router;
static int c_n;
static void **socks;
static char *done;
static int *round_count;
static int count; /* answered (router) or ready (pub) */
static uint64_t start;

/*
 * Reads everything socket i has. ZMQ_FD only signals a change after a read found nothing, so this runs
 * once for every socket before waiting, and again whenever its descriptor is readable.
 */
static void drain(int i) {
    char m[64];
    void *s = socks[i];
    for (;;) {
        uint32_t events;
        size_t el = sizeof events;
        if (zmq_getsockopt(s, ZMQ_EVENTS, &events, &el) != 0) {
            fail("zmq_getsockopt ZMQ_EVENTS");
        }
        if (!(events & ZMQ_POLLIN)) {
            return;
        }
        int ml = zmq_recv(s, m, sizeof m - 1, ZMQ_DONTWAIT);
        if (ml < 0) {
            return;
        }
        uint64_t t = now_ns();
        m[ml < (int) sizeof m - 1 ? ml : (int) sizeof m - 1] = 0;
        if (c_router) {
            if (!done[i]) {
                done[i] = 1;
                if (++count == c_n) {
                    printf("answered %d %llu\n", c_n, (unsigned long long) (t - start));
                }
            }
        } else if (m[0] == 'w') {
            if (!done[i]) {
                done[i] = 1;
                if (++count == c_n) {
                    printf("ready %d\n", c_n);
                }
            }
        } else if (m[0] == 't') {
            int r = atoi(m + 2);
            if (r >= 0 && r < MAX_ROUNDS && ++round_count[r] == c_n) {
                printf("round %d last %llu\n", r, (unsigned long long) t);
            }
        }
    }
}

static int clients(const char *kind, const char *endpoint, int n) {
    int router = strcmp(kind, "router") == 0;
    c_router = router;
    c_n = n;
    void *ctx = zmq_ctx_new();
    if (zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS, n + 100) != 0) {
        fail("zmq_ctx_set ZMQ_MAX_SOCKETS");
    }
    socks = calloc((size_t) n, sizeof *socks);
    done = calloc((size_t) n, 1);
    round_count = calloc(MAX_ROUNDS, sizeof *round_count);
    int ep = epoll_create1(0);
    if (socks == NULL || done == NULL || round_count == NULL || ep < 0) {
        fprintf(stderr, "zmq_peers: out of memory or epoll: %s\n", strerror(errno));
        return 1;
    }
    struct epoll_event ev;
    ev.events = EPOLLIN;
    ev.data.u64 = (uint64_t) n; /* stdin */
    epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
    start = now_ns();
    for (int i = 0; i < n; i++) {
        socks[i] = zmq_socket(ctx, router ? ZMQ_DEALER : ZMQ_SUB);
        if (socks[i] == NULL) {
            fprintf(stderr, "zmq_peers: socket %d of %d: %s\n", i, n, zmq_strerror(zmq_errno()));
            return 1;
        }
        int zero = 0;
        zmq_setsockopt(socks[i], ZMQ_LINGER, &zero, sizeof zero);
        /* No handshake deadline: with N connects at once a server may accept late, and a client that gave up
         * after libzmq's default 30 s would close and connect again, adding to the storm it waits in. */
        zmq_setsockopt(socks[i], ZMQ_HANDSHAKE_IVL, &zero, sizeof zero);
        if (!router) {
            zmq_setsockopt(socks[i], ZMQ_SUBSCRIBE, "", 0);
        }
        if (zmq_connect(socks[i], endpoint) != 0) {
            fprintf(stderr, "zmq_peers: connect %d of %d: %s\n", i, n, zmq_strerror(zmq_errno()));
            return 1;
        }
        if (router) {
            char m[32];
            int ml = snprintf(m, sizeof m, "r %d", i);
            if (zmq_send(socks[i], m, (size_t) ml, 0) < 0) {
                fail("zmq_send");
            }
        }
        int fd;
        size_t fl = sizeof fd;
        if (zmq_getsockopt(socks[i], ZMQ_FD, &fd, &fl) != 0) {
            fail("zmq_getsockopt ZMQ_FD");
        }
        ev.events = EPOLLIN;
        ev.data.u64 = (uint64_t) i;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            fprintf(stderr, "zmq_peers: epoll_ctl %d: %s\n", i, strerror(errno));
            return 1;
        }
    }
    for (int i = 0; i < n; i++) {
        drain(i);
    }
    struct epoll_event evs[256];
    char line[256];
    for (;;) {
        int k = epoll_wait(ep, evs, 256, -1);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        for (int e = 0; e < k; e++) {
            int i = (int) evs[e].data.u64;
            if (i == n) {
                int r = next_line(line, sizeof line, 1); /* one read: epoll said there is something */
                for (; r > 0; r = next_line(line, sizeof line, 0)) {
                    if (strcmp(line, "quit") == 0) {
                        for (int j = 0; j < n; j++) {
                            zmq_close(socks[j]);
                        }
                        zmq_ctx_term(ctx);
                        return 0;
                    } else if (strcmp(line, "report") == 0) {
                        printf("%s %d\n", router ? "answered" : "ready", count);
                        for (int j = 0; j < MAX_ROUNDS; j++) {
                            if (round_count[j] > 0) {
                                printf("round %d count %d\n", j, round_count[j]);
                            }
                        }
                    }
                }
                if (r < 0) {
                    return 0; /* stdin closed: the runner is gone */
                }
                continue;
            }
            drain(i);
        }
    }
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 5 || (strcmp(argv[2], "router") != 0 && strcmp(argv[2], "pub") != 0) || atoi(argv[4]) < 1) {
        fprintf(stderr, "usage: zmq_peers server|clients router|pub <endpoint> <n>\n");
        return 2;
    }
    int n = atoi(argv[4]);
    if (strcmp(argv[1], "server") == 0) {
        return server(argv[2], argv[3], n);
    }
    if (strcmp(argv[1], "clients") == 0) {
        return clients(argv[2], argv[3], n);
    }
    fprintf(stderr, "zmq_peers: %s: not server or clients\n", argv[1]);
    return 2;
}
