package org.ysuite.internal;

import java.lang.invoke.VarHandle;

/**
 * Keeps memory from being freed under the one thread that is using it, for an object with two
 * sides (a writer and a reader), each used by one thread at a time, and a {@code close()} that
 * may come from any thread at any time: {@code OffHeapYPipe}'s guard. {@link FdGuard} does the
 * same for a file descriptor shared by many threads.
 *
 * <p>Each side has one {@code long} word, a field of the guarded object reached through a
 * {@link VarHandle}; the top three bits are this guard's, the other 61 are the owner's payload
 * (which the guard carries along unchanged, so the owner may put data there that must change
 * atomically with the side's state):
 * <pre>
 *   63       62        61     60 ..................... 0
 *  +--------+---------+------+-------------------------+
 *  | CLOSED | CLOSING | BUSY |  payload (the owner's)  |
 *  +--------+---------+------+-------------------------+
 *   none set: IDLE, not inside an operation
 *   BUSY:     inside an operation that may touch the memory
 *   CLOSING:  (with BUSY) close() came while busy; the side frees on its way out
 *   CLOSED:   closed and out of the memory for good
 * </pre>
 *
 * <h2>Why every step is a read-modify-write</h2>
 * Entering is "announce busy, then check not closed"; closing is "announce closed, then check
 * not busy". Done as a store and a load on each side, that is Dekker's pattern and needs a
 * StoreLoad barrier on <em>both</em> sides: with plain (or release/acquire) accesses both loads
 * may miss both stores, and the closer frees memory the side is about to touch (store buffering;
 * x86 allows it). So a cheaper "owner thread, plain reads, CAS only on close" scheme is not safe:
 * the side's entry itself must be ordered against the close. Here each step is one atomic
 * read-modify-write of the side's word, and the RMWs on one word are totally ordered: an
 * {@link #enter} before the close's RMW is seen by it (CLOSING: the side frees on exit), one after
 * it sees CLOSED and touches nothing. A barrier-plus-load would cost the same instruction class as
 * the CAS; the CAS also carries the payload, which is how the pipe publishes its head and learns of
 * a waiting writer in the same instruction (see {@code OffHeapYPipe}).
 *
 * <h2>Memory ordering</h2>
 * {@link #enter} is an acquire CAS: the side's accesses to the memory cannot move above it.
 * {@link #exit} is a release CAS: they cannot move below it, so they happen-before a
 * {@link #close} (volatile CAS) that reads its IDLE and frees. A side leaving a closed word, and
 * {@link #close}, move a word to CLOSED with a volatile CAS and then read both words volatile
 * ({@link #bothClosed}): of the two moves, the later one in the synchronization order sees both
 * words CLOSED, so the memory is freed as soon as both sides are out (the owner makes the free
 * itself happen once, e.g. with its own flag).
 */
public final class SideGuard {

    /** Guard bit: inside an operation. */
    public static final long BUSY = 1L << 61;
    /** Guard bit: close() came while busy. */
    public static final long CLOSING = 1L << 62;
    /** Guard bit: closed, and the side is out of the memory. */
    public static final long CLOSED = 1L << 63;
    /** The payload's bits: everything the guard does not use. */
    public static final long PAYLOAD = BUSY - 1;

    private SideGuard() {
    }

    /**
     * Does nothing; calling it loads and initialises this class. A pipe calls it when its class
     * is initialised (where the pipe is built), so that no first write or read, possibly in a
     * virtual thread, loads a class: a class load in a virtual thread can pin its carrier.
     */
    public static void preload() {
    }

    /**
     * Tells whether a word says the guarded object is closed (or closing).
     *
     * @param word a side's word
     * @return {@code true} if CLOSING or CLOSED is set
     */
    public static boolean isClosed(long word) {
        return (word & (CLOSING | CLOSED)) != 0;
    }

