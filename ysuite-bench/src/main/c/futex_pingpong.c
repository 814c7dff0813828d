/*
 * The floor of ysuite's cross-process worst case: two processes (fork) ping-pong one message over
 * a shared anonymous mapping, each waiting with FUTEX_WAIT and woken with FUTEX_WAKE (shared
 * futexes, not FUTEX_PRIVATE_FLAG: the two processes have different address spaces).
 *
 * The protocol is the ypipe's passive synchronisation reduced to one word per direction:
 *   EMPTY (0)   nothing there, the reader is awake;
 *   FULL (1)    a message is there;
 *   ASLEEP (2)  nothing there, and the reader has gone (or is going) to sleep on the word.
 * The reader that finds nothing swaps EMPTY -> ASLEEP with a CAS and calls FUTEX_WAIT(ASLEEP);
 * the writer exchanges the word to FULL and calls FUTEX_WAKE only if the old value was ASLEEP.
 * With spins == 0 the reader marks itself asleep at its first empty look (pure park), so each
 * message costs one FUTEX_WAIT and one FUTEX_WAKE; with spins > 0 it first polls the word that
 * many rounds (a pause instruction each), as ysuite's spin-then-park policy does.
 *
 * Memory ordering: the exchange to FULL is sequentially consistent (a full barrier), so the
 * message written before it is visible to a reader that sees FULL (acquire load); the CAS
 * EMPTY -> ASLEEP and the writer's exchange are both read-modify-writes of the same word, so
 * exactly one of them comes first: either the writer sees ASLEEP (and wakes), or the CAS fails
 * because the word is FULL (and the reader does not sleep). FUTEX_WAIT(ASLEEP) returns at once
 * if the word is no longer ASLEEP, so a wake that comes before the wait is not lost.
 *
 * Usage:
 *   futex_pingpong [rounds [spins]]   run `rounds` round trips (default 100000, after as many
 *                                     warm-up rounds as a tenth of them) and print one line:
 *                                     rounds=N spins=S round_trip_ns=X one_way_ns=Y sleeps=Z
 *   futex_pingpong serve [spins]      for the JMH benchmark: read a round count per line on
 *                                     stdin, run that many round trips, answer "done <ns>" on
 *                                     stdout; ends at end of input
 * `sleeps` counts the FUTEX_WAIT calls that really slept (returned 0) on both sides, per round
 * trip: 2.00 means every message found its reader asleep.
 *
 * Nothing waits unboundedly: each FUTEX_WAIT has a one-second timeout after which the waiter
 * checks its peer (the child dies with its parent through PR_SET_PDEATHSIG; the parent checks the
 * child with waitpid) and gives up after ten seconds without a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { EMPTY = 0, FULL = 1, ASLEEP = 2 };

/* One direction: the futex word and the message, alone on a 128-byte span (no false sharing). */
struct lane {
    _Alignas(128) uint32_t word;
    uint64_t message;
    char pad[128 - sizeof(uint32_t) - sizeof(uint64_t)];
};

struct shared {
    struct lane ping;      /* parent -> child */
    struct lane pong;      /* child -> parent */
    _Alignas(128) uint64_t sleeps[2];
};

static struct shared *sh;
static int spins;
static pid_t child;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *timeout) {
    return syscall(SYS_futex, addr, op, val, timeout, NULL, 0);
}

static int peer_alive(void) {
    if (child == 0) {
        return getppid() != 1; /* the child: PR_SET_PDEATHSIG kills it anyway */
    }
    int status;
    return waitpid(child, &status, WNOHANG) == 0;
}

static void send_msg(struct lane *l, uint64_t m) {
    l->message = m;
    /* seq_cst exchange: publishes the message; the old value says whether the reader sleeps */
    uint32_t old = __atomic_exchange_n(&l->word, FULL, __ATOMIC_SEQ_CST);
    if (old == ASLEEP) {
        futex(&l->word, FUTEX_WAKE, 1, NULL);
    }
}

