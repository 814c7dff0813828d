package org.ysuite.bench.ipc;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.shared.SharedSignalSender;
import org.ysuite.shared.SharedSignaler;
import org.ysuite.bench.support.Msg;

/**
 * Which idle strategy for an Aeron subscriber in another process: the benchmark's JVM runs the
 * media driver embedded ({@code SHARED} threading, its directory under {@code /dev/shm}) and
 * offers {@value #SIZE}-byte messages on an {@code aeron:ipc} exclusive publication, each stamped
 * with {@code System.nanoTime()} (CLOCK_MONOTONIC, one clock for every process of the machine)
 * and, for {@code ysuite}, followed by the doorbell's {@code ring()}; an {@link AeronIdleChild}
 * JVM polls the subscription with the {@code strategy}. One invocation (single shot) is a
 * period of {@code idleMillis} ({@link IpcIdle.Period}) at the {@code rate}: {@code 0} sends
 * nothing (idle), a number paces the messages at that many per second (the publisher parks
 * between them and sends every message that is due when it wakes, each stamped when offered),
 * {@code max} offers as fast as the subscriber takes them. The secondary results, measured by the
 * child between a START and a STOP message around the period: {@code subscriberCpuPercent} (its
 * polling thread's CPU time, % of one core), {@code meanLatencyNs} and {@code p99LatencyNs}
 * (one-way, offer to poll; -1 with no message) and {@code receivedPerSecond}; the publisher counts
 * {@code wakeupsPerSecond} (its rings that found the subscriber asleep); {@code publisherCpuNsPerMessage}
 * and {@code subscriberCpuNsPerMessage} are each side's thread CPU time per message (what a
 * busy machine's preemption does not inflate). The primary score
 * means nothing.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
@Timeout(time = 60)
public class AeronIdle {

    /** Message size. */
    static final int SIZE = 64;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The subscriber child, its strategy and the publisher's rate. */
    @State(Scope.Benchmark)
    public static class Subscriber {
        /** The child's idle strategy ({@link AeronIdleChild#strategy}). */
        @Param({"busySpin", "backoff", "sleeping", "ysuite"})
        public String strategy;
        /** Messages per second: 0 (idle), a number, or {@code max}. */
        @Param({"0", "10000", "100000", "max"})
        public String rate;

        private Path dir;
        private MediaDriver driver;
        private Aeron aeron;
        private ExclusivePublication out;
        private ChildProcess child;
        private SharedSignalSender doorbell;
        private final UnsafeBuffer msg = new UnsafeBuffer(new byte[SIZE]);

        /**
         * Starts the driver, the publication, the child and (for {@code ysuite}) opens the doorbell.
         *
         * @throws IOException if any of them fails
         */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            if (!strategy.startsWith("ysuite")) {
                AeronIdleChild.strategy(strategy, null); // a bad name fails before the driver starts
            }
            Path shm = Paths.get("/dev/shm");
            dir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Paths.get(System.getProperty(
                    "java.io.tmpdir")), "ysuite-aeron-idle-");
            Path aeronDir = dir.resolve("aeron");
            Path bell = dir.resolve("doorbell");
            try {
                driver = MediaDriver.launch(new MediaDriver.Context().aeronDirectoryName(aeronDir.toString())
                        .threadingMode(ThreadingMode.SHARED).dirDeleteOnStart(true).dirDeleteOnShutdown(true));
                aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir.toString()));
                out = aeron.addExclusivePublication("aeron:ipc", AeronIdleChild.STREAM);
                child = ChildProcess.start(AeronIdleChild.class, aeronDir.toString(), strategy, bell.toString());
                if (strategy.startsWith("ysuite")) {
                    doorbell = SharedSignaler.openSender(bell);
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!out.isConnected()) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("the child's subscription did not connect within 30 s");
                    }
                    LockSupport.parkNanos(1_000_000);
                }
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        /**
         * Tells the child to end, waits for it and removes the folder.
         *
         * @throws Exception if the child failed or had to be killed
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            send(AeronIdleChild.END);
            int exit = child.stop();
            child = null;
            close();
            if (exit != 0) {
                throw new IllegalStateException("the " + strategy + " child ended with " + exit
                        + " (-1: it had to be killed); its output is in JMH's log");
            }
        }

        private void close() throws IOException {
            if (child != null) { // a failed set-up: the child is ended
                try {
                    child.stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            CloseHelper.closeAll(doorbell, out, aeron, driver);
            Session.deleteTree(dir);
        }

        long wakeups() {
            return doorbell == null ? 0 : doorbell.wakeups();
        }

        /** Offers one message of that kind (stamped now), waiting while the log is full, then rings. */
        void send(long kind) throws IOException {
            msg.putLong(0, kind);
            msg.putLong(Long.BYTES, System.nanoTime());
            long result;
            long deadline = 0;
            while ((result = out.offer(msg, 0, SIZE)) < 0) {
                if (result == Publication.CLOSED || result == Publication.NOT_CONNECTED
                        || result == Publication.MAX_POSITION_EXCEEDED) {
                    throw new IOException("Aeron refused the message: " + Publication.errorString(result));
                }
                if (deadline == 0) {
                    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                } else if (System.nanoTime() - deadline > 0) {
                    throw new IOException("no room in the publication for 30 s");
                }
                Thread.onSpinWait();
            }
            if (doorbell != null) {
                doorbell.ring();
            }
        }
    }

    /** What the child measured over the period. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Measured {
        /** The subscriber's polling thread, % of one core. */
        public double subscriberCpuPercent;
        /** One-way latency, mean, ns (-1 with no message). */
        public double meanLatencyNs;
        /** One-way latency, 99th percentile, ns (-1 with no message). */
        public double p99LatencyNs;
        /** Messages received per second. */
        public double receivedPerSecond;
        /** Rings that woke the sleeping subscriber (a FUTEX_WAKE), per second ({@code ysuite} only, else 0). */
        public double wakeupsPerSecond;
        /**
         * The publishing thread's CPU time per message sent, ns (offer, ring, waiting for room;
         * -1 with no message): unlike the rates, not inflated by other processes' preemption.
         */
        public double publisherCpuNsPerMessage;
        /** The subscriber's polling thread's CPU time per message received, ns (-1 with no message). */
        public double subscriberCpuNsPerMessage;

        /** Clears the counters per iteration. */
        @Setup(Level.Iteration)
        public void reset() {
            subscriberCpuPercent = 0;
            meanLatencyNs = 0;
            p99LatencyNs = 0;
            receivedPerSecond = 0;
            wakeupsPerSecond = 0;
            publisherCpuNsPerMessage = 0;
            subscriberCpuNsPerMessage = 0;
        }
    }

    /**
     * One period at the rate, then the child's figures.
     *
     * @param s the subscriber child
     * @param p the period's length
     * @param m the figures
     * @return messages sent
     * @throws IOException if the link or the child fails
     */
    @Benchmark
    public long subscriber(Subscriber s, IpcIdle.Period p, Measured m) throws IOException {
        long wakeups = s.wakeups();
        long cpu = THREADS.getCurrentThreadCpuTime();
        s.send(AeronIdleChild.START);
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(p.idleMillis);
        long sent = 0;
        if ("max".equals(s.rate)) {
            while (System.nanoTime() - end < 0) {
                s.send(sent++);
            }
        } else {
            long rate = Long.parseLong(s.rate);
            long interval = rate == 0 ? Long.MAX_VALUE : 1_000_000_000L / rate;
            long due = rate == 0 ? end : start + interval;
            long now;
            while ((now = System.nanoTime()) - end < 0) {
                while (due - now <= 0 && due - end < 0) {
                    s.send(sent++);
                    due += interval;
                }
                LockSupport.parkNanos(Math.min(due, end) - now);
            }
        }
        s.send(AeronIdleChild.STOP);
        cpu = THREADS.getCurrentThreadCpuTime() - cpu;
        String[] f = s.child.awaitLine("STATS", 30, TimeUnit.SECONDS).split(" ");
        long count = Long.parseLong(f[1]);
        if (count != sent) {
            throw new IOException("sent " + sent + " messages, the child counted " + count);
        }
        double wall = Long.parseLong(f[5]);
        m.meanLatencyNs = Long.parseLong(f[2]);
        m.p99LatencyNs = Long.parseLong(f[3]);
        m.subscriberCpuPercent = 100.0 * Long.parseLong(f[4]) / wall;
        m.receivedPerSecond = count * 1e9 / wall;
        m.wakeupsPerSecond = (s.wakeups() - wakeups) * 1e9 / wall;
        m.publisherCpuNsPerMessage = count == 0 ? -1 : (double) cpu / count;
        m.subscriberCpuNsPerMessage = count == 0 ? -1 : Long.parseLong(f[4]) / (double) count;
        return sent;
    }
}
