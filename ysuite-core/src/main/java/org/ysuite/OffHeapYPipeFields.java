package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.internal.SideGuard;

/*
 * The heap fields of OffHeapYPipe, below the ypipe protocol's positions (PipeProtocol), each group
 * on its own cache lines: HotSpot lays fields out superclass first, so the classes below are the
 * layout, top to bottom (padding classes are named ...Pad<n>, the groups by their role; why the
 * padding is bytes: see PipeProtocol).
 *
 * Accessor names say the memory mode first, then the field: getAcquireX, getOpaqueX, setReleaseX,
 * casReleaseX, casAcquireX, casX (volatile), as PipeProtocol's getAcquireC / casReleaseC do.
 */

/** Padding after the protocol's positions. */
abstract class OffHeapPad4 extends PipeProtocol {
    byte p400, p401, p402, p403, p404, p405, p406, p407, p408, p409, p40a, p40b, p40c, p40d, p40e, p40f,
            p410, p411, p412, p413, p414, p415, p416, p417, p418, p419, p41a, p41b, p41c, p41d, p41e, p41f,
            p420, p421, p422, p423, p424, p425, p426, p427, p428, p429, p42a, p42b, p42c, p42d, p42e, p42f,
            p430, p431, p432, p433, p434, p435, p436, p437, p438, p439, p43a, p43b, p43c, p43d, p43e, p43f,
            p440, p441, p442, p443, p444, p445, p446, p447, p448, p449, p44a, p44b, p44c, p44d, p44e, p44f,
            p450, p451, p452, p453, p454, p455, p456, p457, p458, p459, p45a, p45b, p45c, p45d, p45e, p45f,
            p460, p461, p462, p463, p464, p465, p466, p467, p468, p469, p46a, p46b, p46c, p46d, p46e, p46f,
            p470, p471, p472, p473, p474, p475, p476, p477, p478, p479, p47a, p47b, p47c, p47d, p47e, p47f;
}

/** The writer's own fields, and its side's guard word. */
abstract class OffHeapWriterFields extends OffHeapPad4 {
    /** Writer: the last value of head it read (re-read only when the ring looks full). */
    long headCache;
    /** Writer: position of the open claim's record, or -1. */
    long claimStart = -1;
    /** Writer: length of the open claim. */
    int claimLength;
    /** Writer: the thread holding the open claim (so that it, and only it, may flush meanwhile). */
    Thread claimThread;
    /** Writer side's guard word ({@link SideGuard}); no payload. Written by the writer and close. */
    long writerWord;
    /**
     * Writer's counter: complete messages written, flushed or not (an add per message; the
     * anchor's count is this less the unflushed ones).
     */
    long messagesWritten;
    /**
     * Writer: the counters' anchor (see {@link OffHeapRing#snapshot}): its sequence (odd while
     * it moves), a position it flushed, and the complete messages flushed before it. Written by
     * the writer where it re-reads head (plain stores ordered by fences: see
     * {@link OffHeapYPipeFields#moveAnchor}); read by snapshots from any thread.
     */
    long anchorSeq;
    long anchorAt;
    long anchorCount;
    /** Writer's counter: flushes that found the reader asleep. */
    long wakeupsSent;
    /** Writer's counter: waits for space that found the ring full. */
    long writerWaits;
}

/** Padding between the writer's fields and the reader's word. */
abstract class OffHeapPad5 extends OffHeapWriterFields {
    byte p500, p501, p502, p503, p504, p505, p506, p507, p508, p509, p50a, p50b, p50c, p50d, p50e, p50f,
            p510, p511, p512, p513, p514, p515, p516, p517, p518, p519, p51a, p51b, p51c, p51d, p51e, p51f,
            p520, p521, p522, p523, p524, p525, p526, p527, p528, p529, p52a, p52b, p52c, p52d, p52e, p52f,
            p530, p531, p532, p533, p534, p535, p536, p537, p538, p539, p53a, p53b, p53c, p53d, p53e, p53f,
            p540, p541, p542, p543, p544, p545, p546, p547, p548, p549, p54a, p54b, p54c, p54d, p54e, p54f,
            p550, p551, p552, p553, p554, p555, p556, p557, p558, p559, p55a, p55b, p55c, p55d, p55e, p55f,
            p560, p561, p562, p563, p564, p565, p566, p567, p568, p569, p56a, p56b, p56c, p56d, p56e, p56f,
            p570, p571, p572, p573, p574, p575, p576, p577, p578, p579, p57a, p57b, p57c, p57d, p57e, p57f;
}

