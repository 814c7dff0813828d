package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
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

/**
 * What is specific to {@link YSemaphore}: {@code await}, capacity one, its constructor. The behaviour
 * every {@link PollableSignaler} shares is in {@link PollableSignalerContractTest}.
 */
class YSemaphoreTest {

    private static final Duration WATCHDOG = Duration.ofMinutes(10);
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
    void constructorsSetThePolicyAndTheDefaultParksAtOnce() {
        assertSame(WaitPolicy.purePark(), new YSemaphore().waitPolicy(), "the pipe's reader in front of it spins");
        WaitPolicy seven = WaitPolicy.spinThenPark(7);
        assertSame(seven, new YSemaphore(seven).waitPolicy());
    }

    @Test
    void capacityIsOne() {
        assertEquals(1, new YSemaphore().capacity());
    }

    /** {@code await} is the same wait as {@code poll}; its own arguments, timeouts and interrupts. */
    @Test
    void awaitArgumentsTimeoutsAndInterrupts() throws Throwable {
        YSemaphore sem = new YSemaphore();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> sem.await(-1, TimeUnit.MILLISECONDS));
        assertTrue(e.getMessage().contains("timeout"), e.getMessage());
        assertThrows(NullPointerException.class, () -> sem.await(1, null));
        assertFalse(sem.await(0, TimeUnit.DAYS));
        long t0 = System.nanoTime();
        assertFalse(sem.await(50, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(50));
        sem.signal(0);
        assertTrue(sem.await(0, TimeUnit.DAYS));
        AtomicBoolean threw = new AtomicBoolean();
        TestThreads.Runner owner = TestThreads.start("owner", () -> {
            try {
                sem.await();
            } catch (InterruptedException ie) {
                threw.set(!Thread.currentThread().isInterrupted());
            }
        });
        TestThreads.awaitParked(owner.thread);
        owner.thread.interrupt();
        owner.join();
        assertTrue(threw.get(), "InterruptedException with the status cleared expected");
    }

    // ---------------------------------------------------------------- single-threaded semantics

    @Test
    void signalBeforeAwaitIsKept() throws InterruptedException {
        YSemaphore sem = new YSemaphore(WaitPolicy.purePark());
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

    @Test
    void interruptRacingWithSignalNeverLosesNorDuplicatesTheSignal() {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            for (int i = 0; i < 300; i++) {
                YSemaphore sem = new YSemaphore(WaitPolicy.purePark());
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

    // ---------------------------------------------------------------- stress

    /** The non-volatile payload that signal/await must publish. */
    private int payload;

}
