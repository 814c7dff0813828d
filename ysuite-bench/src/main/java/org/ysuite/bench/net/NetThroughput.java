package org.ysuite.bench.net;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Seed 003's throughput test (and, run with several JMH threads, seed 004's independent streams):
 * each benchmark thread has its own connection to its own {@link NetServer} process, which counts
 * the messages ({@code sink}); one operation is one message sent by the application thread as fast
 * as it can. Every peer's path is bounded (ysuite's windows, socket buffers, JeroMQ's high-water
 * mark, Netty's writability), so once warm the sender runs at the receiver's rate: the density is
 * the time per message through the whole path, the throughput its inverse.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NetThroughput extends NetBench {

    /** The transport. */
    @Param({"ysuite", "ysuite_loop", "ysuite_zmq", "tcp", "jeromq", "netty_flush", "netty_periodic"})
    public String peer;

    /**
     * Starts the server process and connects.
     *
     * @throws Exception if either fails
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        start(peer, "sink");
    }

    /**
     * One message.
     *
     * @param app the sending thread's allocation counters
     * @throws Exception if the connection fails
     */
    @Benchmark
    public void send(AppThread app) throws Exception {
        client.send(msg, size);
        app.appMessages++;
    }

    /**
     * What the sending application thread itself allocates ({@code -prof gc} counts the whole
     * client JVM, its event loop included): two counters that JMH sums over the iterations, so
     * their ratio is the thread's bytes per message.
     */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class AppThread {
        private static final com.sun.management.ThreadMXBean THREADS =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

        /** Bytes the sending thread allocated during the iteration. */
        public long appAllocBytes;
        /** Messages it sent during the iteration. */
        public long appMessages;
        private long start;

        /** Starts the iteration's count (runs on the benchmark thread). */
        @Setup(Level.Iteration)
        public void begin() {
            appMessages = 0;
            appAllocBytes = 0;
            start = THREADS.getCurrentThreadAllocatedBytes();
        }

        /** Ends it. */
        @TearDown(Level.Iteration)
        public void end() {
            appAllocBytes = THREADS.getCurrentThreadAllocatedBytes() - start;
        }
    }
}
