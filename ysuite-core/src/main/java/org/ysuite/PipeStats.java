package org.ysuite;

import java.util.concurrent.TimeUnit;

/**
 * A snapshot of the counters of a pipe, mailbox or shared pipe, taken while it runs.
 *
 * <p>Each side keeps its own counters in fields only its own thread writes, without an atomic
 * instruction or a fence, and only the ones on a slow path (a sleep, a wake-up, a wait for space)
 * cost more than an add. A snapshot reads them from any thread without a lock: each value is
 * untorn and was true at some recent moment, but the values are not read at one instant, so
 * {@link #depth()} is approximate (never negative).
 *
 * <p>What each counter means for each type is in its {@code stats()} method; a counter that does
 * not apply to a type is 0.
 */
public final class PipeStats {

    private final long messagesFlushed;
    private final long wakeups;
    private final long sleeps;
    private final long sleepNanos;
    private final long writerWaits;
    private final long depth;

    /**
     * Makes a snapshot of the given values (the pipes make theirs; a test or an adapter may too).
     *
     * @param messagesFlushed complete messages made visible to the reader
     * @param wakeups wake-ups sent
     * @param sleeps times the reader slept
     * @param sleepNanos nanoseconds the reader slept
     * @param writerWaits times the writer waited for space
     * @param depth messages flushed but not yet read (a negative value is taken as 0)
     */
    public PipeStats(long messagesFlushed, long wakeups, long sleeps, long sleepNanos, long writerWaits, long depth) {
        this.messagesFlushed = messagesFlushed;
        this.wakeups = wakeups;
        this.sleeps = sleeps;
        this.sleepNanos = sleepNanos;
        this.writerWaits = writerWaits;
        this.depth = Math.max(0, depth);
    }

    /**
     * Returns how many complete messages the writer (or writers) made visible to the reader.
     * Every pipe counts the same unit: a message written in parts ({@code OffHeapYPipe}'s and
     * the shared pipe's {@code write(..., incomplete)}) counts once, when its last part is
     * flushed; incomplete parts are never counted.
     *
     * @return messages flushed so far
     */
    public long messagesFlushed() {
        return messagesFlushed;
    }

    /**
     * Returns how many flushes found the reader asleep and sent it a wake-up (or, for a
     * {@link YPipe}, asked the caller for one). A busy pipe sends none.
     *
     * @return wake-ups so far
     */
    public long wakeups() {
        return wakeups;
    }

    /**
     * Returns how many times the reader parked: found nothing, spun as its policy says, and
     * slept.
     *
     * @return sleeps so far
     */
    public long sleeps() {
        return sleeps;
    }

    /**
     * Returns how long the reader has been parked in all, in nanoseconds (sleeps that ended).
     *
     * @return the time asleep so far
     */
    public long sleepNanos() {
        return sleepNanos;
    }

    /**
     * Returns how many times a writer found the ring full and waited for space.
     *
     * @return writer waits so far
     */
    public long writerWaits() {
        return writerWaits;
    }

    /**
     * Returns the messages flushed and not yet consumed, approximately.
     *
     * @return the depth, {@code >= 0}
     */
    public long depth() {
        return depth;
    }

    /**
     * Describes the counters.
     *
     * @return every counter, by name
     */
    @Override
    public String toString() {
        return "PipeStats[flushed=" + messagesFlushed + ", wakeups=" + wakeups + ", sleeps=" + sleeps
                + ", asleep=" + TimeUnit.NANOSECONDS.toMillis(sleepNanos) + " ms, writerWaits=" + writerWaits
                + ", depth=" + depth + "]";
    }
}
