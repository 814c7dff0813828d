package org.ysuite.netty;

import java.util.function.IntConsumer;
import org.ysuite.WaitPolicy;
import org.ysuite.YSemaphore;

/**
 * The one wait of a {@link MessageStream}'s reader: it found the inbound pipe empty (the pipe,
 * whose reader policy never spins, has put it to sleep), so the loop's next flush signals here.
 * The reader spins on that signal for an adaptive budget, then parks once: one spin, under one
 * policy, per wait.
 *
 * <p>The budget is learned from recent waits, in time (a round trip is tens of microseconds; a
 * count of spin rounds would mean a different time on every machine): a wait caught while
 * spinning after {@code t} raises the budget to {@code 2t}; a park whose message came within the
 * cap raises it to the time measured (which includes the wake-up, so it errs long); both at most
 * the cap. Every {@value #FAILURES_PER_HALVING}th wait in a row that took longer than the cap
 * halves it, down to zero, so a sparse stream soon spins not at all; its parks still measure the
 * waits, so a stream that becomes dense again gets its spin back. The
 * fields are the reader thread's only (one reading thread; the counters are read after it is
 * joined, or as hints).
 *
 * <p>Ordering: the signal is a {@link YSemaphore}: the loop's {@code signal} happens-before the
 * reader's take, so the reader sees every message the loop flushed before it.
 */
final class ReaderWait {

    static final int FAILURES_PER_HALVING = 4;
    private static final IntConsumer NO_IDS = id -> { };

    private final YSemaphore signal = new YSemaphore(WaitPolicy.purePark());
    private final long maxSpinNanos;
    private long budgetNanos;
    private int failuresInARow;
    private long waits;
    private long sleeps;

    ReaderWait(long maxSpinNanos) {
        this.maxSpinNanos = maxSpinNanos;
        this.budgetNanos = maxSpinNanos;
    }

    /** Loop (or any thread): wakes the reader. */
    void signal() {
        signal.signal(0);
    }

    /** Reader: waits for {@link #signal()}, spinning first as the budget allows. */
    void await() throws InterruptedException {
        waits++;
        long budget = budgetNanos;
        long start = System.nanoTime();
        if (budget > 0 && !(WaitPolicy.isVirtual(Thread.currentThread()) && WaitPolicy.virtualThreadSpins() == 0)) {
            long waited;
            do {
                if (signal.check(NO_IDS) > 0) {
                    learn(System.nanoTime() - start, false);
                    return;
                }
                Thread.onSpinWait();
                waited = System.nanoTime() - start;
            } while (waited < budget);
        }
        sleeps++;
        signal.await();
        learn(System.nanoTime() - start, true);
    }

    /**
     * Reader: a wait took {@code waited} ns: to the message's arrival if it was caught spinning,
     * to the wake-up after it if the reader {@code parked}.
     */
    void learn(long waited, boolean parked) {
        if (waited <= maxSpinNanos) {
            failuresInARow = 0;
            budgetNanos = Math.min(maxSpinNanos, Math.max(budgetNanos, parked ? waited : 2 * waited));
        } else if (++failuresInARow >= FAILURES_PER_HALVING) {
            failuresInARow = 0;
            budgetNanos >>>= 1;
        }
    }

    /** How many times the reader waited (found the pipe empty). */
    long waits() {
        return waits;
    }

    /** How many of those waits parked (the spin did not catch the message). */
    long sleeps() {
        return sleeps;
    }

    /** The current spin budget, for tests. */
    long budgetNanos() {
        return budgetNanos;
    }
}
