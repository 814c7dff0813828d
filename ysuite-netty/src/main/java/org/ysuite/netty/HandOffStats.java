package org.ysuite.netty;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A {@link LoopMailbox}'s hand-off latency samples (see {@link SendCounts}): how many were taken,
 * their total and their largest value, in nanoseconds from the stamp (before the sampled message
 * was written) to its delivery (just before the handler is called).
 *
 * <p>Written by the loop thread only (or by the thread that runs the close sequence once the loop
 * has ended, which happens-after the loop's last write), with {@code setOpaque}: a reader on
 * another thread gets each value untorn and without a lock, but the three are read separately, so
 * one read may see a sample's count and not yet its total (the difference is at most the samples
 * taken meanwhile). After {@link LoopMailbox#closeFuture()} completes they are final.
 */
final class HandOffStats {

    private static final VarHandle SAMPLES;
    private static final VarHandle TOTAL;
    private static final VarHandle MAX;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SAMPLES = l.findVarHandle(HandOffStats.class, "samples", long.class);
            TOTAL = l.findVarHandle(HandOffStats.class, "totalNanos", long.class);
            MAX = l.findVarHandle(HandOffStats.class, "maxNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Read plainly by their single writer, stored with setOpaque for the readers.
    private long samples;
    private long totalNanos;
    private long maxNanos;

    /** Loop thread: a sample stamped at {@code stampNanos} is delivered now. */
    void record(long stampNanos) {
        // nanoTime is monotonic across threads on the supported platforms; clamp all the same
        long nanos = Math.max(0, System.nanoTime() - stampNanos);
        TOTAL.setOpaque(this, totalNanos + nanos);
        if (nanos > maxNanos) {
            MAX.setOpaque(this, nanos);
        }
        SAMPLES.setOpaque(this, samples + 1);
    }

    long samples() {
        return (long) SAMPLES.getOpaque(this);
    }

    long totalNanos() {
        return (long) TOTAL.getOpaque(this);
    }

    long maxNanos() {
        return (long) MAX.getOpaque(this);
    }
}