/** The reader's word: head, the writer-waiting bit and the reader side's guard, in one long. */
abstract class OffHeapReaderWord extends OffHeapPad5 {
    /** See {@link OffHeapYPipeFields#HEAD_MASK}; written by the reader, the writer and close. */
    long readerWord;
    /**
     * Reader: how far a {@code readBatch} in progress has consumed (release store per record),
     * so that an awake writer may reuse the space before the batch ends; head in
     * {@link #readerWord} catches up when the call leaves.
     */
    long consumed;
    /** The writer thread that set WAITING; written before the CAS that sets it. */
    Thread waitingWriter;
    /**
     * Who may still touch the ring's memory besides the sides: the snapshots walking it (the
     * low bits), RING_CLOSED once both sides closed (no snapshot enters any more), RING_FREED
     * once the memory is freed. See {@link OffHeapYPipeFields#enterRing}.
     */
    int ringUsers;
    /**
     * The reader's sleep in {@code awaitMessage}: AWAKE, SIGNALLED (a flush found the reader
     * asleep and has not been taken yet) or PARKED. See {@link OffHeapYPipeFields#signalReader}.
     */
    int readerSleep;
    /** The thread (going) asleep in {@code awaitMessage}, else null; written before PARKED. */
    Thread sleepingReader;
    /** The counts of the last snapshot before the memory was freed (see {@link OffHeapYPipeFields#enterRing}). */
    long finalFlushed;
    long finalDepth;
    /** Reader's counter: parks in {@code awaitMessage}. */
    long sleeps;
    /** Reader's counter: nanoseconds parked in {@code awaitMessage}, over the parks that ended. */
    long sleepNanos;
}

/** Padding after the reader's word. */
abstract class OffHeapPad6 extends OffHeapReaderWord {
    byte p600, p601, p602, p603, p604, p605, p606, p607, p608, p609, p60a, p60b, p60c, p60d, p60e, p60f,
            p610, p611, p612, p613, p614, p615, p616, p617, p618, p619, p61a, p61b, p61c, p61d, p61e, p61f,
            p620, p621, p622, p623, p624, p625, p626, p627, p628, p629, p62a, p62b, p62c, p62d, p62e, p62f,
            p630, p631, p632, p633, p634, p635, p636, p637, p638, p639, p63a, p63b, p63c, p63d, p63e, p63f,
            p640, p641, p642, p643, p644, p645, p646, p647, p648, p649, p64a, p64b, p64c, p64d, p64e, p64f,
            p650, p651, p652, p653, p654, p655, p656, p657, p658, p659, p65a, p65b, p65c, p65d, p65e, p65f,
            p660, p661, p662, p663, p664, p665, p666, p667, p668, p669, p66a, p66b, p66c, p66d, p66e, p66f,
            p670, p671, p672, p673, p674, p675, p676, p677, p678, p679, p67a, p67b, p67c, p67d, p67e, p67f;
}

/**
 * The accessors of the shared words and the two sides' guards.
 *
 * <pre>
 * readerWord:
 *   63       62        61     60        59 ............................. 0
 *  +--------+---------+------+---------+-----------------------------------+
 *  | CLOSED | CLOSING | BUSY | WAITING |  head (how far the reader is done) |
 *  +--------+---------+------+---------+-----------------------------------+
 *   bits 61-63: the reader side's {@link SideGuard} state
 *   WAITING:    the writer is (going) asleep in awaitSpace until head moves
 *   head:       every byte before it is free for the writer (2^60 bytes: never reached)
 * </pre>
 *
 * Why one word: the reader must publish head and then learn whether a writer waits for space,
 * while the writer sets WAITING and then re-reads head (Dekker's pattern). In two words that
 * needs a StoreLoad barrier on the reader's side on every call that frees space: a release store
 * of head followed by an acquire load of the flag may be reordered (store buffering, which x86
 * does), and then the reader reads "nobody waits" while the writer reads the old head and parks
 * for good. A cheap load alone, with a barrier only when going to sleep, is not enough either: a
 * reader that reads one message and then stops calling (without sleeping) would never look again.
 * The barrier cannot be dropped, only shared: the reader already does one atomic read-modify-write
 * per call, its side guard's exit (see {@code SideGuard}), so head, WAITING and the guard live in
 * that word. The exit publishes head and reads WAITING in one step; the writer sets WAITING with a
 * CAS that expects the very word (head included) it judged by. RMWs on one variable are totally
 * ordered, and each reads the value just before it: either the reader's exit comes first (the
 * writer's CAS fails, and its retry sees the new head), or the writer's CAS comes first (the exit
 * reads WAITING, clears it and unparks the writer). Head only grows, so the CAS cannot succeed on
 * an old value that came back (no ABA). Cost per read call: the guard's two CASes and no fence
 * (it was two CASes, a release store per record and a full fence).
 *
 * <p>{@code consumed} lets a writer that is awake reuse the records of a long readBatch before
 * it returns (a release store per record, no barrier); a writer that goes to sleep relies on head
 * in the word only, so the batch's exit wakes it, as before.
 */
