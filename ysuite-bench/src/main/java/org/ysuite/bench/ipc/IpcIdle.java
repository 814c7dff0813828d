package org.ysuite.bench.ipc;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Transport;

/**
 * What an idle reader costs across processes: the child's reader (see {@link Peers}) first
 * receives a burst of {@value #BURST} messages, then nothing for {@code idleMillis} while
 * the benchmark's thread sleeps; the secondary results are the CPU time used over that idle
 * period (from {@code /proc/<pid>/task/<tid>/schedstat}, see {@link ProcCpu}) in percent of one
 * core: {@code readerCpuPercent}, the child's reader thread; {@code processCpuPercent}, the whole
 * child JVM (its JIT and GC threads and, for Aeron, its client conductor); and
 * {@code driverCpuPercent}, the Aeron media driver's threads (embedded in the benchmark's JVM;
 * 0 for the other transports). The primary score (one single-shot invocation: burst and idle
 * period) means nothing.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
@Timeout(time = 60)
public class IpcIdle {

    /** Messages sent (and acknowledged) before each idle period. */
    static final int BURST = 4 * Session.ACK_EVERY;

    /** The idle period's length. */
    @State(Scope.Thread)
    public static class Period {
        /** Milliseconds without a message. */
        @Param({"1000"})
        public int idleMillis;
    }

    /** CPU shares over the idle period, % of one core. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        /** The child's reader thread. */
        public double readerCpuPercent;
        /** The whole child process. */
        public double processCpuPercent;
        /** The Aeron media driver's threads in this JVM. */
        public double driverCpuPercent;

        /** Clears the counters per iteration. */
        @Setup(Level.Iteration)
        public void reset() {
            readerCpuPercent = 0;
            processCpuPercent = 0;
            driverCpuPercent = 0;
        }
    }

    private static boolean isDriverThread(String name) {
        return name.startsWith("driver-") || "sender".equals(name) || "receiver".equals(name);
    }

    static void idle(Session s, Period p, Cpu c) throws IOException {
        s.pushAndDrain(BURST, IpcWorstCase.SIZE);
        long pid = s.child.pid();
        long self = ProcessHandle.current().pid();
        long reader0 = ProcCpu.nanos(pid, IpcChild.READER::equals);
        long process0 = ProcCpu.process(pid);
        long driver0 = ProcCpu.nanos(self, IpcIdle::isDriverThread);
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(p.idleMillis);
        long now;
        while ((now = System.nanoTime()) - end < 0) {
            LockSupport.parkNanos(end - now); // the idle period itself, not a synchronisation
        }
        long reader1 = ProcCpu.nanos(pid, IpcChild.READER::equals);
        long process1 = ProcCpu.process(pid);
        long driver1 = ProcCpu.nanos(self, IpcIdle::isDriverThread);
        double wall = System.nanoTime() - start;
        c.readerCpuPercent = 100.0 * (reader1 - reader0) / wall;
        c.processCpuPercent = 100.0 * (process1 - process0) / wall;
        c.driverCpuPercent = 100.0 * (driver1 - driver0) / wall;
    }

    /**
     * SharedYPipe reader, asleep on its futex (it wakes every second, its default peerCheck, to check its peer).
     *
     * @param s state
     * @param p idle period
     * @param c CPU shares
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "SharedYPipe", kind = Transport.Kind.YSUITE)
    public void ysuite(Peers.Ysuite s, Period p, Cpu c) throws IOException {
        idle(s, p, c);
    }

    /**
     * AF_UNIX socket reader, blocked in {@code read}.
     *
     * @param s state
     * @param p idle period
     * @param c CPU shares
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "AF_UNIX SocketChannel", kind = Transport.Kind.SOCKET)
    public void unixSocket(Peers.Unix s, Period p, Cpu c) throws IOException {
        idle(s, p, c);
    }

    /**
     * Aeron IPC reader, polling with a spinning idle strategy.
     *
     * @param s state
     * @param p idle period
     * @param c CPU shares
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "Aeron IPC", kind = Transport.Kind.BUSY_SPIN)
    public void aeron(Peers.Aeron s, Period p, Cpu c) throws IOException {
        idle(s, p, c);
    }

    /**
     * Aeron IPC reader, polling every millisecond.
     *
     * @param s state
     * @param p idle period
     * @param c CPU shares
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "Aeron IPC (sleep 1 ms)", kind = Transport.Kind.POLLING)
    public void aeronSleeping(Peers.AeronSleeping s, Period p, Cpu c) throws IOException {
        idle(s, p, c);
    }
}
