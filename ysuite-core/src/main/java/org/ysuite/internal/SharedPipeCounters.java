package org.ysuite.internal;

import static org.ysuite.internal.SharedPipeDescriptor.ANCHOR_AT;
import static org.ysuite.internal.SharedPipeDescriptor.ANCHOR_COUNT_AT;
import static org.ysuite.internal.SharedPipeDescriptor.ANCHOR_SEQ_AT;
import static org.ysuite.internal.SharedPipeDescriptor.C_AT;
import static org.ysuite.internal.SharedPipeDescriptor.HEAD_AT;
import static org.ysuite.internal.SharedPipeDescriptor.LONG;
import static org.ysuite.internal.SharedPipeDescriptor.SLEEPS_AT;
import static org.ysuite.internal.SharedPipeDescriptor.SLEEP_NANOS_AT;
import static org.ysuite.internal.SharedPipeDescriptor.WAKEUPS_AT;
import static org.ysuite.internal.SharedPipeDescriptor.WRITER_WAITS_AT;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import org.ysuite.PipeStats;

/**
 * A shared pipe's counters in its file's header (offsets in {@link SharedPipeDescriptor}): the
 * stores of one side, and anyone's reads. It touches nothing but the buffers it is given (no
 * jnr-ffi, no lock, no side), so the stat tool (ysuite-tools) reads a file's counters with
 * {@link #read} alone.
 *
 * <h2>Message counts: derived, not stored per message</h2>
 * The file holds no count that changes per message. The writer keeps an <em>anchor</em>: a
 * position {@code at} it flushed (a {@code c} it published) and {@code count}, the complete
 * messages flushed before it; it moves the anchor only where it re-reads {@code head} (a ring lap
 * at most apart, on the path that found the ring full by its cached head, before it caches the
 * new head), at a wake-up and at open. A snapshot adds the complete messages (last parts) it
 * walks in the ring, with the walk and the retry rule {@code OffHeapYPipe} uses too
 * ({@link AnchoredCounts}): flushed = {@code count} + those in [{@code at}, {@code c}),
 * consumed = flushed - those in [{@code head}, {@code c}). Padding is no message; a message
 * written in parts is one, flushed with its last part and consumed once its last part is read.
 * So a flush and a read pay nothing
 * for the counts beyond the stores of {@code c} and {@code head} they make anyway, and the
 * writer an add per message on a field of its own (the count it anchors).
 *
 * <h2>Why the walk is safe, and the ordering</h2>
 * Within an anchor's epoch the writer's cached head is at most {@code head} and at most
 * {@code at} (head never passes c), and the writer overwrites only the bytes of positions below
 * its cached head (it writes position {@code p} only while {@code p < headCache + capacity}). The
 * records from {@code min(at, head)} to {@code c} therefore stay as they were flushed until the
 * writer moves the anchor, and a walk that saw the same even sequence before and after it read
 * only such records: the writer stores the odd sequence, then a store-store fence, before the
 * anchor's words and before any byte it writes afterwards; the snapshot loads the sequence with
 * acquire, then the anchor, {@code head} (acquire) and {@code c} (acquire; so {@code c >= head}:
 * the reader consumes only what it saw flushed), walks, then a load-load fence and the sequence
 * again. A changed or odd sequence, or a walk that does not land on {@code at}, {@code head}
 * and {@code c}, is retried ({@link AnchoredCounts#ATTEMPTS} times, yielding, then parking),
 * then reported as the anchor's count alone for both (a depth of 0: a writer stopped in the middle of its anchor, or a bad file): a
 * hostile file shows strange numbers, never an exception, and {@code flushed - consumed} is the
 * records in [{@code head}, {@code c}), never negative.
 *
 * <h2>The other counters</h2>
 * Wake-ups, writer waits, sleeps and time asleep are written only by their side's operating
 * thread (one at a time: the side's guard orders a close after the operations before it), on
 * their slow paths, with opaque stores, from this class's own copy (read from the file once at
 * open: a restarted side continues its counts), and loaded opaque: untorn, eventually seen, in
 * no particular order.
 *
 * <p>Every value read from the file is read once, and is only printed or subtracted: garbage
 * there shows as garbage, never as an exception.
 */
public final class SharedPipeCounters {

    private final ByteBuffer shared;
    /** This side's own counts: only its operating thread reads or writes them. */
    private long wakeups;
    private long writerWaits;
    private long sleeps;
    private long sleepNanos;
    /** Writer: the anchor's last sequence (even), continued from the file's. */
    private long anchorSeq;

    /** Continues the counts the file holds (zero in a new file). */
    public SharedPipeCounters(ByteBuffer shared) {
        this.shared = shared;
        this.wakeups = load(shared, WAKEUPS_AT);
        this.writerWaits = load(shared, WRITER_WAITS_AT);
        this.sleeps = load(shared, SLEEPS_AT);
        this.sleepNanos = load(shared, SLEEP_NANOS_AT);
        this.anchorSeq = (load(shared, ANCHOR_SEQ_AT) + 1) & ~1L; // a writer that died mid-anchor left it odd
    }