abstract class OffHeapYPipeFields extends OffHeapPad6 {

    /** readerWord: head's bits. */
    static final long HEAD_MASK = (1L << 60) - 1;
    /** readerWord: the writer waits for head to move. */
    static final long WAITING = 1L << 60;

    private static final VarHandle WRITER_WORD;
    private static final VarHandle READER_WORD;
    private static final VarHandle RING_USERS;
    private static final VarHandle ANCHOR_SEQ;
    private static final VarHandle ANCHOR_AT;
    private static final VarHandle ANCHOR_COUNT;
    private static final VarHandle FINAL_FLUSHED;
    private static final VarHandle FINAL_DEPTH;
    private static final VarHandle CONSUMED;
    private static final VarHandle READER_SLEEP;
    private static final VarHandle SLEEPING_READER;

    /** readerSleep: no signal waiting; the reader is awake (or not in awaitMessage). */
    static final int AWAKE = 0;
    /** readerSleep: a flush found the reader asleep; the reader has not taken the signal yet. */
    static final int SIGNALLED = 1;
    /** readerSleep: the reader registered in sleepingReader and is (going) to park. */
    static final int PARKED = 2;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WRITER_WORD = lookup.findVarHandle(OffHeapWriterFields.class, "writerWord", long.class);
            READER_WORD = lookup.findVarHandle(OffHeapReaderWord.class, "readerWord", long.class);
            RING_USERS = lookup.findVarHandle(OffHeapReaderWord.class, "ringUsers", int.class);
            ANCHOR_SEQ = lookup.findVarHandle(OffHeapWriterFields.class, "anchorSeq", long.class);
            ANCHOR_AT = lookup.findVarHandle(OffHeapWriterFields.class, "anchorAt", long.class);
            ANCHOR_COUNT = lookup.findVarHandle(OffHeapWriterFields.class, "anchorCount", long.class);
            FINAL_FLUSHED = lookup.findVarHandle(OffHeapReaderWord.class, "finalFlushed", long.class);
            FINAL_DEPTH = lookup.findVarHandle(OffHeapReaderWord.class, "finalDepth", long.class);
            CONSUMED = lookup.findVarHandle(OffHeapReaderWord.class, "consumed", long.class);
            READER_SLEEP = lookup.findVarHandle(OffHeapReaderWord.class, "readerSleep", int.class);
            SLEEPING_READER = lookup.findVarHandle(OffHeapReaderWord.class, "sleepingReader",
                    Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        // Loaded here, not at the first write or read: a class load in a virtual thread can pin.
        SideGuard.preload();
    }

    /** Frees the off-heap memory; called once, when neither side can touch it. */
    abstract void freeMemory();

    /**
     * Writer: how far the reader is done, with acquire (its reads of the bytes before happen-before
     * our reuse of them): head in {@code word}, or a batch's progress if that is further.
     */
    final long headOf(long word) {
        return Math.max(word & HEAD_MASK, (long) CONSUMED.getAcquire(this));
    }

    /** Reader, inside a batch: the records before {@code position} may be reused. */
    final void setReleaseConsumed(long position) {
        CONSUMED.setRelease(this, position);
    }

