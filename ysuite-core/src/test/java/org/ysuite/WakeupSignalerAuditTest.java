package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.BitSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.ysuite.internal.Waits;

/**
 * Issue 8, defects 1 and 2 of {@link WakeupSignaler}: the PARKED ABA that lost a wake-up, and a
 * failed wake-up write that left the state at WOKEN. The races are driven step by step through
 * {@link WakeupSignaler#raceHook}, so each run takes the interleaving under test.
 */
class WakeupSignalerAuditTest {

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("socketpair", (Supplier<WakeupSignaler>) () ->
                        new YSocketPair(YSocketPair.Kind.SOCKETPAIR, WaitPolicy.purePark())),
                Arguments.of("eventfd", (Supplier<WakeupSignaler>) () ->
                        new YSocketPair(YSocketPair.Kind.EVENTFD, WaitPolicy.purePark())),
                Arguments.of("nio", (Supplier<WakeupSignaler>) () -> new NioSignaler(WaitPolicy.purePark())),
                Arguments.of("in-memory", (Supplier<WakeupSignaler>) FakeWakeup::new));
    }

    /** Waits (bounded) until {@code owner} is parked inside {@code s}'s poll. */
    private static void awaitParkedIn(WakeupSignaler s, Thread owner, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(LockSupport.getBlocker(owner) == s && owner.getState() == Thread.State.WAITING)) {
            if (owner.getState() == Thread.State.TERMINATED || System.nanoTime() - deadline > 0) {
                fail("owner never parked in " + what + "; thread state " + owner.getState()
                        + ", signaler state " + s.stateNow());
            }
            Thread.yield();
        }
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(60, TimeUnit.SECONDS)) {
            fail("timed out waiting for " + what);
        }
    }

    /** An owner that polls twice (untimed), waiting for {@code go2} in between. */
    private static final class TwoPolls {
        final BitSet first = new BitSet();
        final BitSet second = new BitSet();
        final CountDownLatch returned1 = new CountDownLatch(1);
        final CountDownLatch go2 = new CountDownLatch(1);
        final CountDownLatch returned2 = new CountDownLatch(1);
        final TestThreads.Runner runner;

        TwoPolls(WakeupSignaler s) {
            runner = TestThreads.start("owner", () -> {
                s.poll(first::set);
                returned1.countDown();
                go2.await();
                s.poll(second::set);
                returned2.countDown();
            });
        }
    }

    /**
     * Defect 1, the audit's interleaving: signaller S reads PARKED; the owner is woken by another
     * signaller, takes S's id, returns and clears its registration; S then fixes the thread to
     * unpark; the owner polls again and parks; S's CAS PARKED&rarr;IDLE lands on the new PARKED.
     * Before the fix S unparked {@code null} and the owner slept for good with state IDLE.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aSignallerPreemptedOnParkedLosesNoWakeUp(String name, Supplier<WakeupSignaler> factory)
            throws Throwable {
        try (WakeupSignaler s = factory.get()) {
            runAba(s, false);
        }
    }

    /**
     * Defect 1, the other ABA: the owner returns and parks again entirely between S's read of
     * PARKED and S's CAS, so the CAS succeeds against the owner's second PARKED. S must then wake
     * the thread parked now (its wake-up is spurious, the owner parks again); a later signal must
     * still wake it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aCasOnALaterParkedStillWakesThatPark(String name, Supplier<WakeupSignaler> factory)
            throws Throwable {
        try (WakeupSignaler s = factory.get()) {
            runAba(s, true);
        }
    }

    /**
     * Holds signaller S (signal(1)) at the hook points while the owner goes through poll 1 and
     * into poll 2: at the first point (S has read PARKED) a second signaller wakes the owner and
     * poll 1 returns; poll 2 starts and parks at the second point, or already at the first one if
     * {@code wholeCycleAtFirstPoint}. Then signal(3) must end poll 2.
     */
    private static void runAba(WakeupSignaler s, boolean wholeCycleAtFirstPoint) throws Throwable {
        TwoPolls owner = new TwoPolls(s);
        awaitParkedIn(s, owner.runner.thread, "poll 1");
        AtomicReference<Thread> slow = new AtomicReference<>();
        s.raceHook = point -> {
            if (Thread.currentThread() != slow.get()) {
                return; // the helper signaller runs straight through
            }
            try {
                if (point == WakeupSignaler.HOOK_SAW_PARKED) {
                    TestThreads.start("s2", () -> s.signal(2)).join(); // wakes the owner
                    await(owner.returned1, "poll 1 to return");
                }
                if (point != WakeupSignaler.HOOK_SAW_PARKED || wholeCycleAtFirstPoint) {
                    owner.go2.countDown();
                    awaitParkedIn(s, owner.runner.thread, "poll 2");
                }
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        };
        TestThreads.start("s1", () -> {
            slow.set(Thread.currentThread());
            s.signal(1);
        }).join();
        s.raceHook = null;
        assertEquals(BitSet.valueOf(new long[] {0b110}), owner.first, "poll 1 took ids 1 and 2");
        owner.go2.countDown();
        awaitParkedIn(s, owner.runner.thread, "poll 2");
        s.signal(3);
        if (!owner.returned2.await(60, TimeUnit.SECONDS)) {
            String state = "state " + s.stateNow() + ", owner " + owner.runner.thread.getState();
            s.close(); // frees the owner (with ISE) where close can; the thread is a daemon
            fail("lost wake-up: poll 2 never returned after signal(3); " + state);
        }
        owner.runner.join();
        assertEquals(BitSet.valueOf(new long[] {0b1000}), owner.second);
    }

    /**
     * close() must wake an owner parked in poll whatever the state word says: here a signaller
     * is held between its steps (after reading PARKED, or after taking it), and close alone has
     * to free the owner.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void closeWakesTheOwnerWhileASignallerIsBetweenItsSteps(String name,
            Supplier<WakeupSignaler> factory) throws Throwable {
        for (int point : new int[] {WakeupSignaler.HOOK_SAW_PARKED, WakeupSignaler.HOOK_BEFORE_UNPARK}) {
            WakeupSignaler s = factory.get();
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch atPoint = new CountDownLatch(1);
            AtomicReference<Throwable> ownerEnd = new AtomicReference<>();
            TestThreads.Runner owner = TestThreads.start("owner", () -> {
                try {
                    for (;;) {
                        s.poll(id -> { });
                    }
                } catch (IllegalStateException e) {
                    ownerEnd.set(e);
                }
            });
            awaitParkedIn(s, owner.thread, "poll");
            s.raceHook = p -> {
                if (p == point && Thread.currentThread().getName().equals("s1")) {
                    atPoint.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            TestThreads.Runner signaller = TestThreads.start("s1", () -> {
                try {
                    s.signal(1);
                } catch (IllegalStateException closed) {
                    // signal may meet the close: fine
                }
            });
            await(atPoint, "the signaller at hook point " + point);
            try {
                TestThreads.start("closer", s::close).join();
                owner.join(); // close alone must free it: the signaller is still held at its point
                assertTrue(ownerEnd.get() != null, "owner left poll with IllegalStateException");
            } finally {
                release.countDown();
            }
            signaller.join();
        }
    }

    /**
     * A wake-up object in memory whose write can be made to fail: the test seam for defect 2.
     * {@code pending} counts unread wake-ups, as the byte count of a socket would.
     */
    static final class FakeWakeup extends WakeupSignaler {
        final AtomicInteger pending = new AtomicInteger();
        final AtomicInteger writes = new AtomicInteger();
        volatile boolean failNextWrite;

        FakeWakeup() {
            super(256, WaitPolicy.purePark());
        }

        @Override
        void writeWakeup() {
            if (failNextWrite) {
                failNextWrite = false;
                throw new IllegalStateException("injected write failure");
            }
            writes.incrementAndGet();
            pending.incrementAndGet();
        }

        @Override
        boolean readWakeup() {
            return pending.getAndUpdate(v -> v > 0 ? v - 1 : 0) > 0;
        }

        @Override
        void awaitWakeup(long nanos) {
            LockSupport.parkNanos(this, Math.min(nanos, TimeUnit.MICROSECONDS.toNanos(20)));
        }

        @Override
        void closeResources() {
        }

        @Override
        String typeName() {
            return "FakeWakeup";
        }
    }

    /**
     * Defect 2: a wake-up write that throws after ARMED&rarr;WOKEN must not leave WOKEN behind.
     * The failing signal reports the failure; a retry of the same id, or any other id, writes
     * the wake-up an external poller waits for.
     */
    @Test
    void aFailedWakeUpWriteIsRetriedByTheNextSignal() {
        try (FakeWakeup s = new FakeWakeup()) {
            assertEquals(0, s.check(id -> { }), "armed");
            s.failNextWrite = true;
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.signal(5));
            assertEquals("injected write failure", e.getMessage());
            assertEquals(WakeupSignaler.ARMED, s.stateNow(), "state after the failed write");
            s.signal(5); // the caller retries the same id
            assertEquals(1, s.pending.get(), "the retry wrote the wake-up");
            s.signal(6);
            assertEquals(1, s.writes.get(), "one wake-up outstanding at most");
            BitSet got = new BitSet();
            assertEquals(2, s.check(got::set));
            assertEquals(BitSet.valueOf(new long[] {0b110_0000}), got);
            assertEquals(0, s.pending.get(), "check read the wake-up back");
        }
    }

    /** Defect 2, the other way out: a different id after the failure writes the wake-up. */
    @Test
    void aFailedWakeUpWriteIsRetriedByAnotherId() {
        try (FakeWakeup s = new FakeWakeup()) {
            assertEquals(0, s.check(id -> { }), "armed");
            s.failNextWrite = true;
            assertThrows(IllegalStateException.class, () -> s.signal(7));
            s.signal(8);
            assertEquals(1, s.pending.get(), "signal(8) wrote the wake-up");
            BitSet got = new BitSet();
            assertEquals(2, s.check(got::set));
            assertTrue(got.get(7) && got.get(8), "both ids delivered: " + got);
        }
    }

    /** Defect 2 with an owner parked in poll: the failed write must not strand it. */
    @Test
    void anOwnerInPollIsWokenAfterAFailedWrite() throws Throwable {
        try (FakeWakeup s = new FakeWakeup()) {
            assertEquals(0, s.check(id -> { }), "armed");
            s.failNextWrite = true;
            assertThrows(IllegalStateException.class, () -> s.signal(1));
            BitSet got = new BitSet();
            TestThreads.Runner owner = TestThreads.start("owner", () -> s.poll(got::set));
            owner.join();
            assertTrue(got.get(1), "poll took the id whose wake-up write failed: " + got);
        }
    }
}
