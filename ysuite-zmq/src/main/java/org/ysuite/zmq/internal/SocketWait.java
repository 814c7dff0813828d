package org.ysuite.zmq.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.ysuite.YSemaphore;

/**
 * The one wait of a socket's thread (for a message, or for room at the send mark): it spins on the socket's
 * signal for a learned time budget, yielding the CPU each round, then parks. The peers' lanes wake the
 * socket only when it was asleep on them, so a socket that is caught while spinning costs its waker one
 * atomic exchange and itself no wake-up; a parked one costs a wake-up through the kernel, tens of
 * microseconds on a virtual machine whose vCPU went idle.
 *
 * <p>The budget is learned from recent waits, in time: a wait caught while spinning after {@code t} raises
 * it to {@code 2t}; a park whose signal came within {@link #MAX_SPIN_NANOS} raises it to the time measured
 * (a spin that long would have caught it); every {@value #FAILURES_PER_HALVING}th wait in a row that took
 * longer than the cap halves it, down to zero, so a socket with sparse traffic soon spins not at all (its
 * parks still measure the waits, so dense traffic gets the spin back). Each round yields: what the socket
 * waits for is an I/O thread that may need this very CPU.
 *
 * <p>Threads: one socket thread at a time calls {@link #await}; the budget fields are that thread's own
 * (a socket moved between threads hands them over with its own happens-before, as every socket field).
 * Ordering: the signal is a {@link YSemaphore}; a signal happens-before the take that sees it, here as in
 * the semaphore's own await, so the waiter sees everything its waker published before signalling.
 */
public final class SocketWait {

    /** The longest spin of one wait, in nanoseconds: a loopback round trip or two on a small VM. */
    static final long MAX_SPIN_NANOS = 100_000L;
    /** Waits in a row longer than the cap after which the budget halves. */
    static final int FAILURES_PER_HALVING = 4;
    private static final IntConsumer NO_IDS = id -> { };

    private final YSemaphore signal;
    private long budget = MAX_SPIN_NANOS / 4;
    private int failures;

    /**
     * @param signal the socket's signal; its owner is the socket's thread
     */
    public SocketWait(YSemaphore signal) {
        this.signal = signal;
    }

    /**
     * Waits for the signal: spins for the learned budget, then parks.
     *
     * @param deadline a {@link System#nanoTime()} after which to give up, or {@link Long#MAX_VALUE} for none
     * @return true if the signal was taken, false if the deadline passed first
     * @throws InterruptedException if the thread was interrupted before the call or while parked
     */
    public boolean await(long deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting"); // as the semaphore's own await
        }
        long start = System.nanoTime();
        long spin = budget;
        if (spin > 0) {
            long now = start;
            do {
                if (signal.check(NO_IDS) > 0) {
                    learn(System.nanoTime() - start, false);
                    return true;
                }
                Thread.yield();
                now = System.nanoTime();
            } while (now - start < spin && now - deadline < 0);
        }
        boolean taken;
        if (deadline == Long.MAX_VALUE) {
            signal.await();
            taken = true;
        } else {
            long left = deadline - System.nanoTime();
            taken = left > 0 && signal.await(left, TimeUnit.NANOSECONDS);
        }
        if (taken) {
            learn(System.nanoTime() - start, true);
        }
        return taken;
    }

    /** The current spin budget in nanoseconds (for tests). */
    long budget() {
        return budget;
    }

    private void learn(long waited, boolean parked) {
        if (waited <= MAX_SPIN_NANOS) {
            failures = 0;
            long want = parked ? waited : 2 * waited;
            if (want > budget) {
                budget = Math.min(MAX_SPIN_NANOS, want);
            }
        } else if (++failures >= FAILURES_PER_HALVING) {
            failures = 0;
            budget /= 2;
            if (budget < 1_000L) {
                budget = 0;
            }
        }
    }
}