    /**
     * Writer, on the flush that found the reader asleep (never while the reader keeps up): posts
     * the wake-up for a reader waiting in {@code awaitMessage}, unparking it if it is parked.
     *
     * <p>This is a binary semaphore (as {@link YSemaphore}) whose signal is this flush. Why no
     * wake-up is lost: the ypipe protocol makes every flush that publishes messages while the
     * reader is asleep (c == ASLEEP) call this, after its CAS of c. The reader parks only after
     * a look that found c ASLEEP and a volatile CAS of readerSleep from AWAKE to PARKED. The
     * exchange below and that CAS are read-modify-writes of one variable, so they are totally
     * ordered: if the exchange comes first, the reader's CAS fails (SIGNALLED), it takes the
     * signal and looks again; if the CAS comes first, the exchange reads PARKED and unparks the
     * thread the reader wrote into sleepingReader (volatile, before its CAS) - an unpark before
     * the park leaves a permit, so park returns at once. Either way the reader's take of
     * SIGNALLED (a volatile CAS reading this exchange's write) makes this flush's CAS of c
     * happen-before the reader's next look at c, which therefore finds the new messages.
     */
    final void signalReader() {
        if ((int) READER_SLEEP.getAndSet(this, SIGNALLED) == PARKED) {
            LockSupport.unpark((Thread) SLEEPING_READER.getVolatile(this));
        }
    }

    /** Reader: takes a posted wake-up; true if there was one. */
    final boolean takeReaderSignal() {
        return (int) READER_SLEEP.getVolatile(this) == SIGNALLED
                && READER_SLEEP.compareAndSet(this, SIGNALLED, AWAKE); // only the reader leaves it
    }

    /** Reader: registers as the sleeper; false (not registered as PARKED) if a signal is waiting. */
    final boolean publishParked() {
        SLEEPING_READER.setVolatile(this, Thread.currentThread()); // before PARKED: see above
        return READER_SLEEP.compareAndSet(this, AWAKE, PARKED);
    }

    /** Reader: still PARKED (no flush has signalled since it registered)? */
    final boolean stillParked() {
        return (int) READER_SLEEP.getVolatile(this) == PARKED;
    }

    /**
     * Reader: withdraws PARKED (timeout, interrupt, close); a signal that came meanwhile stays
     * SIGNALLED, for the next wait to take. Then leaves sleepingReader.
     */
    final void withdrawParked() {
        READER_SLEEP.compareAndSet(this, PARKED, AWAKE);
        SLEEPING_READER.setRelease(this, (Thread) null);
    }

    /** Reader: awake again after a signal; leaves sleepingReader. */
    final void leaveSleep() {
        SLEEPING_READER.setRelease(this, (Thread) null);
    }

    /** close(): the reader parked in awaitMessage, if any (volatile: see awaitReadable). */
    final Thread sleepingReader() {
        return (Thread) SLEEPING_READER.getVolatile(this);
    }

    /** Reader, registered as PARKED: has close() come? (volatile: Dekker with close()). */
    final boolean readerClosing() {
        return SideGuard.isClosed((long) READER_WORD.getVolatile(this));
    }

    /** Test seam: 1 while the WAITING bit is up, else 0. */
    final int getAcquireWriterWaiting() {
        return (getAcquireReaderWord() & WAITING) != 0 ? 1 : 0;
    }

    final long getAcquireReaderWord() {
        return (long) READER_WORD.getAcquire(this);
    }

    final long getOpaqueWriterWord() {
        return (long) WRITER_WORD.getOpaque(this);
    }

    final long getOpaqueReaderWord() {
        return (long) READER_WORD.getOpaque(this);
    }

    /** Volatile CAS of the reader's word (the writer's WAITING bit). */
    final long casReaderWord(long expected, long value) {
        return (long) READER_WORD.compareAndExchange(this, expected, value);
    }

    /** Writer: lowers WAITING (a wait that ends without the reader's wake-up). */
    final void clearWaiting() {
        long seen = getOpaqueReaderWord();
        while ((seen & WAITING) != 0) {
            long witness = casReaderWord(seen, seen & ~WAITING);
            if (witness == seen) {
                return;
            }
            seen = witness;
        }
    }

    /*
     * The guards' fast paths. Each is the one CAS SideGuard would do, with the same memory mode,
     * written so that the hot path has a single test: the CAS expects the word of the common case
     * (IDLE to enter, BUSY without CLOSING to leave), and any other word (closed, busy, a peer's
     * payload bits, CLOSING) makes it fail and leaves the word as it was, for SideGuard's loop to
     * handle out of line. The hot callers stay small enough for the JIT to inline them (see
     * docs/design.md, "Compiled size of the hot paths").
     */

