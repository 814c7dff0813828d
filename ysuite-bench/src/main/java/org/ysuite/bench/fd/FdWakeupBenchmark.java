package org.ysuite.bench.fd;

import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import jnr.ffi.Pointer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.WaitPolicy;
import org.ysuite.YSocketPair;

/**
 * The descriptor wake-up of {@link YSocketPair}: {@code socketpair} against {@code eventfd}.
 *
 * <ul>
 *   <li>{@code armedCycle}: one thread; {@code check()} finds nothing and arms the fd, {@code signal}
 *       writes the wake-up, {@code check()} reads it back — the system-call cost of one wake-up.</li>
 *   <li>{@code busyCycle}: the same without arming (the owner's last drain found something): the
 *       passive path, no system call.</li>
 *   <li>{@code pingPong}: two threads, each waiting in {@code poll(2)} on its own signaler's fd (the
 *       way an external native poller waits), one round trip = two wake-ups of a sleeping owner —
 *       the seed's "worst case" for the fd path. {@code wait=PARK} is the same ping-pong with the
 *       owners parked in {@code YSocketPair.poll} instead (no descriptor involved), for reference.</li>
 * </ul>
 * Run: {@code java -jar ysuite-bench/target/ysuite-bench.jar FdWakeupBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class FdWakeupBenchmark {

    /** Single-threaded cycles on one signaler. */
    @State(Scope.Thread)
    public static class One {
        /** The descriptor kind. */
        @Param({"SOCKETPAIR", "EVENTFD"})
        public String kind;

        YSocketPair signals;
        int taken;
        final IntConsumer sink = id -> taken += id;

        /** Opens the signaler. */
        @Setup(Level.Trial)
        public void open() {
            signals = new YSocketPair(YSocketPair.Kind.valueOf(kind));
        }

        /** Closes it. */
        @TearDown(Level.Trial)
        public void close() {
            signals.close();
        }
    }

    /**
     * Arm, signal (one write), drain (one read).
     *
     * @param s state
     * @return ids taken, for the blackhole
     */
    @Benchmark
    public int armedCycle(One s) {
        s.signals.check(s.sink); // finds nothing: arms
        s.signals.signal(1);     // write(2)
        return s.signals.check(s.sink); // read(2) + take
    }

    /**
     * Signal and drain while the owner is busy: no system call.
     *
     * @param s state
     * @return ids taken
     */
    @Benchmark
    public int busyCycle(One s) {
        s.signals.signal(1);
        return s.signals.check(s.sink); // finds the id: stays unarmed
    }

    /** Two signalers and an echo thread that waits on the first and answers on the second. */
    @State(Scope.Benchmark)
    public static class Pair {
        /** The descriptor kind. */
        @Param({"SOCKETPAIR", "EVENTFD"})
        public String kind;

        /** How the owners wait: {@code POLL2} on the fd through jnr-ffi, or {@code PARK}. */
        @Param({"POLL2", "PARK"})
        public String wait;

        YSocketPair ping;
        YSocketPair pong;
        Thread echo;
        volatile boolean running;
        Pointer pollfd;
        int taken;
        final IntConsumer sink = id -> taken += id;

        /** Opens both signalers and starts the echo thread. */
        @Setup(Level.Trial)
        public void open() {
            YSocketPair.Kind k = YSocketPair.Kind.valueOf(kind);
            ping = new YSocketPair(k, WaitPolicy.purePark());
            pong = new YSocketPair(k, WaitPolicy.purePark());
            pollfd = Poll2.pollfd();
            running = true;
            final boolean poll2 = wait.equals("POLL2");
            echo = new Thread(() -> {
                Pointer pfd = Poll2.pollfd();
                IntConsumer ignore = id -> { };
                try {
                    while (running) {
                        int n;
                        if (poll2) {
                            n = ping.check(ignore);
                            if (n == 0) {
                                Poll2.pollIn(ping.fd(), pfd, 100); // bounded, to notice teardown
                                continue;
                            }
                        } else {
                            n = ping.poll(ignore, 100, TimeUnit.MILLISECONDS);
                        }
                        if (n > 0) {
                            pong.signal(0);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "fd-echo");
            echo.setDaemon(true);
            echo.start();
        }

        /** Stops the echo thread and closes both signalers. */
        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running = false;
            echo.join(5_000);
            ping.close();
            pong.close();
        }
    }

    /**
     * One round trip: signal the sleeping echo thread, sleep until it answers.
     *
     * @param p state
     * @return ids taken
     * @throws InterruptedException never in practice
     */
    @Benchmark
    public int pingPong(Pair p) throws InterruptedException {
        p.ping.signal(0);
        if (p.wait.equals("PARK")) {
            return p.pong.poll(p.sink);
        }
        for (;;) {
            int n = p.pong.check(p.sink);
            if (n > 0) {
                return n;
            }
            Poll2.pollIn(p.pong.fd(), p.pollfd, 100);
        }
    }
}
