package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.ysuite.internal.SideGuard;

/*
 * The heap fields of OffHeapYPipe, below the ypipe protocol's positions (PipeProtocol), each group
 * on its own cache lines: HotSpot lays fields out superclass first, so the classes below are the
 * layout, top to bottom (padding classes are named ...Pad<n>, the groups by their role).
 *
 * Accessor names say the memory mode first, then the field: getAcquireX, getOpaqueX, setReleaseX,
 * casReleaseX, casAcquireX, casX (volatile), as PipeProtocol's getAcquireC / casReleaseC do.
 */

/** Padding after the protocol's positions. */
abstract class OffHeapPad4 extends PipeProtocol {
    long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p4a, p4b, p4c, p4d, p4e, p4f;
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
}

/** Padding between the writer's fields and the reader's word. */
abstract class OffHeapPad5 extends OffHeapWriterFields {
    long p50, p51, p52, p53, p54, p55, p56, p57, p58, p59, p5a, p5b, p5c, p5d, p5e, p5f;
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
    /** 1 once the memory is freed. */
    int freed;
}

/** Padding after the reader's word. */
abstract class OffHeapPad6 extends OffHeapReaderWord {
    long p60, p61, p62, p63, p64, p65, p66, p67, p68, p69, p6a, p6b, p6c, p6d, p6e, p6f;
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
    private static final VarHandle FREED;
    private static final VarHandle CONSUMED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WRITER_WORD = lookup.findVarHandle(OffHeapWriterFields.class, "writerWord", long.class);
            READER_WORD = lookup.findVarHandle(OffHeapReaderWord.class, "readerWord", long.class);
            FREED = lookup.findVarHandle(OffHeapReaderWord.class, "freed", int.class);
            CONSUMED = lookup.findVarHandle(OffHeapReaderWord.class, "consumed", long.class);
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

    final void enterWriter() {
        SideGuard.enter(WRITER_WORD, this, "writer");
    }

    final void exitWriter() {
        if ((SideGuard.exit(WRITER_WORD, this, -1L, 0L) & SideGuard.CLOSING) != 0) {
            freeIfBothClosed();
        }
    }

    final void enterReader() {
        SideGuard.enter(READER_WORD, this, "reader");
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

    /** Frees the memory exactly once, when both sides are CLOSED (see {@link SideGuard}). */
    private void freeIfBothClosed() {
        if (SideGuard.bothClosed(WRITER_WORD, READER_WORD, this) && FREED.compareAndSet(this, 0, 1)) {
            freeMemory();
        }
    }
}