    /** Writer: enters its side (IDLE is 0: the writer word has no payload). */
    final void enterWriter() {
        if ((long) WRITER_WORD.compareAndExchangeAcquire(this, 0L, SideGuard.BUSY) != 0L) {
            SideGuard.enter(WRITER_WORD, this, "writer"); // busy or closed: throws (or retries)
        }
    }

    /** Writer: leaves its side (release: its writes to the ring happen-before a close's free). */
    final void exitWriter() {
        if ((long) WRITER_WORD.compareAndExchangeRelease(this, SideGuard.BUSY, 0L) != SideGuard.BUSY) {
            exitWriterClosing(); // CLOSING: close() came meanwhile
        }
    }

    private void exitWriterClosing() {
        if ((SideGuard.exit(WRITER_WORD, this, -1L, 0L) & SideGuard.CLOSING) != 0) {
            freeIfBothClosed();
        }
    }

    /** Reader: enters its side, keeping the payload (head, WAITING). */
    final void enterReader() {
        long idle = getOpaqueReaderWord() & SideGuard.PAYLOAD; // fails below unless IDLE
        if ((long) READER_WORD.compareAndExchangeAcquire(this, idle, idle | SideGuard.BUSY) != idle) {
            SideGuard.enter(READER_WORD, this, "reader"); // busy, closed or raced: out of line
        }
    }

    /**
     * Reader: leaves its side publishing {@code head}, in the common case only: no writer
     * WAITING and no close. The same release CAS as {@link #exitReader}'s, on the word it
     * expects; publishing head when the call consumed nothing is harmless (head never passes
     * what the reader is done with).
     *
     * @return false if the word was not the common case: nothing was done, call exitReader
     */
    final boolean exitReaderQuiet(long head) {
        // Opaque is enough: the read only guesses the CAS's expected word; the release CAS itself
        // checks it (a WAITING bit or CLOSING set meanwhile fails it) and publishes head.
        long busy = (getOpaqueReaderWord() & HEAD_MASK) | SideGuard.BUSY;
        return (long) READER_WORD.compareAndExchangeRelease(this, busy, head) == busy;
    }

    /**
     * Reader: leaves the side, publishing {@code head} if it moved (release: our reads of the
     * records before it happen-before the writer's reuse of their bytes) and, in the same RMW,
     * taking WAITING down: the returned word says whether the writer was waiting.
     *
     * @return the word before the exit
     */
    final long exitReader(long head, boolean moved) {
        long before = moved
                ? SideGuard.exit(READER_WORD, this, ~(HEAD_MASK | WAITING), head)
                : SideGuard.exit(READER_WORD, this, -1L, 0L);
        if ((before & SideGuard.CLOSING) != 0) {
            freeIfBothClosed();
        }
        return before;
    }

    /** Moves both guards to CLOSED (or CLOSING if busy) and frees the memory if both are out. */
    final void closeSides() {
        SideGuard.close(WRITER_WORD, this);
        SideGuard.close(READER_WORD, this);
        freeIfBothClosed();
    }

    /*
     * The ring's memory and the snapshots. A snapshot (stats(), any thread) walks the ring's
     * record headers, so the memory must not be freed under it: ringUsers counts the snapshots
     * inside, and the memory is freed by whoever leaves last once both sides are closed.
     *
     *   enterRing: a CAS from n to n + 1, refused once RING_CLOSED (or RING_FREED) is set.
     *   exitRing:  a CAS from n to n - 1; a closer's also sets RING_CLOSED; the one that leaves
     *              the word at exactly RING_CLOSED (no snapshot inside, both sides closed) sets
     *              RING_FREED in the same CAS and frees the memory.
     *
     * Every change of the word is a CAS on it, so they are totally ordered: RING_FREED is set
     * once, by a CAS that read a count of 0 with RING_CLOSED set; after RING_CLOSED no CAS
     * raises the count, so no snapshot is inside then or later. A closer enters like a snapshot
     * (both sides are closed and out, so the positions no longer move), takes the final counts,
     * stores them and only then sets RING_CLOSED with its exit CAS (volatile): a snapshot whose
     * enter is refused has read RING_CLOSED, so it reads those stores (finalCounts). Closers
     * that race store the same counts; one whose enter is refused leaves the freeing to the others.
     */

