package org.ysuite.bench.ipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Transport;

/**
 * The worst case across processes: one 8-byte message bounced between the benchmark's JVM and an
 * {@link IpcChild} JVM, each side waiting for the other each time (the blocking transports sleep
 * in the kernel; the polling ones poll with their idle strategy). One invocation is a round trip,
 * counted as two messages: the score is the one-way time in ns/msg. The floor is a C program's
 * futex ping-pong between two processes ({@link FutexFloor}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
@Timeout(time = 60)
public class IpcWorstCase {

    /** The message size of the worst case. */
    static final int SIZE = 8;

    /**
     * y-suite: a SharedYPipe each way, the reader asleep on its futex each time (pure park), or
     * spinning first (default policy).
     *
     * @param s state
     * @return the reply's length
     * @throws IOException if the link fails
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "SharedYPipe", kind = Transport.Kind.YSUITE)
    public int ysuite(Peers.Ysuite s) throws IOException {
        return s.pingPong(SIZE);
    }

    /**
     * y-suite, the readers pollable and waiting in {@code epoll_wait} on the pipe's wake-up FIFO
     * (pure park): the wake-up through epoll, to set against {@link #ysuite} with {@code spin=0}.
     *
     * @param s state
     * @return the reply's length
     * @throws IOException if the link fails
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "SharedYPipe (epoll)", kind = Transport.Kind.YSUITE)
    public int ysuiteEpoll(Peers.YsuiteEpoll s) throws IOException {
        return s.pingPong(SIZE);
    }

    /**
     * Local sockets: AF_UNIX, blocking, one frame each way.
     *
     * @param s state
     * @return the reply's length
     * @throws IOException if the link fails
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "AF_UNIX SocketChannel", kind = Transport.Kind.SOCKET)
    public int unixSocket(Peers.Unix s) throws IOException {
        return s.pingPong(SIZE);
    }

    /**
     * Aeron IPC, spinning idle strategies.
     *
     * @param s state
     * @return the reply's length
     * @throws IOException if the link fails
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "Aeron IPC", kind = Transport.Kind.BUSY_SPIN)
    public int aeron(Peers.Aeron s) throws IOException {
        return s.pingPong(SIZE);
    }

    /**
     * Aeron IPC, polling every millisecond ({@code SleepingMillisIdleStrategy(1)}).
     *
     * @param s state
     * @return the reply's length
     * @throws IOException if the link fails
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "Aeron IPC (sleep 1 ms)", kind = Transport.Kind.POLLING)
    public int aeronSleeping(Peers.AeronSleeping s) throws IOException {
        return s.pingPong(SIZE);
    }

    /** The C futex ping-pong, compiled per trial. */
    @State(Scope.Benchmark)
    public static class Floor {
        /** Rounds the C waiter polls before it sleeps: 0 is a pure futex wait each time. */
        @Param({"0", "200"})
        public int spin;

        FutexFloor floor;
        Path dir;

        /**
         * Compiles and starts the program.
         *
         * @throws IOException if gcc is missing or fails
         */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            dir = Files.createTempDirectory("ysuite-futex-floor-");
            floor = FutexFloor.start(dir, spin);
        }

        /**
         * Stops the program and deletes its folder.
         *
         * @throws Exception if it cannot be stopped
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            try {
                floor.close();
            } finally {
                Session.deleteTree(dir);
            }
        }
    }

    /** The C program's own timing of the last request, as a secondary result. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class FloorCounters {
        /** One-way time as the C program measured it (without the request's pipe round trip), ns. */
        public double floorOneWayNs;
        long requests;
        long nanos;

        /** Clears the counter per iteration. */
        @Setup(Level.Iteration)
        public void reset() {
            floorOneWayNs = 0;
            requests = 0;
            nanos = 0;
        }
    }

    private static volatile Boolean gcc;

    /**
     * Whether the C floor can be built here ({@code gcc} runs); asked once per JVM.
     *
     * @return true if {@code gcc --version} succeeds
     */
    public static boolean floorBuildable() {
        Boolean g = gcc;
        if (g == null) {
            g = FutexFloor.gccAvailable();
            gcc = g;
        }
        return g;
    }

    /** Round trips per request to the C program: its stdin/stdout exchange is spread over them. */
    static final int FLOOR_ROUNDS = 2000;

    /**
     * The floor: two C processes bouncing a word over shared futexes, {@value #FLOOR_ROUNDS}
     * round trips per invocation (plus one request and answer over the program's pipes, a few
     * microseconds spread over them; {@code floorOneWayNs} is the program's own figure without it).
     *
     * @param s state
     * @param c the program's own figure
     * @return the program's time for the rounds, ns
     * @throws IOException if the program failed
     */
    @Benchmark
    @OperationsPerInvocation(2 * FLOOR_ROUNDS)
    @Transport(label = "C futex ping-pong (floor)", kind = Transport.Kind.BASELINE)
    public long cFutexFloor(Floor s, FloorCounters c) throws IOException {
        long ns = s.floor.run(FLOOR_ROUNDS);
        c.nanos += ns;
        c.floorOneWayNs = c.nanos / (2.0 * FLOOR_ROUNDS * ++c.requests); // the iteration's mean so far
        return ns;
    }
}
