package org.ysuite.internal;

import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The message counts of a byte pipe over a {@link RecordRing}, derived rather than counted per
 * message, written once for {@code OffHeapYPipe} (positions in its fields) and the shared pipe
 * (positions in its file's header, read by either side or by the stat tool in any process).
 *
 * <h2>The unit: complete messages</h2>
 * Every count is of complete messages: a message written in parts counts once, when its last
 * part is flushed (and is consumed when its last part is read). Padding counts for nothing.
 *
 * <h2>The anchor and the walk</h2>
 * The writer keeps an <em>anchor</em>: a position {@code at} it flushed and {@code count}, the
 * complete messages flushed before it, behind a sequence that is odd while the anchor moves. It
 * moves the anchor only where it re-reads the reader's head (a ring lap apart at most), at a
 * wake-up and at open, always before it writes a byte under a newly read head. A snapshot walks
 * the records from {@code min(at, head)} to the end of the last flush
 * ({@link RecordRing#lastPartsAround}): flushed = {@code count} + the last parts in
 * [{@code at}, end), depth = the last parts in [{@code head}, end).
 *
 * <h2>Ordering, and the one retry rule</h2>
 * A subclass loads, in this order: the sequence with acquire, the anchor's count and position
 * (opaque), head with acquire, the end of the last flush with acquire (so {@code end >= head}: the
 * reader consumes only what it saw flushed); then the walk, a load-load fence and the sequence
 * again (opaque). Within an anchor's epoch the writer overwrites only bytes below its cached head,
 * which is at most {@code at} and at most the head read here, so the records walked stay as they
 * were flushed; a byte written after the anchor moves comes after the odd sequence and the
 * writer's store-store fence, so a walk that read it sees the sequence changed. A changed or odd
 * sequence, or a walk that does not land on {@code at}, {@code head} and the end, is tried again:
 * {@link #ATTEMPTS} times in all, the first {@link #YIELDS} yielding between them, the rest parking
 * 1 us, 2 us, ... up to 1 ms (about 7 ms in all, for a writer preempted in the middle of its
 * anchor); then the anchor's count alone is reported, with a depth of 0. Garbage in a file (a
 * hostile or truncated one) shows as strange numbers, never as an exception.
 *
 * <p>Not thread-safe: one instance per snapshot (a snapshot is no hot path).
 */
public abstract class AnchoredCounts {

    /** A snapshot's attempts at a walk between two equal anchor sequences. */
    public static final int ATTEMPTS = 32;
    /** Of {@link #ATTEMPTS}, those that yield before the next; the rest park, longer each time. */
    public static final int YIELDS = 16;

    private long flushed;
    private long depth;

    /** Makes a snapshot; {@link #count} takes it. */
    protected AnchoredCounts() {
    }

    /**
     * The anchor's sequence, with acquire (odd while the writer moves the anchor).
     *
     * @return the sequence
     */
    protected abstract long acquireSeq();

    /**
     * The anchor's sequence again, after the walk (opaque; the caller fenced).
     *
     * @return the sequence
     */
    protected abstract long opaqueSeq();

    /**
     * The anchor's count: complete messages flushed before {@link #anchorAt()} (opaque).
     *
     * @return the count
     */
    protected abstract long anchorCount();

    /**
     * The anchor's position, a position the writer flushed (opaque).
     *
     * @return the position
     */
    protected abstract long anchorAt();

    /**
     * How far the reader is done, with acquire.
     *
     * @return the reader's published head
     */
    protected abstract long acquireHead();

    /**
     * The end of the last flush, with acquire, loaded after {@code head}.
     *
     * @param head the head just loaded
     * @param at the anchor's position just loaded
     * @return the end of the records flushed
     */
    protected abstract long acquireEnd(long head, long at);

    /**
     * Takes the snapshot: walks {@code ring} between two equal anchor sequences (see the class).
     *
     * @param ring the pipe's records, or null if they cannot be read (the anchor alone is reported)
     * @return {@code true} if a walk counted; {@code false} if the anchor's count alone is reported
     */
    public final boolean count(RecordRing ring) {
        long count = 0;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            long seq = acquireSeq();
            count = anchorCount();
            if (ring == null) {
                break;
            }
            long at = anchorAt();
            long head = acquireHead();
            long end = acquireEnd(head, at);
            long walked = walk(ring, at, head, end);
            VarHandle.loadLoadFence();
            if (walked >= 0 && (seq & 1) == 0 && opaqueSeq() == seq) {
                flushed = count + (walked >>> 32);
                depth = walked & 0xFFFF_FFFFL;
                return true;
            }
            if (attempt < YIELDS) { // the writer is moving its anchor
                Thread.yield();
            } else {
                LockSupport.parkNanos(1_000L << Math.min(attempt - YIELDS, 10));
            }
        }
        flushed = count; // no walk between two equal sequences: the anchor alone
        depth = 0;
        return false;
    }

    /** {@link RecordRing#lastPartsAround}, or -1 for positions or records no honest pipe holds. */
    private static long walk(RecordRing ring, long at, long head, long end) {
        if (((at | head | end) & (RecordDescriptor.ALIGNMENT_BYTES - 1)) != 0) {
            return -1;
        }
        try {
            return ring.lastPartsAround(at, head, end);
        } catch (RuntimeException e) {
            return -1; // a header that points outside the ring: a hostile file, or one rewritten meanwhile
        }
    }

    /**
     * After {@link #count}: the complete messages flushed.
     *
     * @return messages flushed
     */
    public final long flushed() {
        return flushed;
    }

    /**
     * After {@link #count}: the complete messages flushed and not yet consumed ({@code >= 0}).
     *
     * @return the depth
     */
    public final long depth() {
        return depth;
    }

    /**
     * After {@link #count}: the complete messages consumed ({@link #flushed()} less
     * {@link #depth()}).
     *
     * @return messages consumed
     */
    public final long consumed() {
        return flushed - depth;
    }
}
