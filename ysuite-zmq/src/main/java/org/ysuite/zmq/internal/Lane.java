package org.ysuite.zmq.internal;

import org.ysuite.WaitPolicy;
import org.ysuite.YPipe;

/**
 * One direction of a peer: a {@link YPipe} of whole messages (a {@code byte[]} for a one-frame message, a
 * {@code byte[][]} for a multipart one) from one writer thread to one reader thread, with a high-water mark
 * counted in messages.
 *
 * <p>Wake-ups: the writer calls {@code readerWake} only when {@link YPipe#flush()} finds the reader asleep
 * (ØMQ's passive synchronisation); a writer of many messages in a row {@link #append appends} them and
 * {@link #flush flushes} once, so the reader is woken at most once per batch. The reader calls
 * {@code writerWake} once the writer had announced that it waits for room ({@link #tryReserve()} failed) and
 * the lane has drained to its low-water mark, half the high-water mark (as libzmq's pipes do): a writer at
 * the mark is woken once per half a mark of messages, not once per message taken.
 *
 * <p>Memory ordering: {@code written} is written by the writer only and {@code read} by the reader only,
 * both volatile; the "writer waits" flag is a Dekker pair with
 * {@code read}: the writer stores the flag (volatile) then loads {@code read} (volatile); the reader stores
 * {@code read} (volatile) then loads the flag (volatile). Both are volatile accesses, totally ordered, so
 * either the writer sees the new {@code read} (room) or the reader sees the flag and wakes it. With the
 * low-water mark: the writer waits only if the {@code read} it loaded left no room, so more than the
 * low-water mark was queued then; the reader's store of {@code read} that first brings the queue down to
 * the low-water mark is therefore later than that load, and the reader's load of the flag after that store
 * sees it set. The reader checks the flag after every message it takes, and a reader that keeps taking
 * messages reaches that store, since every message the waiting writer wrote was flushed before it waited.
 * The reader's clear of the flag may land after the writer stored it again (it had seen room, wrote up to
 * the mark and registered anew): harmless, since every clear is followed on the reader's thread by
 * {@code writerWake}, which makes the writer call {@link #tryReserve()} again, and that re-registers it.
 * The reader's own wake-up is the {@link YPipe}'s flush against its sleep, raced by ysuite-jcstress's
 * {@code YPipeRaces.FlushVsSleep} (the same {@code purePark} pipe); the writer's by {@code LaneRaces}.
 */
public final class Lane {

    private final YPipe<Object> pipe = new YPipe<>(256, WaitPolicy.purePark());
    private volatile long written;
    private volatile long read;
    private volatile boolean writerWaits;
    private final int hwm;
    /** The queue length at which a waiting writer is woken: half the mark (0 for no mark or a mark of 1). */
    private final long lwm;
    private volatile Runnable readerWake;
    private volatile Runnable writerWake;

    /**
     * @param hwm the most messages in flight before {@link #hasRoom()} says no; 0 for no limit
     * @param readerWake run on the writer's thread when the reader must be woken
     * @param writerWake run on the reader's thread when a waiting writer may have room again
     */
    public Lane(int hwm, Runnable readerWake, Runnable writerWake) {
        this.hwm = hwm;
        this.lwm = hwm <= 0 ? 0 : hwm / 2;
        this.readerWake = readerWake;
        this.writerWake = writerWake;
    }

    /** Replaces the reader's wake-up (before the reader starts reading). */
    public void readerWake(Runnable r) {
        this.readerWake = r;
    }

    /** Replaces the writer's wake-up. */
    public void writerWake(Runnable r) {
        this.writerWake = r;
    }

    /** Messages written and not yet read. */
    public long queued() {
        return written - read;
    }

    /** Whether the writer may write one more message without passing the mark. */
    public boolean hasRoom() {
        return hwm <= 0 || queued() < hwm;
    }

    /**
     * Whether there is room; if not, registers the writer to be woken when the reader takes a message.
     * Writer side.
     */
    public boolean tryReserve() {
        if (hasRoom()) {
            return true;
        }
        writerWaits = true;
        return hasRoom();
    }

    /** Writes one whole message and wakes the reader if it sleeps. Writer side. */
    public void write(Object message) {
        append(message);
        flush();
    }

    /**
     * Writes one whole message without publishing it: the reader sees it after the next {@link #flush()}.
     * It counts against the mark at once. Writer side.
     */
    public void append(Object message) {
        pipe.write(message, false);
        written = written + 1;
    }

    /** Publishes the messages appended so far and wakes the reader if it sleeps. Writer side. */
    public void flush() {
        if (!pipe.flush()) {
            readerWake.run();
        }
    }

    /** The next message, or null (the reader is then asleep until the writer's next flush wakes it). Reader side. */
    public Object read() {
        Object m = pipe.read();
        if (m != null) {
            long r = read + 1;
            read = r;
            if (writerWaits && written - r <= lwm) {
                writerWaits = false;
                writerWake.run();
            }
        }
        return m;
    }

    /** Whether {@link #read()} will return a message; if not, the reader is asleep as after a null read. */
    public boolean checkRead() {
        return pipe.checkRead();
    }
}
