package org.ysuite.bench.ipc;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
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
import org.ysuite.shared.SharedSignalSender;
import org.ysuite.shared.SharedSignaler;
import org.ysuite.bench.support.Msg;

/**
 * What the publisher pays for the doorbell while the subscriber is awake, isolated from Aeron and
 * from the other threads of {@link AeronIdle}: one thread publishes {@value #SIZE}-byte messages
 * into a 64 KiB direct-memory log the way an offer does (plain stores of the body, then a release
 * store of the tail) and then rings a {@link SharedSignaler} whose owner (this JVM) never arms.
 * {@code ring}: {@code none} (no ring: the floor), {@code fenced} (a signaler made with
 * {@code fenceSenders} false: a full fence and a load), {@code unfenced} (the default where the
 * kernel has {@code membarrier}: one load).
 *
 * <p>As JMH's average time, or, for a machine too busy for wall-clock figures, through
 * {@link #main}: the publishing thread's CPU time per message ({@code ThreadMXBean}), which a
 * preempted thread does not accrue, for the three kinds in turn, round after round.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@State(Scope.Thread)
public class RingCost {

    static final int SIZE = 64;
    static final int LOG = 1 << 16;
    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** The doorbell after each message: {@code none}, {@code fenced} or {@code unfenced}. */
    @Param({"none", "fenced", "unfenced"})
    public String ring;

    private Publisher publisher;

    /** A log, a tail and (unless {@code none}) a doorbell with its sender. */
    static final class Publisher implements AutoCloseable {
        private final Path dir;
        private final SharedSignaler owner;
        private final SharedSignalSender sender;
        private final ByteBuffer log = ByteBuffer.allocateDirect(LOG + Long.BYTES).order(ByteOrder.nativeOrder());
        private long tail;

        Publisher(String ring) throws IOException {
            dir = Files.createTempDirectory("ysuite-ring-cost-");
            if ("none".equals(ring)) {
                owner = null;
                sender = null;
                return;
            }
            owner = SharedSignaler.create(dir.resolve("doorbell"), 1, "unfenced".equals(ring));
            sender = SharedSignaler.openSender(dir.resolve("doorbell"));
            if (sender.ringsWithoutFence() != "unfenced".equals(ring)) {
                throw new IllegalStateException("the sender's rings are not " + ring);
            }
        }

        /** Publishes one message, then rings (or not); returns the tail. */
        long publish() {
            int at = (int) (tail & (LOG - 1));
            for (int i = 0; i < SIZE; i += Long.BYTES) {
                log.putLong(at + i, tail + i);
            }
            tail += SIZE;
            LONG.setRelease(log, LOG, tail);
            if (sender != null) {
                sender.ring();
            }
            return tail;
        }

        @Override
        public void close() throws IOException {
            if (sender != null) {
                sender.close();
                owner.close();
            }
            Files.deleteIfExists(dir.resolve("doorbell"));
            Files.deleteIfExists(dir);
        }
    }

    /**
     * Makes the signaler and its sender.
     *
     * @throws IOException if they cannot be made
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        publisher = new Publisher(ring);
    }

    /**
     * Closes them.
     *
     * @throws IOException if the folder cannot be removed
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        publisher.close();
    }

    /**
     * Publishes one message, then rings (or not).
     *
     * @return the tail
     */
    @Benchmark
    public long publishAndRing() {
        return publisher.publish();
    }

    /**
     * CPU time per message: {@code RingCost [rounds [messages]]} (default 10 rounds of 20 M),
     * each round publishing {@code messages} with each kind in a rotated order after a warm-up;
     * prints each round's ns per message of thread CPU time and the medians.
     *
     * @param args rounds and messages per round
     * @throws IOException if a doorbell cannot be made
     */
    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long messages = args.length > 1 ? Long.parseLong(args[1]) : 20_000_000L;
        String[] kinds = {"none", "fenced", "unfenced"};
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[][] ns = new double[kinds.length][rounds];
        long sink = 0;
        for (int r = -1; r < rounds; r++) { // round -1 warms up
            StringBuilder line = new StringBuilder(r < 0 ? "warm-up" : "round " + r);
            for (int j = 0; j < kinds.length; j++) {
                int k = (j + Math.max(r, 0)) % kinds.length;
                try (Publisher p = new Publisher(kinds[k])) {
                    long cpu = threads.getCurrentThreadCpuTime();
                    for (long i = 0; i < messages; i++) {
                        sink += p.publish();
                    }
                    double each = (double) (threads.getCurrentThreadCpuTime() - cpu) / messages;
                    if (r >= 0) {
                        ns[k][r] = each;
                    }
                    line.append(String.format(" %s=%.2f", kinds[k], each));
                }
            }
            System.out.println(line + " ns/msg (CPU)");
        }
        StringBuilder medians = new StringBuilder("median");
        for (int k = 0; k < kinds.length; k++) {
            Arrays.sort(ns[k]);
            medians.append(String.format(" %s=%.2f", kinds[k], ns[k][rounds / 2]));
        }
        System.out.println(medians + " ns/msg (CPU); sink " + (sink & 1));
    }
}
