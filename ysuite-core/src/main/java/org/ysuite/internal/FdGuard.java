package org.ysuite.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps a file descriptor from being closed under a system call that uses it, so that a late call
 * can never reach a descriptor number the kernel has handed out again.
 *
 * <p>One atomic word: bit 31 says "closed", bits 0–30 count the calls in flight. A user brackets
 * each system call with {@link #enter()} / {@link #exit()}; {@link #close()} sets the closed bit and
 * waits until no call is in flight. Both sides change the same word with read-modify-write
 * operations, which are totally ordered: if an {@code enter} increment comes before the closing
 * OR, {@code close} sees the count and waits for the matching {@code exit}; if it comes after,
 * {@code enter} sees the closed bit and backs out without touching the descriptor. Only after
 * {@code close} returns {@code true} may the owner call {@code close(2)}.
 */
public final class FdGuard {

    private static final int CLOSED = 0x8000_0000;

    private final AtomicInteger word = new AtomicInteger();

    /** Creates an open guard with no call in flight. */
    public FdGuard() {
    }

    /**
     * Registers a call in flight.
     *
     * @return {@code true} if the descriptor is open (call {@link #exit()} afterwards),
     *         {@code false} if it is closed (do not touch it, do not call {@code exit})
     */
    public boolean enter() {
        if (word.getAndIncrement() < 0) {
            word.getAndDecrement();
            return false;
        }
        return true;
    }

    /** Ends a call registered by a successful {@link #enter()}. */
    public void exit() {
        word.getAndDecrement();
    }

    /**
     * Tells whether {@link #close()} has begun.
     *
     * @return {@code true} once closing has started
     */
    public boolean isClosed() {
        return word.get() < 0;
    }

    /**
     * Marks the guard closed and waits until every call in flight has exited. The calls guarded
     * are non-blocking system calls, so the wait is short.
     *
     * @return {@code true} for the first call (the caller now owns closing the descriptor),
     *         {@code false} if it was already closed
     */
    public boolean close() {
        int before = word.getAndUpdate(v -> v | CLOSED);
        if (before < 0) {
            return false;
        }
        int spins = 0;
        while ((word.get() & ~CLOSED) != 0) {
            if (++spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return true;
    }
}
