package org.ysuite;

import static org.ysuite.SharedPipeDescriptor.CONSUMED_AT;
import static org.ysuite.SharedPipeDescriptor.FLUSHED_AT;
import static org.ysuite.SharedPipeDescriptor.LONG;
import static org.ysuite.SharedPipeDescriptor.SLEEPS_AT;
import static org.ysuite.SharedPipeDescriptor.SLEEP_NANOS_AT;
import static org.ysuite.SharedPipeDescriptor.WAKEUPS_AT;
import static org.ysuite.SharedPipeDescriptor.WRITER_WAITS_AT;

import java.nio.ByteBuffer;

/**
 * A shared pipe's counters in its file's header (offsets in {@link SharedPipeDescriptor}): the
 * stores of one side, and anyone's reads. It touches nothing but the buffer it is given (no
 * jnr-ffi, no lock, no side), so {@link SharedPipeStat} reads a file's counters with
 * {@link #read} alone.
 *
 * <h2>Who writes, and the ordering</h2>
 * Each counter is written only by its side's operating thread (one at a time: the side's guard
 * orders a close's last flush after the operations before it), and this class keeps the side's
 * own copy, read from the file once at open (a restarted side continues its counts), so no
 * counter is ever read back from the file by its writer. The stores are opaque or release, the
 * loads opaque or acquire: never torn, no atomic instruction, no fence (on x86 each is a plain
 * move; on ARM the release store is an {@code stlr}, once per read call that consumed).
 * <ul>
 *   <li>{@code flushed} is stored (opaque) before the flush's volatile store of {@code c}, whose
 *       release orders it first; the reader consumes only what it saw in {@code c} (acquire),
 *       and stores {@code consumed} with release after its volatile store of {@code head}. A
 *       snapshot loads {@code consumed} with acquire, then {@code flushed}: by that chain it sees
 *       a {@code flushed} at least as large as the records {@code consumed} counts, so an honest
 *       file never shows a negative depth (a {@code flushed} may run ahead of {@code c} for the
 *       moment between the two stores). {@link PipeStats} clamps the depth anyway: the file is
 *       hostile input.</li>
 *   <li>The others (wake-ups, writer waits, sleeps, time asleep) are stored opaque on their slow
 *       paths and loaded opaque: untorn, eventually seen, in no particular order.</li>
 * </ul>
 * Every value read from the file is read once, and is only printed or subtracted: garbage there
 * shows as garbage, never as an exception.
 */
final class SharedPipeCounters {

    private final ByteBuffer shared;
    /** This side's own counts: only its operating thread reads or writes them. */
    private long wakeups;
    private long writerWaits;
    private long sleeps;
    private long sleepNanos;

    /** Continues the counts the file holds (zero in a new file). */
    SharedPipeCounters(ByteBuffer shared) {
        this.shared = shared;
        this.wakeups = load(shared, WAKEUPS_AT);
        this.writerWaits = load(shared, WRITER_WAITS_AT);
        this.sleeps = load(shared, SLEEPS_AT);
        this.sleepNanos = load(shared, SLEEP_NANOS_AT);
    }

    /** One counter, opaque: untorn, never trusted. */
    static long load(ByteBuffer shared, int at) {
        return (long) LONG.getOpaque(shared, at);
    }

    /** Writer, in a flush, before the volatile store of c: the records of complete messages written. */
    void storeFlushed(long records) {
        LONG.setOpaque(shared, FLUSHED_AT, records);
    }

    /** Reader, after the volatile store of head: the records consumed (release: see the class). */
    void storeConsumed(long records) {
        LONG.setRelease(shared, CONSUMED_AT, records);
    }

    /** Writer: a flush found the reader asleep and woke it. */
    void wokeReader() {
        LONG.setOpaque(shared, WAKEUPS_AT, ++wakeups);
    }

    /** Writer: an awaitSpace found no room and waits. */
    void writerWaited() {
        LONG.setOpaque(shared, WRITER_WAITS_AT, ++writerWaits);
    }

    /** Reader: an awaitMessage goes to sleep (counted once however many slices it sleeps). */
    void slept() {
        LONG.setOpaque(shared, SLEEPS_AT, ++sleeps);
    }

    /** Reader: one slice of a sleep ended after {@code nanos} (System.nanoTime around it). */
    void asleep(long nanos) {
        sleepNanos += Math.max(0, nanos);
        LONG.setOpaque(shared, SLEEP_NANOS_AT, sleepNanos);
    }

    /**
     * Writer, unwrite: the message records (not padding) in [{@code from}, {@code to}) of its own
     * unflushed records (the incomplete parts after the last complete message).
     */
    static long recordsIn(CheckedRecordRing ring, long from, long to) {
        long n = 0;
        for (long pos = from; pos != to; ) {
            int header = ring.headerAt(pos);
            if (header != RecordDescriptor.PADDING) {
                n++;
            }
            pos = ring.recordEnd(pos, header, to);
        }
        return n;
    }

    /**
     * Reads every counter of the file once: {@code consumed} first, with acquire, then
     * {@code flushed} (see the class), then the others.
     *
     * @param header a view of the file's header (at least 4096 bytes from offset 0)
     */
    static Values read(ByteBuffer header) {
        long consumed = (long) LONG.getAcquire(header, CONSUMED_AT);
        long flushed = load(header, FLUSHED_AT);
        return new Values(flushed, consumed, load(header, WAKEUPS_AT), load(header, SLEEPS_AT),
                load(header, SLEEP_NANOS_AT), load(header, WRITER_WAITS_AT));
    }

    /** The six counters as read once, raw (a hostile file's may be anything). */
    static final class Values {
        final long flushed;
        final long consumed;
        final long wakeups;
        final long sleeps;
        final long sleepNanos;
        final long writerWaits;

        Values(long flushed, long consumed, long wakeups, long sleeps, long sleepNanos, long writerWaits) {
            this.flushed = flushed;
            this.consumed = consumed;
            this.wakeups = wakeups;
            this.sleeps = sleeps;
            this.sleepNanos = sleepNanos;
            this.writerWaits = writerWaits;
        }

        /** Flushed minus consumed, clamped to {@code >= 0} (and never overflowing on garbage). */
        long depth() {
            long d = flushed - consumed;
            boolean overflow = ((flushed ^ consumed) & (flushed ^ d)) < 0;
            return overflow ? (flushed < 0 ? 0 : Long.MAX_VALUE) : Math.max(0, d);
        }

        PipeStats toPipeStats() {
            return new PipeStats(flushed, wakeups, sleeps, sleepNanos, writerWaits, depth());
        }
    }
}
