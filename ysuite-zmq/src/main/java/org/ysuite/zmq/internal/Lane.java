package org.ysuite.zmq.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * <p>Counts: each side counts its own messages in a field only it writes ({@code written}, {@code taken}),
 * on its own cache line. The reader publishes its count ({@code read}) every {@code publishEvery} messages
 * (at most the low-water mark, at most 64) and whenever it finds the lane empty, as libzmq's reader tells
 * its writer every low-water mark of messages; the writer looks at {@code read} only when its cached copy
 * ({@code knownRead}) shows the lane full. So neither side touches the other's line per message: the
 * writer sees less room than there is by fewer than {@code publishEvery} messages, never more.
 *
 * <p>Memory ordering: the "writer waits" flag is a Dekker pair with {@code read}: the writer stores the flag
 * (volatile) then loads {@code read} (volatile); the reader, at each publication, stores {@code read}
 * (volatile) then loads the flag (volatile). Both are volatile accesses, totally ordered, so either the
 * writer sees the published count (room) or the reader sees the flag and wakes it. With the low-water mark:
 * the writer waits only if the {@code read} it loaded left no room, so more than the low-water mark was
 * queued then; the reader publishes at least once while the queue goes from the low-water mark down to
 * empty (every {@code publishEvery} messages, no more than the low-water mark, and at the empty lane), and that
 * publication's store is later than the writer's load, so the load of the flag after it sees the flag set.
 * A reader that keeps taking messages reaches it, since every message the waiting writer wrote was flushed
 * before it waited. The reader's clear of the flag may land after the writer stored it again (it had seen
 * room, wrote up to the mark and registered anew): harmless, since every clear is followed on the reader's
 * thread by {@code writerWake}, which makes the writer call {@link #tryReserve()} again, and that
 * re-registers it. {@code written} is stored with release semantics (a plain store on x86): the reader reads
 * it only after the flag (a volatile load that the writer's later flag store orders it before), and
 * {@link #queued()} from another thread may see it late, as it may see a late {@code read}. The reader's own
 * wake-up is the {@link YPipe}'s flush against its sleep, raced by ysuite-jcstress's
 * {@code YPipeRaces.FlushVsSleep} (the same {@code purePark} pipe); the writer's by {@code LaneRaces}.
 */
public final class Lane extends LaneShared {

    /**
     * @param hwm the most messages in flight before {@link #hasRoom()} says no; 0 for no limit
     * @param readerWake run on the writer's thread when the reader must be woken
     * @param writerWake run on the reader's thread when a waiting writer may have room again
     */
    public Lane(int hwm, Runnable readerWake, Runnable writerWake) {
        super(hwm, readerWake, writerWake);
    }

    /** Replaces the reader's wake-up (before the reader starts reading). */
    public void readerWake(Runnable r) {
        this.readerWake = r;
    }

    /** Replaces the writer's wake-up. */
    public void writerWake(Runnable r) {
        this.writerWake = r;
    }

    /**
     * Messages written and not yet read, as far as this thread knows: exact on the writer's thread once the
     * reader found the lane empty; from other threads it may lag.
     */
    public long queued() {
        return (long) WRITTEN.getAcquire(this) - read;
    }

    /** Whether the writer may write one more message without passing the mark. Writer side. */
    public boolean hasRoom() {
        if (hwm <= 0 || written - knownRead < hwm) {
            return true;
        }
        long r = read; // the cached count says full: look at the reader's published one
        knownRead = r;
        return written - r < hwm;
    }

    /**
     * Whether there is room; if not, registers the writer to be woken when the reader has taken the lane
     * down to its low-water mark. Writer side.
     */
    public boolean tryReserve() {
        if (hasRoom()) {
            return true;
        }
        writerWaits = true;
        long r = read; // after the flag: the Dekker pair of the class comment
        knownRead = r;
        return written - r < hwm;
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
        WRITTEN.setRelease(this, written + 1);
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
            long t = ++taken;
            if (--untilPublish == 0) {
                untilPublish = publishEvery;
                publish(t);
            }
        } else if (read != taken) {
            publish(taken);
        }
        return m;
    }

    /** Stores the reader's count for the writer, then wakes the writer if it waits and the lane is low. */
    private void publish(long t) {
        read = t;
        if (writerWaits && (long) WRITTEN.getAcquire(this) - t <= lwm) {
            writerWaits = false;
            writerWake.run();
        }
    }

    /** Whether {@link #read()} will return a message; if not, the reader is asleep as after a null read. */
    public boolean checkRead() {
        return pipe.checkRead();
    }
}

/** Padding before the writer's counts. */
abstract class LanePadWriter {
    long pw00, pw01, pw02, pw03, pw04, pw05, pw06, pw07, pw08, pw09, pw10, pw11, pw12, pw13, pw14, pw15;
}

/** The writer's counts: written and read only by the writer, but {@code written} also read by the reader. */
abstract class LaneWriter extends LanePadWriter {
    static final VarHandle WRITTEN;

    static {
        try {
            WRITTEN = MethodHandles.lookup().findVarHandle(LaneWriter.class, "written", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Messages appended: written by the writer (release), read by the reader after the flag. */
    long written;
    /** The writer's copy of the reader's last published count. Writer only. */
    long knownRead;
}

/** Padding between the writer's and the reader's counts. */
abstract class LanePadReader extends LaneWriter {
    long pr00, pr01, pr02, pr03, pr04, pr05, pr06, pr07, pr08, pr09, pr10, pr11, pr12, pr13, pr14, pr15;
}

/** The reader's counts. */
abstract class LaneReader extends LanePadReader {
    /** Messages taken. Reader only. */
    long taken;
    /** Messages to take before the next publication of {@code taken}. Reader only. */
    int untilPublish;
    /** The reader's count as last published for the writer (Dekker pair with {@code writerWaits}). */
    volatile long read;
}

/** Padding between the reader's counts and the fields both sides read. */
abstract class LanePadShared extends LaneReader {
    long ps00, ps01, ps02, ps03, ps04, ps05, ps06, ps07, ps08, ps09, ps10, ps11, ps12, ps13, ps14, ps15;
}

/** What both sides read per message (set once), and the flag they write rarely. */
abstract class LaneShared extends LanePadShared {
    final YPipe<Object> pipe = new YPipe<>(256, WaitPolicy.purePark());
    final int hwm;
    /** The queue length at which a waiting writer is woken: half the mark (0 for no mark or a mark of 1). */
    final long lwm;
    /** How many messages the reader takes between publications of its count: 1..64, at most the low-water mark. */
    final int publishEvery;
    /** Set by a writer that found no room; cleared by the reader when it wakes it. */
    volatile boolean writerWaits;
    volatile Runnable readerWake;
    volatile Runnable writerWake;

    LaneShared(int hwm, Runnable readerWake, Runnable writerWake) {
        this.hwm = hwm;
        this.lwm = hwm <= 0 ? 0 : hwm / 2;
        this.publishEvery = hwm <= 0 ? 64 : (int) Math.max(1, Math.min(lwm, 64));
        this.untilPublish = publishEvery;
        this.readerWake = readerWake;
        this.writerWake = writerWake;
    }
}