    /** One counter, opaque: untorn, never trusted. */
    public static long load(ByteBuffer shared, int at) {
        return (long) LONG.getOpaque(shared, at);
    }

    /**
     * Writer, inside its side, before it writes any byte under a newly read head: moves the
     * anchor to {@code at}, a position it flushed ({@code c}), where {@code count} records were
     * flushed before it. The odd sequence and the fence come first: a snapshot whose walk may
     * read a byte written after this call sees the sequence changed (see the class).
     */
    public void anchor(long count, long at) {
        long seq = anchorSeq + 2;
        LONG.setOpaque(shared, ANCHOR_SEQ_AT, seq - 1);
        VarHandle.storeStoreFence();
        LONG.setOpaque(shared, ANCHOR_COUNT_AT, count);
        LONG.setOpaque(shared, ANCHOR_AT, at);
        LONG.setRelease(shared, ANCHOR_SEQ_AT, seq);
        anchorSeq = seq;
    }

    /** Writer: a flush found the reader asleep and woke it. */
    public void wokeReader() {
        LONG.setOpaque(shared, WAKEUPS_AT, ++wakeups);
    }

    /** Writer: an awaitSpace found no room and waits. */
    public void writerWaited() {
        LONG.setOpaque(shared, WRITER_WAITS_AT, ++writerWaits);
    }

    /** Reader: an awaitMessage goes to sleep (counted once however many slices it sleeps). */
    public void slept() {
        LONG.setOpaque(shared, SLEEPS_AT, ++sleeps);
    }

    /** Reader: one slice of a sleep ended after {@code nanos} (System.nanoTime around it). */
    public void asleep(long nanos) {
        sleepNanos += Math.max(0, nanos);
        LONG.setOpaque(shared, SLEEP_NANOS_AT, sleepNanos);
    }

    /**
     * Reads every counter of the file once, deriving the message counts from the anchor,
     * {@code head}, {@code c} and the records between them (see the class).
     *
     * @param header a view of the file's header (at least 4096 bytes from offset 0)
     * @param ring the file's ring, or null if it could not be mapped (the anchor's count is then
     *     reported for both)
     */
    public static Values read(ByteBuffer header, RecordRing ring) {
        FileCounts counts = new FileCounts(header);
        counts.count(ring);
        return new Values(counts.flushed(), counts.consumed(), load(header, WAKEUPS_AT), load(header, SLEEPS_AT),
                load(header, SLEEP_NANOS_AT), load(header, WRITER_WAITS_AT));
    }

    /** The anchor and the positions as the file's header holds them, for {@link AnchoredCounts}. */
    private static final class FileCounts extends AnchoredCounts {
        private final ByteBuffer header;

        FileCounts(ByteBuffer header) {
            this.header = header;
        }

        @Override
        protected long acquireSeq() {
            return (long) LONG.getAcquire(header, ANCHOR_SEQ_AT);
        }

        @Override
        protected long opaqueSeq() {
            return load(header, ANCHOR_SEQ_AT);
        }

        @Override
        protected long anchorCount() {
            return load(header, ANCHOR_COUNT_AT);
        }

        @Override
        protected long anchorAt() {
            return load(header, ANCHOR_AT);
        }

        @Override
        protected long acquireHead() {
            return (long) LONG.getAcquire(header, HEAD_AT);
        }

        @Override
        protected long acquireEnd(long head, long at) {
            return (long) LONG.getAcquire(header, C_AT);
        }
    }

    /** The six counters as read once, raw (a hostile file's may be anything). */
    public static final class Values {
        public final long flushed;
        public final long consumed;
        public final long wakeups;
        public final long sleeps;
        public final long sleepNanos;
        public final long writerWaits;

        Values(long flushed, long consumed, long wakeups, long sleeps, long sleepNanos, long writerWaits) {
            this.flushed = flushed;
            this.consumed = consumed;
            this.wakeups = wakeups;
            this.sleeps = sleeps;
            this.sleepNanos = sleepNanos;
            this.writerWaits = writerWaits;
        }

        /** Flushed minus consumed, clamped to {@code >= 0} (and never overflowing on garbage). */
        public long depth() {
            long d = flushed - consumed;
            boolean overflow = ((flushed ^ consumed) & (flushed ^ d)) < 0;
            return overflow ? (flushed < 0 ? 0 : Long.MAX_VALUE) : Math.max(0, d);
        }

        public PipeStats toPipeStats() {
            return new PipeStats(flushed, wakeups, sleeps, sleepNanos, writerWaits, depth());
        }
    }
}
