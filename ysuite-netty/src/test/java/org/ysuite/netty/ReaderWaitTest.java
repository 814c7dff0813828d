package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The reader's adaptive spin budget, fed with wait times (no clock in the assertions). */
class ReaderWaitTest {

    @Test
    void longWaitsShrinkTheSpinToNothingAndShortOnesBringItBack() {
        ReaderWait.Budget r = new ReaderWait.Budget(50_000);
        assertEquals(50_000, r.nanos());
        for (int i = 0; i < ReaderWait.Budget.FAILURES_PER_HALVING - 1; i++) {
            r.learn(60_000, true);
        }
        assertEquals(50_000, r.nanos(), "an odd long wait costs nothing");
        r.learn(60_000, true);
        assertEquals(25_000, r.nanos(), "a run of long waits halves the budget");
        for (int i = 0; i < 20 * ReaderWait.Budget.FAILURES_PER_HALVING; i++) {
            r.learn(1_000_000, true);
        }
        assertEquals(0, r.nanos(), "a sparse stream spins not at all");
        r.learn(10_000, true);
        assertEquals(10_000, r.nanos(), "a short wait measured by a park brings the spin back");
        r.learn(15_000, false);
        assertEquals(30_000, r.nanos(), "a wait caught spinning doubles");
        r.learn(40_000, false);
        assertEquals(50_000, r.nanos(), "capped");
    }

    /**
     * A wake-up alone takes longer than a small cap on a virtual machine, so a dense stream's
     * parks all exceed it: a park shorter than SHORT_PARK_NANOS must still bring a budget back
     * from zero (else the reader parks on every empty pipe for good), and only longer ones count
     * against it.
     */
    @Test
    void parksAboutAsLongAsAWakeUpBringAZeroBudgetBack() {
        ReaderWait.Budget r = new ReaderWait.Budget(10_000);
        for (int i = 0; i < 20 * ReaderWait.Budget.FAILURES_PER_HALVING; i++) {
            r.learn(ReaderWait.Budget.SHORT_PARK_NANOS, true);
        }
        assertEquals(0, r.nanos(), "parks of SHORT_PARK_NANOS and more shrink the spin to nothing");
        r.learn(30_000, true);
        assertEquals(2_500, r.nanos(), "a park of about a wake-up starts it again at a quarter of the cap");
        r.learn(30_000, true);
        assertEquals(5_000, r.nanos(), "and doubles it");
        r.learn(30_000, true);
        r.learn(30_000, true);
        assertEquals(10_000, r.nanos(), "up to the cap");
    }

    @Test
    void aSignalFiredBeforeTheWaitIsTakenBySpinningOrAtOnce() throws InterruptedException {
        ReaderWait spinning = new ReaderWait(50_000, 0);
        spinning.signal();
        spinning.await();
        assertEquals(1, spinning.waits());
        assertEquals(0, spinning.sleeps(), "the spin's first look takes the signal");
        ReaderWait parking = new ReaderWait(0, 0);
        parking.signal();
        parking.await(); // no spin: goes to the semaphore, which has the signal
        assertEquals(1, parking.waits());
        assertEquals(1, parking.sleeps());
        assertEquals(0, parking.other().nanos(), "a zero cap stays zero");
    }

    /**
     * A wait after the reading thread's own send is a reply wait, with the reply budget (here the
     * only one that spins, so a pending signal is taken without sleeping); a send by another
     * thread, or none, leaves the next wait an ordinary one.
     */
    @Test
    void onlyTheReadersOwnSendMakesTheNextWaitAReplyWait() throws InterruptedException {
        ReaderWait r = new ReaderWait(0, 50_000);
        r.signal();
        r.await();
        assertEquals(1, r.sleeps(), "a first wait with nothing sent does not spin");
        r.sent();
        r.signal();
        r.await();
        assertEquals(1, r.sleeps(), "the reader sent: the reply wait spun and took the signal");
        r.signal();
        r.await();
        assertEquals(2, r.sleeps(), "one send makes one reply wait");
        Thread other = new Thread(r::sent, "another-writer");
        other.start();
        other.join();
        r.signal();
        r.await();
        assertEquals(3, r.sleeps(), "another thread's send is no request of the reader's");
        assertEquals(4, r.waits());
    }
}