    /** ringUsers: both sides closed; the memory goes when the last snapshot leaves. */
    static final int RING_CLOSED = 1 << 30;
    /** ringUsers: the memory is freed. */
    static final int RING_FREED = 1 << 31;

    /** Frees the memory exactly once, when both sides are CLOSED and no snapshot walks the ring. */
    private void freeIfBothClosed() {
        if (SideGuard.bothClosed(WRITER_WORD, READER_WORD, this) && enterRing()) {
            takeFinalCounts(); // both sides are out: the positions stay as they are
            exitRing(true);
        }
    }

    /** Stores the counts that snapshots report once the memory may be freed. */
    abstract void takeFinalCounts();

    /** The final counts (flushed, depth), once a snapshot's {@link #enterRing} was refused. */
    final long finalFlushed() {
        return (long) FINAL_FLUSHED.getOpaque(this);
    }

    final long finalDepth() {
        return (long) FINAL_DEPTH.getOpaque(this);
    }

    final void setFinalCounts(long flushed, long depth) {
        FINAL_FLUSHED.setOpaque(this, flushed);
        FINAL_DEPTH.setOpaque(this, depth);
    }

    /**
     * A snapshot (or a closer) enters the ring's memory: false if both sides have closed, and
     * the memory is freed or about to be (read the final counts instead).
     */
    final boolean enterRing() {
        int seen = (int) RING_USERS.getVolatile(this);
        for (;;) {
            if ((seen & (RING_CLOSED | RING_FREED)) != 0) {
                return false;
            }
            int witness = (int) RING_USERS.compareAndExchange(this, seen, seen + 1);
            if (witness == seen) {
                return true;
            }
            seen = witness;
        }
    }

    /** Leaves the ring's memory; {@code closing}: a closer, which sets RING_CLOSED. */
    final void exitRing(boolean closing) {
        int seen = (int) RING_USERS.getVolatile(this);
        for (;;) {
            int next = (seen - 1) | (closing ? RING_CLOSED : 0);
            boolean free = next == RING_CLOSED; // the last one out, after both sides
            if (free) {
                next |= RING_FREED;
            }
            int witness = (int) RING_USERS.compareAndExchange(this, seen, next);
            if (witness == seen) {
                if (free) {
                    freeMemory();
                }
                return;
            }
            seen = witness;
        }
    }

    /** Test seam: the ring users' word. */
    final int getVolatileRingUsers() {
        return (int) RING_USERS.getVolatile(this);
    }

    /*
     * The anchor (writer): moved before the writer writes any byte under a head it newly read,
     * so that a snapshot's walk of the records from min(anchorAt, head) to c reads only records
     * the writer leaves alone until the anchor moves again, or sees the sequence change.
     */

    /**
     * Writer, before it caches a new head: moves the anchor to {@code at}, a position it flushed,
     * where {@code count} complete messages were flushed before it. The odd sequence and the
     * store-store fence come before the anchor's words and before every byte the writer writes
     * afterwards (a snapshot that read such a byte sees the sequence changed: see
     * {@link OffHeapRing#snapshot}).
     */
    /*
     * Plain stores between fences, not VarHandle calls: the writer re-reads head once a ring lap
     * in a loop that keeps up, too rarely for the JIT to compile this path, and an interpreted
     * VarHandle store costs hundreds of instructions (callgrind, instructions.sh offheap: 335.44
     * with the two fences and plain stores, 336.35 with opaque and release VarHandle stores).
     * storeStoreFence then a plain store, and releaseFence then a plain store, order as an
     * opaque store after the fence and a release store do; the longs are written whole (64-bit
     * JVMs do not tear them), and only this thread writes them.
     */
    final void moveAnchor(long count, long at) {
        long seq = anchorSeq + 2; // only the writer stores it
        anchorSeq = seq - 1;
        VarHandle.storeStoreFence();
        anchorCount = count;
        anchorAt = at;
        VarHandle.releaseFence();
        anchorSeq = seq;
    }

    final long getAcquireAnchorSeq() {
        return (long) ANCHOR_SEQ.getAcquire(this);
    }

    final long getOpaqueAnchorSeq() {
        return (long) ANCHOR_SEQ.getOpaque(this);
    }

    final long getOpaqueAnchorAt() {
        return (long) ANCHOR_AT.getOpaque(this);
    }

    final long getOpaqueAnchorCount() {
        return (long) ANCHOR_COUNT.getOpaque(this);
    }
}
