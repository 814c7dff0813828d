package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The policies' rules, and the default policy's behaviour under sparse traffic. */
class WaitPolicyTest {

    /** Microseconds, in the clock's nanoseconds. */
    private static final long US = 1_000L;
    /** A park of sparse traffic at 10^4 messages a second. */
    private static final long SPARSE_PARK = 100 * US;
    /** A park of a ping-pong whose peer was asleep too: two wake-ups, on a virtualised host. */
    private static final long PING_PONG_PARK = 40 * US;

    /** A clock that moves only when the test moves it, and counts how often it is read. */
    private static final class TestClock implements LongSupplier {
        long now = 1_000_000_000L;
        int reads;

        @Override
        public long getAsLong() {
            reads++;
            return now;
        }
    }

    private static WaitPolicy adaptive(TestClock clock) {
        return new WaitPolicy.AdaptiveSpin(WaitPolicy.DEFAULT_SPINS, clock);
    }

    /** One wait that spins in vain, parks, and sleeps {@code sleptNanos}; returns its limit. */
    private static int parkedWait(WaitPolicy p, TestClock clock, long sleptNanos) {
        int limit = p.spinLimit();
        p.parked();
        clock.now += sleptNanos;
        return limit;
    }

    @Test
    void theDefaultIsANewAdaptivePolicyAndTheFixedOnesAreShared() {
        WaitPolicy d = WaitPolicy.defaultPolicy();
        assertTrue(d instanceof WaitPolicy.AdaptiveSpin, d.toString());
        assertEquals("WaitPolicy.adaptive(" + WaitPolicy.DEFAULT_SPINS + ")", d.toString());
        assertNotSame(d, WaitPolicy.defaultPolicy(), "the default keeps per-waiter state: a new one per call");
        assertEquals(WaitPolicy.DEFAULT_SPINS, d.spinLimit(), "a new one spins the whole limit");
        assertSame(WaitPolicy.purePark(), WaitPolicy.spinThenPark(0));
        assertEquals(WaitPolicy.DEFAULT_SPINS, WaitPolicy.spinThenPark(WaitPolicy.DEFAULT_SPINS).spinLimit());
        assertNotSame(WaitPolicy.adaptive(), WaitPolicy.adaptive(), "an adaptive policy keeps per-waiter state");
        assertEquals(WaitPolicy.DEFAULT_SPINS, WaitPolicy.adaptive().spinLimit(), "a new one spins the whole limit");
    }

    @Test
    void newStateSharesAFixedPolicyAndGivesEachWaiterAFreshAdaptiveOne() {
        assertSame(WaitPolicy.purePark(), WaitPolicy.purePark().newState());
        WaitPolicy fixed = WaitPolicy.spinThenPark(7);
        assertSame(fixed, fixed.newState());

        TestClock clock = new TestClock();
        WaitPolicy used = new WaitPolicy.AdaptiveSpin(64, clock);
        // 64 halves to 0 in 7 long parks (sparse traffic)
        for (int i = 0; i < 7; i++) {
            parkedWait(used, clock, SPARSE_PARK);
        }
        assertEquals(0, used.spinLimit(), "the used one learned to park at once");
        WaitPolicy fresh = used.newState();
        assertNotSame(used, fresh);
        assertEquals("WaitPolicy.adaptive(64)", fresh.toString());
        assertEquals(64, fresh.spinLimit(), "a fresh waiter's state: the whole limit, nothing learned");
        assertEquals(0, used.spinLimit(), "and the used one's state is its own");
    }

    /** Sparse traffic: every wait parks, and sleeps longer than a wake-up takes. */
    @Test
    void longParksHalveTheSpinDownToZeroAndKeepItThere() {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        for (int e : new int[] {200, 100, 50, 25, 12, 6, 3, 1, 0}) {
            assertEquals(e, parkedWait(p, clock, SPARSE_PARK), "each long park halves it");
        }
        for (int i = 0; i < 1_000; i++) {
            assertEquals(0, parkedWait(p, clock, SPARSE_PARK), "sparse traffic costs no spin, ever: wait " + i);
        }
    }

    /**
     * Sparse traffic on a loaded host: some wake-ups come late, so the park after them ends
     * early. While most parks are long, the spin still goes to zero (a rule that needed a run of
     * long parks in a row would never see one here, and keep spinning).
     */
    @Test
    void sparseTrafficWithJitterStillStopsSpinning() {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        long[] pattern = {SPARSE_PARK, SPARSE_PARK, 30 * US}; // every third park short
        for (int i = 0; i < 60; i++) {
            parkedWait(p, clock, pattern[i % pattern.length]);
        }
        int most = 0;
        for (int i = 0; i < 300; i++) {
            most = Math.max(most, parkedWait(p, clock, pattern[i % pattern.length]));
        }
        assertTrue(most <= 1, "a jittered sparse stream keeps at most a round of spin: " + most);
    }

