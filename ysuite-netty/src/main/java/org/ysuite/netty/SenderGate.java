package org.ysuite.netty;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The close handshake of a {@link LoopMailbox.Sender}: a flag that says a call is in progress,
 * and the closer's wait for the calls in progress to end.
 *
 * <p>It is a Dekker pair: a sender stores its flag (volatile) and then reads the mailbox state
 * (volatile, {@link #open()}); the closer stores CLOSING and then reads each sender's flag
 * ({@link #awaitCalls}). Volatile accesses are totally ordered, so either the sender sees
 * CLOSING and backs out before touching its pipe, or the closer sees the flag and waits for the
 * call to end; the flag's clearing is a release store that the closer's read acquires, so the
 * closer's final drain sees every message the call made visible.
 */
abstract class SenderGate {

    private static final VarHandle IN_CALL;

    static {
        try {
            IN_CALL = MethodHandles.lookup().findVarHandle(SenderGate.class, "inCall", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 1 while a call is between its entry check and its exit. Written only by the sender's thread. */
    private volatile int inCall;

    /** Whether the mailbox is open (a volatile read of its state). */
    abstract boolean open();

    /** The exception of a call refused because the mailbox is closing or closed. */
    abstract IllegalStateException closed();

    /** Sender thread: enters a call, or throws {@link #closed()} if the mailbox is not open. */
    final void enter() {
        inCall = 1; // volatile store, then the volatile load in open() (Dekker, see class doc)
        if (!open()) {
            IN_CALL.setRelease(this, 0);
            throw closed();
        }
    }

    /** Sender thread: leaves the call; its pipe writes happen-before the closer's read of 0. */
    final void exit() {
        IN_CALL.setRelease(this, 0);
    }

    /**
     * Closer, after it stored CLOSING: waits until none of {@code senders} is inside a call. A call
     * is a few writes and at most one {@code execute()}: short, unless its thread is descheduled.
     */
    static void awaitCalls(SenderGate[] senders) {
        for (SenderGate s : senders) {
            int spins = 0;
            while (s.inCall != 0) { // volatile read: acquires exit()'s release
                if (++spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }
}