    /**
     * Enters a side: IDLE to BUSY, keeping the payload.
     *
     * @param word the side's word
     * @param holder the object that holds the word
     * @param side the side's name, for the message
     * @return the word as entered (BUSY set)
     * @throws IllegalStateException if the object is closed, or the side is already in use
     */
    public static long enter(VarHandle word, Object holder, String side) {
        return enter(word, holder, side, 0L);
    }

    /**
     * Enters a side: IDLE to BUSY, keeping the payload and setting the payload bits in
     * {@code mark} (who entered, say; the owner's {@link #exit} clears them).
     *
     * @param word the side's word
     * @param holder the object that holds the word
     * @param side the side's name, for the message
     * @param mark payload bits to set while inside
     * @return the word as entered (BUSY and {@code mark} set)
     * @throws IllegalStateException if the object is closed, or the side is already in use
     */
    public static long enter(VarHandle word, Object holder, String side, long mark) {
        long seen = (long) word.getOpaque(holder);
        for (;;) {
            if ((seen & (BUSY | CLOSING | CLOSED)) != 0) {
                throw refused(seen, side);
            }
            long entered = seen | BUSY | mark;
            long witness = (long) word.compareAndExchangeAcquire(holder, seen, entered);
            if (witness == seen) {
                return entered;
            }
            seen = witness; // the payload changed under us (the peer's bits): try again
        }
    }

    /**
     * Leaves a side: keeps the payload bits in {@code keep}, sets those in {@code set}, and clears
     * BUSY; if close() came meanwhile, moves the word to CLOSED instead of IDLE.
     *
     * @param word the side's word
     * @param holder the object that holds the word
     * @param keep payload bits to keep (a mask)
     * @param set payload bits to set after masking
     * @return the word just before the exit; {@link #CLOSING} set in it means this exit moved the
     *     word to CLOSED and the caller must call {@link #bothClosed} to see whether to free
     */
    public static long exit(VarHandle word, Object holder, long keep, long set) {
        long seen = (long) word.getOpaque(holder);
        for (;;) {
            long payload = (seen & PAYLOAD & keep) | set;
            long witness;
            if ((seen & CLOSING) == 0) {
                witness = (long) word.compareAndExchangeRelease(holder, seen, payload);
            } else {
                witness = (long) word.compareAndExchange(holder, seen, payload | CLOSED);
            }
            if (witness == seen) {
                return seen;
            }
            seen = witness;
        }
    }

    /**
     * Closes a side: IDLE to CLOSED, BUSY to BUSY and CLOSING; nothing if already done. Call it
     * for both sides, then {@link #bothClosed}.
     *
     * @param word the side's word
     * @param holder the object that holds the word
     */
    public static void close(VarHandle word, Object holder) {
        long seen = (long) word.getVolatile(holder);
        for (;;) {
            if (isClosed(seen)) {
                return;
            }
            long next = (seen & BUSY) == 0 ? seen | CLOSED : seen | CLOSING;
            long witness = (long) word.compareAndExchange(holder, seen, next);
            if (witness == seen) {
                return;
            }
            seen = witness;
        }
    }

    /**
     * Tells whether both sides are CLOSED, i.e. out of the memory for good.
     *
     * @param writer the writer side's word
     * @param reader the reader side's word
     * @param holder the object that holds both
     * @return {@code true} if the memory may be freed now
     */
    public static boolean bothClosed(VarHandle writer, VarHandle reader, Object holder) {
        return ((long) writer.getVolatile(holder) & CLOSED) != 0
                && ((long) reader.getVolatile(holder) & CLOSED) != 0;
    }

    private static IllegalStateException refused(long seen, String side) {
        if (isClosed(seen)) {
            return new IllegalStateException("pipe is closed");
        }
        return new IllegalStateException("the " + side + " side is in use by another call"
                + " (a second " + side + " thread, a call from inside a handler, or an open"
                + " claim)");
    }
}
