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
 * What is specific to {@link YPollset}: 31 ids, the bitmask {@code poll()}/{@code check()}, many
 * signallers. The behaviour every {@link PollableSignaler} shares is in
 * {@link PollableSignalerContractTest}.
 */
class YPollsetTest {

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
        assertSame(WaitPolicy.purePark(), new YPollset().waitPolicy(), "the readers in front of it spin");
        WaitPolicy three = WaitPolicy.spinThenPark(3);
        assertSame(three, new YPollset(three).waitPolicy());
    }

    @Test
    void capacityIs31() {
        assertEquals(31, new YPollset().capacity());
    }

    // ---------------------------------------------------------------- single-threaded semantics

    @Test
    void signalsAreKeptAndBinary() throws InterruptedException {
        YPollset set = new YPollset(WaitPolicy.purePark());
        set.signal(3);
        set.signal(3);
        set.signal(5);
        assertEquals((1 << 3) | (1 << 5), set.check());
        assertEquals(0, set.check());
        set.signal(0);
        assertEquals(1, assertTimeoutPreemptively(WATCHDOG, () -> set.poll()));
        set.signal(30);
        assertEquals(1 << 30, set.poll(1, TimeUnit.SECONDS));
        assertEquals(0, set.poll(0, TimeUnit.SECONDS));
    }

    @Test
    void allIdsTogether() {
        YPollset set = new YPollset();
        for (int id = 0; id < 31; id++) {
            set.signal(id);
        }
        assertEquals(Integer.MAX_VALUE, set.check());
        for (int id = 0; id < 31; id++) {
            set.signal(id);
        }
        Ids ids = new Ids();
        assertEquals(31, set.check(ids));
        for (int id = 0; id < 31; id++) {
            assertEquals(id, ids.got.get(id), "lowest id first");
        }
        assertEquals(0, set.check());
    }

    @Test
    void consumerMethodsDeliverEachIdLowestFirst() throws InterruptedException {
        YPollset set = new YPollset();
        Ids ids = new Ids();
        assertEquals(0, set.check(ids));
        set.signal(17);
        set.signal(2);
        set.signal(9);
        set.signal(2);
        assertEquals(3, set.check(ids));
        assertEquals(List.of(2, 9, 17), ids.got);
        ids.got.clear();
        set.signal(30);
        set.signal(1);
        assertEquals(2, set.poll(ids));
        assertEquals(List.of(1, 30), ids.got);
        ids.got.clear();
        set.signal(8);
        assertEquals(1, set.poll(ids, 1, TimeUnit.SECONDS));
        assertEquals(List.of(8), ids.got);
        assertEquals(0, set.check());
    }

    @Test
    void idsNotDeliveredBeforeAThrowingConsumerAreKept() {
        YPollset set = new YPollset();
        set.signal(1);
        set.signal(3);
        set.signal(5);
        List<Integer> seen = new ArrayList<>();
        RuntimeException boom = new RuntimeException("boom");
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> set.check(id -> {
            seen.add(id);
            if (id == 3) {
                throw boom;
            }
        }));
        assertSame(boom, thrown);
        assertEquals(List.of(1, 3), seen);
        assertEquals(1 << 5, set.check(), "the id not yet delivered must be kept");
    }

    // ---------------------------------------------------------------- interrupts

    @Test
    void interruptBeforeWaitThrowsAndKeepsTheSignals() {
        YPollset set = new YPollset();
        set.signal(2);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, set::poll);
        assertFalse(Thread.currentThread().isInterrupted(), "interrupt status must be cleared");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> set.poll(1, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted());
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> set.poll(0, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted());
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> set.poll(id -> { }));
        assertFalse(Thread.interrupted());
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> set.poll(id -> { }, 1, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted());
        assertEquals(1 << 2, set.check(), "no signal may be taken by an interrupted wait");
    }

    @Test
    void interruptRacingWithSignalNeverLosesTheSignal() {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            for (int i = 0; i < 300; i++) {
                YPollset set = new YPollset(WaitPolicy.purePark());
                AtomicInteger taken = new AtomicInteger();
                AtomicBoolean interruptedOut = new AtomicBoolean();
                TestThreads.Runner owner = TestThreads.start("owner", () -> {
                    try {
                        taken.set(set.poll());
                    } catch (InterruptedException e) {
                        interruptedOut.set(true);
                    }
                    Thread.interrupted(); // an interrupt may land after the return
                });
                TestThreads.awaitParked(owner.thread);
                if ((i & 1) == 0) {
                    owner.thread.interrupt();
                    set.signal(4);
                } else {
                    set.signal(4);
                    owner.thread.interrupt();
                }
                owner.join();
                int left = set.check();
                assertEquals(1 << 4, taken.get() | left, "taken " + taken + ", left " + left);
                assertEquals(0, taken.get() & left, "taken twice");
                assertEquals(interruptedOut.get(), left != 0);
            }
        });
    }

    // ---------------------------------------------------------------- wake-ups

    // ---------------------------------------------------------------- stress

    /** The non-volatile payload that signal/poll must publish. */
    private int payload;

    /**
     * Eight signallers, each owning three ids, fire all three and wait for the owner's ack (on
     * their own YSemaphore) before the next round. A lost signal leaves a signaller waiting for
     * an ack that never comes: the watchdog fails the test.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, WaitPolicy.DEFAULT_SPINS})
    void eightSignallersWithAcks(int spin) {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            int threads = 8;
            int rounds = 20_000;
            YPollset set = new YPollset(WaitPolicy.spinThenPark(spin));
            int[] fired = new int[24];       // plain: published by signal -> poll
            YSemaphore[] acks = new YSemaphore[threads];
            List<TestThreads.Runner> signallers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                YSemaphore ack = acks[t] = new YSemaphore(WaitPolicy.spinThenPark(spin));
                int me = t;
                signallers.add(TestThreads.start("signaller" + t, () -> {
                    for (int k = 1; k <= rounds; k++) {
                        for (int id = me; id < 24; id += threads) {
                            fired[id] = k;
                            set.signal(id);
                        }
                        ack.await();
                    }
                }));
            }
            int[] seen = new int[24];
            int[] pending = new int[threads];
            java.util.Arrays.fill(pending, 3);
            int[] acked = new int[threads];
            int done = 0;
            while (done < threads) {
                int bits = set.poll();
                assertTrue(bits != 0 && (bits >>> 24) == 0, Integer.toHexString(bits));
                while (bits != 0) {
                    int id = Integer.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    int t = id % threads;
                    assertEquals(seen[id] + 1, fired[id], "id " + id);
                    seen[id]++;
                    if (--pending[t] == 0) {
                        pending[t] = 3;
                        if (++acked[t] == rounds) {
                            done++;
                        }
                        acks[t].signal(0);
                    }
                }
            }
            for (TestThreads.Runner r : signallers) {
                r.join();
            }
            for (int id = 0; id < 24; id++) {
                assertEquals(rounds, seen[id], "id " + id);
            }
            assertEquals(0, set.check());
        });
    }

    /**
     * Eight signallers fire their own id as fast as they can (no acks, so signals coalesce);
     * the owner polls until they are all done, then drains. Each signaller's last fire must
     * have been observed: the owner's last reading of the id's counter is its final value.
     */
    @Test
    void eightSignallersStormTheLastFireIsObserved() {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            int threads = 8;
            int perThread = 100_000;
            YPollset set = new YPollset();
            int[] fired = new int[threads];  // plain: published by signal -> poll
            AtomicInteger finished = new AtomicInteger();
            List<TestThreads.Runner> signallers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                signallers.add(TestThreads.start("signaller" + t, () -> {
                    for (int k = 1; k <= perThread; k++) {
                        fired[me] = k;
                        set.signal(me);
                    }
                    finished.incrementAndGet();
                    set.signal(30); // a wake-up for the owner to notice `finished`
                }));
            }
            int[] observed = new int[threads];
            IntConsumer record = id -> {
                if (id < threads) {
                    int v = fired[id];
                    assertTrue(v >= observed[id], "counter went back");
                    observed[id] = v;
                }
            };
            while (finished.get() < threads) {
                set.poll(record);
            }
            set.check(record); // signals fired after the last poll
            for (TestThreads.Runner r : signallers) {
                r.join();
            }
            for (int t = 0; t < threads; t++) {
                assertEquals(perThread, observed[t], "signaller " + t + "'s last fire");
            }
        });
    }
}
