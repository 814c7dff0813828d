package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class YSemaphoreTest {

    private static final Duration WATCHDOG = Duration.ofSeconds(60);
    /**
     * Round trips per ping-pong run, in each mode: {@code ysuite.test.rounds} (default 200,000;
     * the 2-core build machine is shared, so spinning runs are slow when it is busy).
     */
    private static final int ROUNDS = Integer.getInteger("ysuite.test.rounds", 200_000);

    /** Records delivered ids. */
    private static final class Ids implements IntConsumer {
        final List<Integer> got = new ArrayList<>();

        @Override
        public void accept(int id) {
            got.add(id);
        }
    }

    // ---------------------------------------------------------------- construction, arguments

    @Test
    void constructorsSetSpinIterations() {
        assertEquals(Signaler.DEFAULT_SPIN_ITERATIONS, new YSemaphore().spinIterations());
        assertEquals(0, new YSemaphore(Signaler.PURE_PARK).spinIterations());
        assertEquals(7, new YSemaphore(7).spinIterations());
    }

    @Test
    void negativeSpinIterationsRejected() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new YSemaphore(-1));
        assertTrue(e.getMessage().contains("spinIterations"), e.getMessage());
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }

    @Test
    void capacityIsOne() {
        assertEquals(1, new YSemaphore().capacity());
    }

    @Test
    void badIdsRejected() {
        YSemaphore sem = new YSemaphore();
        for (int id : new int[] {1, -1, 31, Integer.MIN_VALUE}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> sem.signal(id));
            assertEquals("id must be in [0, 1): " + id, e.getMessage());
        }
        assertEquals(0, sem.check(id -> { }), "a rejected id must not fire the signal");
    }

    @Test
    void negativeTimeoutRejected() {
        YSemaphore sem = new YSemaphore();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> sem.await(-1, TimeUnit.MILLISECONDS));
        assertTrue(e.getMessage().contains("timeout"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> sem.poll(id -> { }, -5, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("timeout"), e.getMessage());
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
    }

    @Test
    void nullArgumentsRejected() {
        YSemaphore sem = new YSemaphore();
        sem.signal(0);
        assertThrows(NullPointerException.class, () -> sem.check(null));
        assertThrows(NullPointerException.class, () -> sem.poll(null));
        assertThrows(NullPointerException.class, () -> sem.poll(null, 1, TimeUnit.SECONDS));
        assertThrows(NullPointerException.class, () -> sem.poll(id -> { }, 1, null));
        assertThrows(NullPointerException.class, () -> sem.await(1, null));
        assertEquals(1, sem.check(id -> { }), "a rejected call must not take the signal");
    }

    // ---------------------------------------------------------------- single-threaded semantics

    @Test
    void signalBeforeAwaitIsKept() throws InterruptedException {
        YSemaphore sem = new YSemaphore(Signaler.PURE_PARK);
        sem.signal(0);
        assertTimeoutPreemptively(WATCHDOG, () -> sem.await());
        assertFalse(sem.await(0, TimeUnit.SECONDS), "the signal was taken");
        sem.signal(0);
        assertTrue(sem.await(1, TimeUnit.SECONDS));
        sem.signal(0);
        Ids ids = new Ids();
        assertEquals(1, sem.poll(ids));
        sem.signal(0);
        assertEquals(1, sem.poll(ids, 1, TimeUnit.SECONDS));
        assertEquals(List.of(0, 0), ids.got);
    }

    @Test
    void doubleSignalIsOneSignal() throws InterruptedException {
        YSemaphore sem = new YSemaphore();
        sem.signal(0);
        sem.signal(0);
        Ids ids = new Ids();
        assertEquals(1, sem.check(ids));
        assertEquals(List.of(0), ids.got);
        assertEquals(0, sem.check(ids));
        assertFalse(sem.await(0, TimeUnit.NANOSECONDS));
        assertEquals(List.of(0), ids.got);
    }

    @Test
    void checkNeverBlocks() {
        YSemaphore sem = new YSemaphore();
        Ids ids = new Ids();
        assertEquals(0, sem.check(ids));
        assertTrue(ids.got.isEmpty());
    }

    @Test
    void zeroTimeoutDoesNotWait() throws InterruptedException {
        YSemaphore sem = new YSemaphore();
        assertFalse(sem.await(0, TimeUnit.DAYS));
        Ids ids = new Ids();
        assertEquals(0, sem.poll(ids, 0, TimeUnit.DAYS));
        assertTrue(ids.got.isEmpty());
        sem.signal(0);
        assertTrue(sem.await(0, TimeUnit.DAYS));
        sem.signal(0);
        assertEquals(1, sem.poll(ids, 0, TimeUnit.DAYS));
        assertEquals(List.of(0), ids.got);
    }

    @ParameterizedTest
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void timedWaitTimesOutNoEarlierThanTheTimeout(int spin) throws InterruptedException {
        YSemaphore sem = new YSemaphore(spin);
        long t0 = System.nanoTime();
        assertFalse(sem.await(50, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(50));
        Ids ids = new Ids();
        t0 = System.nanoTime();
        assertEquals(0, sem.poll(ids, 20_000, TimeUnit.MICROSECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MICROSECONDS.toNanos(20_000));
        assertTrue(ids.got.isEmpty());
        // after a timeout the semaphore still works
        sem.signal(0);
        assertTrue(sem.await(0, TimeUnit.SECONDS));
    }

    @Test
    void hugeTimeoutDoesNotOverflow() throws Throwable {
        YSemaphore sem = new YSemaphore(Signaler.PURE_PARK);
        AtomicBoolean result = new AtomicBoolean();
        TestThreads.Runner owner = TestThreads.start("owner",
                () -> result.set(sem.await(Long.MAX_VALUE, TimeUnit.DAYS)));
        TestThreads.awaitParked(owner.thread);
        sem.signal(0);
        owner.join();
        assertTrue(result.get());
    }

    // ---------------------------------------------------------------- interrupts

    @Test
    void interruptBeforeWaitThrowsAndKeepsTheSignal() {
        YSemaphore sem = new YSemaphore();
        sem.signal(0);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, sem::await);
        assertFalse(Thread.currentThread().isInterrupted(), "interrupt status must be cleared");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> sem.await(1, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted());
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> sem.await(0, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted());
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> sem.poll(id -> { }));
        assertFalse(Thread.interrupted());
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> sem.poll(id -> { }, 1, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted());
        assertEquals(1, sem.check(id -> { }), "no signal may be taken by an interrupted wait");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void interruptDuringWaitThrows(boolean timed) throws Throwable {
        YSemaphore sem = new YSemaphore();
        AtomicBoolean threw = new AtomicBoolean();
        AtomicBoolean stillInterrupted = new AtomicBoolean(true);
        TestThreads.Runner owner = TestThreads.start("owner", () -> {
            try {
                if (timed) {
                    sem.await(1, TimeUnit.HOURS);
                } else {
                    sem.await();
                }
            } catch (InterruptedException e) {
                threw.set(true);
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        TestThreads.awaitParked(owner.thread);
        owner.thread.interrupt();
        owner.join();
        assertTrue(threw.get(), "InterruptedException expected");
        assertFalse(stillInterrupted.get(), "interrupt status must be cleared");
        // the semaphore is back to a clean state: a later signal is taken exactly once
        assertEquals(0, sem.check(id -> { }));
        sem.signal(0);
        assertTrue(sem.await(0, TimeUnit.SECONDS));
        assertFalse(sem.await(0, TimeUnit.SECONDS));
    }

    @Test
    void interruptRacingWithSignalNeverLosesNorDuplicatesTheSignal() {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            for (int i = 0; i < 300; i++) {
                YSemaphore sem = new YSemaphore(Signaler.PURE_PARK);
                AtomicInteger taken = new AtomicInteger();
                AtomicBoolean interruptedOut = new AtomicBoolean();
                TestThreads.Runner owner = TestThreads.start("owner", () -> {
                    try {
                        sem.await();
                        taken.incrementAndGet();
                    } catch (InterruptedException e) {
                        interruptedOut.set(true);
                    }
                    Thread.interrupted(); // an interrupt may land after the return
                });
                TestThreads.awaitParked(owner.thread);
                if ((i & 1) == 0) {
                    owner.thread.interrupt();
                    sem.signal(0);
                } else {
                    sem.signal(0);
                    owner.thread.interrupt();
                }
                owner.join();
                // the one signal is either taken by the wait or still there, never both/neither
                int left = sem.check(id -> { });
                assertEquals(1, taken.get() + left, "taken " + taken + ", left " + left);
                assertEquals(interruptedOut.get(), left == 1);
            }
        });
    }

    // ---------------------------------------------------------------- wake-ups

    @ParameterizedTest
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void signalWakesAParkedOwner(int spin) throws Throwable {
        YSemaphore sem = new YSemaphore(spin);
        AtomicBoolean result = new AtomicBoolean();
        TestThreads.Runner owner = TestThreads.start("owner",
                () -> result.set(sem.await(1, TimeUnit.HOURS)));
        TestThreads.awaitParked(owner.thread);
        sem.signal(0);
        owner.join();
        assertTrue(result.get());
        assertEquals(0, sem.check(id -> { }));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void spuriousWakeUpsDoNotEndTheWait(boolean timed) throws Throwable {
        YSemaphore sem = new YSemaphore(Signaler.PURE_PARK);
        AtomicBoolean signalled = new AtomicBoolean();
        AtomicBoolean sawSignalFlag = new AtomicBoolean();
        TestThreads.Runner owner = TestThreads.start("owner", () -> {
            if (timed) {
                assertTrue(sem.await(1, TimeUnit.HOURS));
            } else {
                sem.await();
            }
            sawSignalFlag.set(signalled.get());
        });
        TestThreads.awaitParked(owner.thread);
        for (int i = 0; i < 2_000; i++) {
            LockSupport.unpark(owner.thread); // a wake-up without a signal
            Thread.yield();
        }
        TestThreads.awaitParked(owner.thread); // it went back to sleep
        signalled.set(true);
        sem.signal(0);
        owner.join();
        assertTrue(sawSignalFlag.get(), "the wait returned before the signal");
    }

    @Test
    void spuriousWakeUpsDoNotShortenATimeout() throws Throwable {
        YSemaphore sem = new YSemaphore(Signaler.PURE_PARK);
        AtomicLong elapsed = new AtomicLong();
        AtomicBoolean result = new AtomicBoolean(true);
        AtomicBoolean done = new AtomicBoolean();
        TestThreads.Runner owner = TestThreads.start("owner", () -> {
            long t0 = System.nanoTime();
            result.set(sem.await(100, TimeUnit.MILLISECONDS));
            elapsed.set(System.nanoTime() - t0);
            done.set(true);
        });
        while (!done.get()) {
            LockSupport.unpark(owner.thread);
            Thread.yield();
        }
        owner.join();
        assertFalse(result.get());
        assertTrue(elapsed.get() >= TimeUnit.MILLISECONDS.toNanos(100), elapsed + " ns");
    }

    @Test
    void secondConcurrentWaiterIsRejected() throws Throwable {
        YSemaphore sem = new YSemaphore(Signaler.PURE_PARK);
        TestThreads.Runner owner = TestThreads.start("owner", sem::await);
        TestThreads.awaitParked(owner.thread);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> sem.await(1, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("owner"), e.getMessage());
        sem.signal(0);
        owner.join(); // the first waiter was not disturbed
        assertEquals(0, sem.check(id -> { }));
    }

    @Test
    void ownershipCanMoveBetweenThreadsSequentially() throws Throwable {
        YSemaphore sem = new YSemaphore(Signaler.PURE_PARK);
        for (int i = 0; i < 3; i++) {
            TestThreads.Runner owner = TestThreads.start("owner" + i, sem::await);
            TestThreads.awaitParked(owner.thread);
            sem.signal(0);
            owner.join();
        }
        assertEquals(0, sem.check(id -> { }));
    }

    // ---------------------------------------------------------------- stress

    /** The non-volatile payload that signal/await must publish. */
    private int payload;

    @ParameterizedTest
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void pingPong(int spin) {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            YSemaphore ping = new YSemaphore(spin);
            YSemaphore pong = new YSemaphore(spin);
            int rounds = ROUNDS;
            payload = 0;
            TestThreads.Runner echo = TestThreads.start("echo", () -> {
                for (int i = 1; i <= rounds; i++) {
                    ping.await();
                    if (payload != i) {
                        throw new AssertionError("round " + i + ": saw payload " + payload);
                    }
                    payload = -i;
                    pong.signal(0);
                }
            });
            for (int i = 1; i <= rounds; i++) {
                payload = i;
                ping.signal(0);
                pong.await();
                assertEquals(-i, payload);
            }
            echo.join();
            assertEquals(0, ping.check(id -> { }));
            assertEquals(0, pong.check(id -> { }));
        });
    }

    @Test
    void manySignallersTheLastSignalIsNeverLost() {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            int threads = 4;
            int perThread = 50_000;
            YSemaphore sem = new YSemaphore();
            AtomicInteger fired = new AtomicInteger();
            List<TestThreads.Runner> signallers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                signallers.add(TestThreads.start("signaller" + t, () -> {
                    for (int k = 0; k < perThread; k++) {
                        fired.incrementAndGet();
                        sem.signal(0);
                    }
                }));
            }
            // every increment is followed by a signal, so the owner must see the final count
            int wakeUps = 0;
            while (fired.get() < threads * perThread) {
                sem.await();
                wakeUps++;
            }
            for (TestThreads.Runner r : signallers) {
                r.join();
            }
            assertTrue(wakeUps >= 1 && wakeUps <= threads * perThread, "wake-ups " + wakeUps);
        });
    }
}
