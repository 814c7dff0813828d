package org.ysuite.netty;

/**
 * An adaptive waiting budget in nanoseconds, at most a cap, as {@link ReaderWait} (the reader's
 * spin) and {@link LoopLinger} (the loop's linger) learn it: a wait that paid raises it (never
 * above the cap), a run of {@value #FAILURES_PER_HALVING} waits that did not pay halves it, down
 * to zero, and a sign that waiting would pay again brings it back from a quarter of the cap. It
 * starts at the cap. One thread's only: plain fields.
 */
class SpinBudget {

    /** Waits in a row that did not pay before the budget halves. */
    static final int FAILURES_PER_HALVING = 4;

    private final long cap;
    private long nanos;
    private int failuresInARow;

    SpinBudget(long cap) {
        this.cap = cap;
        this.nanos = cap;
    }

    /** A wait paid: the budget becomes at least {@code nanos} (at most the cap). */
    final void paid(long atLeast) {
        failuresInARow = 0;
        nanos = Math.min(cap, Math.max(nanos, atLeast));
    }

    /** Waiting would have paid: the budget doubles, from a quarter of the cap if it was lower. */
    final void regrow() {
        failuresInARow = 0;
        nanos = Math.min(cap, Math.max(2 * nanos, cap / 4));
    }

    /** A wait did not pay: every {@value #FAILURES_PER_HALVING}th in a row halves the budget. */
    final void failed() {
        if (++failuresInARow >= FAILURES_PER_HALVING) {
            failuresInARow = 0;
            nanos >>>= 1;
        }
    }

    final long cap() {
        return cap;
    }

    final long nanos() {
        return nanos;
    }
}