    /**
     * A ping-pong whose two peers both use the policy: after both have parked a run of long
     * parks (a pause in the conversation), each reply comes a wake-up after the wait began. The
     * short parks must bring the spin back, or the pair stays asleep at a wake-up per message.
     */
    @Test
    void shortParksBringTheSpinBack() {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        for (int i = 0; i < 8; i++) {
            parkedWait(p, clock, SPARSE_PARK);
        }
        assertEquals(0, p.spinLimit(), "the pause taught it to park at once");
        int[] expected = {1, 3, 7, 15, 31, 63, 127, 200, 200};
        for (int e : expected) {
            parkedWait(p, clock, PING_PONG_PARK);
            assertEquals(e, p.spinLimit(), "a short park doubles the limit");
        }
        // Once both peers spin, the replies come within the spin: it pays, and stays.
        for (int i = 0; i < 100; i++) {
            assertEquals(200, p.spinLimit());
            p.spun(20);
        }
        assertEquals(200, p.spinLimit());
    }

    /** A ping-pong that has parked from the start keeps its whole spin. */
    @Test
    void shortParksKeepTheSpin() {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        for (int i = 0; i < 100; i++) {
            assertEquals(200, parkedWait(p, clock, PING_PONG_PARK), "wait " + i);
        }
    }

    @Test
    void theThresholdSeparatesShortFromLong() {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        for (int i = 0; i < 100; i++) {
            parkedWait(p, clock, WaitPolicy.AdaptiveSpin.SHORT_PARK_NANOS - 1);
        }
        assertEquals(200, p.spinLimit(), "just under the threshold: short");
        parkedWait(p, clock, WaitPolicy.AdaptiveSpin.SHORT_PARK_NANOS);
        assertEquals(100, p.spinLimit(), "at the threshold: long");
    }

    /** A dense stream with an odd long park (a descheduled sender) keeps its spin. */
    @Test
    void anOddLongParkAmongPayingSpinsCostsOneWaitAtHalfTheSpin() {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        for (int i = 0; i < 100; i++) {
            assertEquals(200, p.spinLimit());
            p.spun(150);
            assertEquals(200, p.spinLimit());
            p.spun(5);
            assertEquals(200, parkedWait(p, clock, SPARSE_PARK));
            assertEquals(100, p.spinLimit(), "the long park halved it");
            p.spun(120); // the next wait's spin pays: back to the whole limit
        }
        assertEquals(200, p.spinLimit());
    }

    @Test
    void aPayingSpinGrowsTheLimitAndReadsNoClock() {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        for (int i = 0; i < 3; i++) {
            parkedWait(p, clock, SPARSE_PARK);
        }
        assertEquals(25, p.spinLimit());
        int reads = clock.reads;
        p.spun(3); // paid off: twice the limit
        assertEquals(51, p.spinLimit());
        p.spun(40);
        assertEquals(103, p.spinLimit());
        p.spun(150); // never beyond the maximum
        assertEquals(200, p.spinLimit());
        assertEquals(reads, clock.reads, "waits that end in their spin read no clock");
        p = new WaitPolicy.AdaptiveSpin(Integer.MAX_VALUE, clock);
        p.spun(Integer.MAX_VALUE - 1);
        assertEquals(Integer.MAX_VALUE, p.spinLimit(), "no overflow");
    }

    /**
     * A mailbox look that finds messages starts no wait: the park before it is timed by the
     * next wait that really starts, not by the look (which would time it as short, however long
     * the reader slept, and keep a sparse reader spinning).
     */
    @Test
    void aMailboxLookThatFindsMessagesStartsNoWait() throws InterruptedException {
        TestClock clock = new TestClock();
        WaitPolicy p = adaptive(clock);
        for (int i = 0; i < 8; i++) {
            parkedWait(p, clock, SPARSE_PARK);
        }
        assertEquals(0, p.spinLimit());
        YMailbox<Integer> mailbox = new YMailbox<>(new YPollset(), p);
        YMailbox.Writer<Integer> writer = mailbox.newWriter();
        writer.send(0); // the pipe starts asleep: this flush signals, and the poll takes the id
        assertEquals(1, mailbox.poll(m -> { }));
        p.parked(); // a wait parks, at the clock's now
        for (int i = 1; i < 10; i++) {
            writer.send(i); // the pipe is awake now: the poll's first look over it finds this
            assertEquals(1, mailbox.poll(m -> { }));
        }
        clock.now += SPARSE_PARK;
        assertEquals(0, p.spinLimit(), "the park was timed as long, by this wait, not by the looks");
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
        // Each park is timed as long whatever the real wake-up costs here (the clocks move 1 ms
        // per read): what this test checks is the wiring, that both waits hear of every park.
        YPipe<Integer> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, slowClockPolicy());
        YSemaphore wake = new YSemaphore(slowClockPolicy());
        AtomicInteger received = new AtomicInteger();
        int messages = 8 + 4; // eight halvings, and a margin
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

    /** The default policy over a clock that moves 1 ms each time it is read (any thread). */
    private static WaitPolicy slowClockPolicy() {
        AtomicLong now = new AtomicLong();
        return new WaitPolicy.AdaptiveSpin(WaitPolicy.DEFAULT_SPINS, () -> now.addAndGet(1_000_000L));
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
