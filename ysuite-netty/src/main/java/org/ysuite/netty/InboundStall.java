package org.ysuite.netty;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The stall/resume hand-shake of a {@link MessageStream}'s inbound window, apart from the channel
 * so that a jcstress race can drive it (ysuite-jcstress, {@code InboundStallRaces}).
 *
 * <p>Two parties: the event loop, the inbound pipe's writer, whose claim for the next message
 * failed for room; and the application thread, the pipe's reader, which frees room by consuming.
 * The loop must not stay paused (autoRead off) while the window has room, and one stall must
 * yield at most one resume.
 *
 * <p>The protocol is a Dekker pair over two variables, the pipe's {@code head} (how far the reader
 * consumed) and {@link #stalled}:
 * <pre>
 *   loop:   claim fails; stalled = 1; FENCE; retry the claim (loads head)
 *   reader: consume (publishes head); FENCE; load stalled
 * </pre>
 * Each side stores, fences, then loads what the other stored. The full fences order each store
 * before the following load (StoreLoad; a volatile or release store alone does not: x86's store
 * buffer lets the later load pass it), so the two sequences cannot both load the old value:
 * either the loop's retry sees the room, or the reader sees {@code stalled == 1}. Whoever takes the
 * flag does so by a CAS 1 → 0, so exactly one of them acts on one stall: the reader's winning CAS
 * asks the loop to resume ({@link #consumed()} returns {@code true}); the loop's winning CAS after
 * a successful retry withdraws the stall ({@link #stall} returns {@link #CLAIMED}), and no resume
 * follows. When the
 * reader wins after the loop's retry succeeded, a resume arrives at a loop that is not paused (or
 * paused by a later stall, which it then retries): harmless, and not a second resume of one stall.
 *
 * <p>Not thread-safe beyond that: {@link #stall} is called by one thread (the loop),
 * {@link #consumed()} by one other (the reader).
 */
final class InboundStall {

    private static final VarHandle STALLED;

    static {
        try {
            STALLED = MethodHandles.lookup().findVarHandle(InboundStall.class, "stalled", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 1 while the loop waits for the reader to free room; taken back to 0 by one CAS. */
    private volatile int stalled;

    /** The loop's claim for the next message in the inbound window. */
    interface Room {
        /**
         * Tries to claim room for the next message (loads the pipe's head).
         *
         * @return {@code true} if claimed
         */
        boolean claim();
    }

    /** {@link #stall}: the retry claimed, the stall is withdrawn; no resume comes. */
    static final int CLAIMED = 0;
    /** {@link #stall}: the retry claimed, but the reader took the stall first; its resume is harmless. */
    static final int CLAIMED_RESUME_COMING = 1;
    /** {@link #stall}: no room; the caller pauses (autoRead off) until the reader's resume. */
    static final int PAUSE = 2;

    /**
     * Loop thread, after a claim failed for room (and after it flushed everything it decoded, so
     * that the reader can see the window is full): declares the stall, then retries the claim.
     *
     * @param room the claim to retry
     * @return {@link #PAUSE} if the retry found no room: the reader's {@link #consumed()} will
     *     order one resume; {@link #CLAIMED} or {@link #CLAIMED_RESUME_COMING} if it claimed
     */
    int stall(Room room) {
        stalled = 1;
        VarHandle.fullFence(); // StoreLoad: stalled = 1 before the retry's load of head
        if (!room.claim()) {
            return PAUSE;
        }
        // Room after all: take the stall back, unless the reader took it first.
        return STALLED.compareAndSet(this, 1, 0) ? CLAIMED : CLAIMED_RESUME_COMING;
    }

    /**
     * Reader thread, after each consumption that freed room (the pipe's read has published
     * head): takes the stall if the loop declared one.
     *
     * @return {@code true} if this call took the stall: the caller must resume the loop, once
     */
    boolean consumed() {
        VarHandle.fullFence(); // StoreLoad: head published before the load of stalled
        return stalled != 0 && STALLED.compareAndSet(this, 1, 0);
    }
}