static uint64_t receive_msg(struct lane *l, int side) {
    for (int i = 0; i < spins; i++) {
        if (__atomic_load_n(&l->word, __ATOMIC_ACQUIRE) == FULL) {
            goto take;
        }
        cpu_relax();
    }
    uint32_t expected = EMPTY;
    if (__atomic_compare_exchange_n(&l->word, &expected, ASLEEP, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        int waited = 0;
        while (__atomic_load_n(&l->word, __ATOMIC_ACQUIRE) == ASLEEP) {
            struct timespec slice = {1, 0};
            long r = futex(&l->word, FUTEX_WAIT, ASLEEP, &slice);
            if (r == 0) {
                sh->sleeps[side]++;
            } else if (errno == ETIMEDOUT) {
                if (!peer_alive() || ++waited >= 10) {
                    fprintf(stderr, "futex_pingpong: no message for %d s (peer %s)\n", waited,
                            peer_alive() ? "alive" : "gone");
                    exit(3);
                }
            } else if (errno != EAGAIN && errno != EINTR) {
                perror("futex_pingpong: FUTEX_WAIT");
                exit(3);
            }
        }
    }
take:;
    uint64_t m = l->message;
    __atomic_store_n(&l->word, EMPTY, __ATOMIC_RELEASE); /* only the reader empties its lane */
    return m;
}

static void echo_loop(void) {
    for (;;) {
        uint64_t m = receive_msg(&sh->ping, 1);
        if (m == UINT64_MAX) {
            _exit(0);
        }
        send_msg(&sh->pong, m);
    }
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

/* `rounds` round trips; returns their wall time in ns. */
static uint64_t run(long rounds) {
    uint64_t start = now_ns();
    for (long i = 0; i < rounds; i++) {
        send_msg(&sh->ping, (uint64_t) i);
        if (receive_msg(&sh->pong, 0) != (uint64_t) i) {
            fprintf(stderr, "futex_pingpong: wrong echo at round %ld\n", i);
            exit(4);
        }
    }
    return now_ns() - start;
}

static void stop_child(void) {
    send_msg(&sh->ping, UINT64_MAX);
    int status;
    waitpid(child, &status, 0);
}

int main(int argc, char **argv) {
    int serve = argc > 1 && strcmp(argv[1], "serve") == 0;
    int a = serve ? 2 : 1;
    long rounds = 100000;
    if (!serve && argc > a) {
        rounds = strtol(argv[a++], NULL, 10);
    }
    spins = argc > a ? atoi(argv[a]) : 0;
    if (rounds <= 0 || spins < 0) {
        fprintf(stderr, "usage: futex_pingpong [rounds>0 [spins>=0]] | futex_pingpong serve [spins>=0]\n");
        return 2;
    }
    sh = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("futex_pingpong: mmap");
        return 1;
    }
    memset(sh, 0, sizeof(struct shared));
    pid_t parent = getpid();
    child = fork();
    if (child < 0) {
        perror("futex_pingpong: fork");
        return 1;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            _exit(1);
        }
        echo_loop();
    }
    if (serve) {
        char line[64];
        setvbuf(stdout, NULL, _IOLBF, 0);
        while (fgets(line, sizeof line, stdin) != NULL) {
            long n = strtol(line, NULL, 10);
            if (n <= 0) {
                fprintf(stderr, "futex_pingpong: bad round count: %s", line);
                stop_child();
                return 2;
            }
            printf("done %llu\n", (unsigned long long) run(n));
        }
        stop_child();
        return 0;
    }
    run(rounds / 10 + 1);
    sh->sleeps[0] = sh->sleeps[1] = 0;
    uint64_t ns = run(rounds);
    uint64_t sleeps = sh->sleeps[0] + sh->sleeps[1];
    stop_child();
    printf("rounds=%ld spins=%d round_trip_ns=%.1f one_way_ns=%.1f sleeps=%.2f\n", rounds, spins,
           (double) ns / rounds, (double) ns / rounds / 2, (double) sleeps / rounds);
    return 0;
}
