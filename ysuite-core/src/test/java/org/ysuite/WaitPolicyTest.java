package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The policies' rules, and the default policy's behaviour under sparse traffic. */
class WaitPolicyTest {

    @Test
    void factoriesShareTheFixedPoliciesAndMakeEachAdaptiveOneNew() {
        assertSame(WaitPolicy.defaultPolicy(), WaitPolicy.spinThenPark(WaitPolicy.DEFAULT_SPINS));
        assertSame(WaitPolicy.purePark(), WaitPolicy.spinThenPark(0));
        assertEquals(WaitPolicy.DEFAULT_SPINS, WaitPolicy.defaultPolicy().spinLimit());
        assertNotSame(WaitPolicy.adaptive(), WaitPolicy.adaptive(), "an adaptive policy keeps per-waiter state");
        assertEquals("WaitPolicy.adaptive(" + WaitPolicy.DEFAULT_SPINS + ")", WaitPolicy.adaptive().toString());
        assertEquals(WaitPolicy.DEFAULT_SPINS, WaitPolicy.adaptive().spinLimit(), "a new one spins the whole limit");
    }

    @Test
    void newStateSharesAFixedPolicyAndGivesEachWaiterAFreshAdaptiveOne() {
        assertSame(WaitPolicy.defaultPolicy(), WaitPolicy.defaultPolicy().newState());
        assertSame(WaitPolicy.purePark(), WaitPolicy.purePark().newState());
        WaitPolicy fixed = WaitPolicy.spinThenPark(7);
        assertSame(fixed, fixed.newState());

        WaitPolicy used = WaitPolicy.adaptive(64);
        // 64 halves to 0 in 7 runs of parks (sparse traffic)
        for (int i = 0; i < 7 * WaitPolicy.AdaptiveSpin.PARKS_PER_HALVING; i++) {
            used.spinLimit();
            used.parked();
        }
        assertEquals(0, used.spinLimit(), "the used one learned to park at once");
        WaitPolicy fresh = used.newState();
        assertNotSame(used, fresh);
        assertEquals("WaitPolicy.adaptive(64)", fresh.toString());
        assertEquals(64, fresh.spinLimit(), "a fresh waiter's state: the whole limit, nothing learned");
        assertEquals(0, used.spinLimit(), "and the used one's state is its own");
    }

    @Test
    void adaptiveHalvesPerRunOfParksDownToZeroAndProbesAgain() {
        WaitPolicy p = WaitPolicy.adaptive(200);
        int previous = 200;
        for (int e : new int[] {100, 50, 25, 12, 6, 3, 1, 0}) {
            for (int i = 1; i < WaitPolicy.AdaptiveSpin.PARKS_PER_HALVING; i++) {
                p.parked();
                assertEquals(previous, p.spinLimit(), "fewer parks in a row than a run keep the limit");
            }
            p.parked();
            assertEquals(e, p.spinLimit(), "a run of parks halves it");
            previous = e;
        }
        // At zero, one wait in PROBE_EVERY spins the whole limit again (the spinLimit() calls
        // above and below count as waits at zero).
        int probes = 0;
        for (int i = 1; i < 2 * WaitPolicy.AdaptiveSpin.PROBE_EVERY; i++) {
            int limit = p.spinLimit();
            if (limit != 0) {
                assertEquals(200, limit, "a probe spins the whole limit");
                probes++;
            }
        }
        assertEquals(2, probes, "one probe per " + WaitPolicy.AdaptiveSpin.PROBE_EVERY + " waits at zero");
    }

    @Test
    void adaptiveKeepsItsSpinThroughOddParks() {
        WaitPolicy p = WaitPolicy.adaptive(200);
        for (int i = 0; i < 100; i++) {
            for (int k = 1; k < WaitPolicy.AdaptiveSpin.PARKS_PER_HALVING; k++) {
                p.parked();
            }
            p.spun(5); // a spin that pays between the parks keeps the limit
        }
        assertEquals(200, p.spinLimit());
    }

