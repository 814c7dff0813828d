package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The reader's adaptive spin budget, fed with wait times (no clock in the assertions). */
class ReaderWaitTest {

    @Test
    void longWaitsShrinkTheSpinToNothingAndShortOnesBringItBack() {
        ReaderWait r = new ReaderWait(50_000);
        assertEquals(50_000, r.budgetNanos());
        for (int i = 0; i < ReaderWait.FAILURES_PER_HALVING - 1; i++) {
            r.learn(60_000, true);
        }
        assertEquals(50_000, r.budgetNanos(), "an odd long wait costs nothing");
        r.learn(60_000, true);
        assertEquals(25_000, r.budgetNanos(), "a run of long waits halves the budget");
        for (int i = 0; i < 20 * ReaderWait.FAILURES_PER_HALVING; i++) {
            r.learn(1_000_000, true);
        }
        assertEquals(0, r.budgetNanos(), "a sparse stream spins not at all");
        r.learn(10_000, true);
        assertEquals(10_000, r.budgetNanos(), "a short wait measured by a park brings the spin back");
        r.learn(15_000, false);
        assertEquals(30_000, r.budgetNanos(), "a wait caught spinning doubles");
        r.learn(40_000, false);
        assertEquals(50_000, r.budgetNanos(), "capped");
    }

    @Test
    void aSignalFiredBeforeTheWaitIsTakenBySpinningOrAtOnce() throws InterruptedException {
        ReaderWait spinning = new ReaderWait(50_000);
        spinning.signal();
        spinning.await();
        assertEquals(1, spinning.waits());
        assertEquals(0, spinning.sleeps(), "the spin's first look takes the signal");
        ReaderWait parking = new ReaderWait(0);
        parking.signal();
        parking.await(); // no spin: goes to the semaphore, which has the signal
        assertEquals(1, parking.waits());
        assertEquals(1, parking.sleeps());
        assertEquals(0, parking.budgetNanos(), "a zero cap stays zero");
    }
}
