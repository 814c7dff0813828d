package org.ysuite.bench.ipc;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.ysuite.SharedSignalSender;
import org.ysuite.SharedSignaler;
import org.ysuite.bench.support.Msg;

/**
 * What the publisher pays for the doorbell while the subscriber is awake, isolated from Aeron and
 * from the other threads of {@link AeronIdle}: one thread publishes {@value #SIZE}-byte messages
 * into a 64 KiB direct-memory log the way an offer does (plain stores of the body, then a release
 * store of the tail) and then rings a {@link SharedSignaler} whose owner (this JVM) never arms.
 * {@code ring}: {@code none} (no ring: the floor), {@code fenced} (a signaler made with
 * {@code fenceSenders} false: a full fence and a load), {@code unfenced} (the default where the
 * kernel has {@code membarrier}: one load).
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

    private Path dir;
    private SharedSignaler owner;
    private SharedSignalSender sender;
    private final ByteBuffer log = ByteBuffer.allocateDirect(LOG + Long.BYTES).order(ByteOrder.nativeOrder());
    private long tail;

    /**
     * Makes the signaler and its sender.
     *
     * @throws IOException if they cannot be made
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("ysuite-ring-cost-");
        if (!"none".equals(ring)) {
            owner = SharedSignaler.create(dir.resolve("doorbell"), 1, "unfenced".equals(ring));
            sender = SharedSignaler.openSender(dir.resolve("doorbell"));
            if (sender.ringsWithoutFence() != "unfenced".equals(ring)) {
                throw new IllegalStateException("the sender's rings are not " + ring);
            }
        }
    }

    /**
     * Closes them.
     *
     * @throws IOException if the folder cannot be removed
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (sender != null) {
            sender.close();
            owner.close();
        }
        Files.deleteIfExists(dir.resolve("doorbell"));
        Files.deleteIfExists(dir);
    }

    /**
     * Publishes one message, then rings (or not).
     *
     * @return the tail
     */
    @Benchmark
    public long publishAndRing() {
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
}