    @Test
    void adaptiveGrowsBackWhenASpinPaysOff() {
        WaitPolicy p = WaitPolicy.adaptive(200);
        for (int i = 0; i < 3 * WaitPolicy.AdaptiveSpin.PARKS_PER_HALVING; i++) {
            p.parked();
        }
        assertEquals(25, p.spinLimit());
        p.spun(3); // paid off: twice the limit
        assertEquals(51, p.spinLimit());
        p.spun(40);
        assertEquals(103, p.spinLimit());
        p.spun(150); // never beyond the maximum
        assertEquals(200, p.spinLimit());
        p = WaitPolicy.adaptive(Integer.MAX_VALUE);
        p.spun(Integer.MAX_VALUE - 1);
        assertEquals(Integer.MAX_VALUE, p.spinLimit(), "no overflow");
    }

    /**
     * A mailbox look that finds messages starts no wait: an adaptive policy at zero keeps its
     * count towards the next probe (a look that counted would spend the probe on a reader that
     * did not wait at all).
     */
    @Test
    void aMailboxLookThatFindsMessagesStartsNoWait() throws InterruptedException {
        WaitPolicy p = WaitPolicy.adaptive(200);
        for (int i = 0; i < 8 * WaitPolicy.AdaptiveSpin.PARKS_PER_HALVING; i++) {
            p.parked();
        }
        assertEquals(0, p.spinLimit()); // one wait at zero counted
        YMailbox<Integer> mailbox = new YMailbox<>(new YPollset(), p);
        YMailbox.Writer<Integer> writer = mailbox.newWriter();
        writer.send(0); // the pipe starts asleep: this flush signals, and the poll takes the id
        assertEquals(1, mailbox.poll(m -> { }));
        for (int i = 1; i < WaitPolicy.AdaptiveSpin.PROBE_EVERY - 1; i++) {
            writer.send(i); // the pipe is awake now: the poll's first look over it finds this
            assertEquals(1, mailbox.poll(m -> { }));
        }
        assertEquals(0, p.spinLimit(), "the looks that found messages counted as waits at zero");
        mailbox.close();
    }

    @Test
    void badArgumentsAreNamed() {
        assertEquals("spins must be >= 0: -1",
                assertThrows(IllegalArgumentException.class, () -> WaitPolicy.spinThenPark(-1)).getMessage());
        assertEquals("maxSpins must be >= 1: 0",
                assertThrows(IllegalArgumentException.class, () -> WaitPolicy.adaptive(0)).getMessage());
    }

    /**
     * Sparse traffic: every message finds the reader asleep. With adaptive policies both the
     * pipe's reader and its semaphore stop spinning before their parks (a fixed spin spins in
     * vain twice per message, once in the pipe and once in the semaphore).
     */
    @Test
    void aReaderFedSparseTrafficStopsSpinning() throws Throwable {
        YPipe<Integer> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.adaptive());
        YSemaphore wake = new YSemaphore(WaitPolicy.adaptive());
        AtomicInteger received = new AtomicInteger();
        int messages = 8 * 4 + 4; // eight halvings of four parks each, and a margin
        TestThreads.Runner reader = TestThreads.start("sparse-reader", () -> {
            while (received.get() < messages) {
                if (pipe.readBatch(m -> received.incrementAndGet()) == 0) {
                    wake.await();
                }
            }
        });
        for (int i = 0; i < messages; i++) {
            TestThreads.awaitParked(reader.thread); // asleep: the next flush must signal
            pipe.write(i);
            if (!pipe.flush()) {
                wake.signal(0);
            }
            awaitCount(received, i + 1);
        }
        reader.join();
        assertEquals(0, pipe.readerPolicy.spinLimit(), "the pipe's reader still spins before its parks");
        assertEquals(0, wake.waitPolicy().spinLimit(), "the semaphore's owner still spins before its parks");
    }

    private static void awaitCount(AtomicInteger count, int expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (count.get() < expected) {
            if (System.nanoTime() - deadline > 0) {
                fail("message " + expected + " never arrived");
            }
            Thread.yield();
        }
    }
}
