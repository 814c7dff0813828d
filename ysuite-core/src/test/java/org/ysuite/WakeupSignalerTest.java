package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Behaviour common to every descriptor-backed signaler: socketpair, eventfd and the NIO pipe. */
class WakeupSignalerTest {

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("socketpair", (Supplier<WakeupSignaler>) () -> new YSocketPair(YSocketPair.Kind.SOCKETPAIR)),
                Arguments.of("eventfd", (Supplier<WakeupSignaler>) () -> new YSocketPair(YSocketPair.Kind.EVENTFD)),
                Arguments.of("nio", (Supplier<WakeupSignaler>) NioSignaler::new),
                Arguments.of("socketpair-purepark",
                        (Supplier<WakeupSignaler>) () -> new YSocketPair(YSocketPair.Kind.SOCKETPAIR, WaitPolicy.purePark())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void everyIdIsDeliveredExactlyOncePerFire(String name, Supplier<WakeupSignaler> factory) {
        try (WakeupSignaler s = factory.get()) {
            assertEquals(256, s.capacity());
            SplittableRandom rnd = new SplittableRandom(42);
            for (int round = 0; round < 20; round++) {
                int[] order = shuffled(rnd);
                for (int id : order) {
                    s.signal(id);
                    if ((id & 1) == 0) {
                        s.signal(id); // a second fire before the take is the same signal
                    }
                }
                int[] counts = new int[256];
                int n = s.check(id -> counts[id]++);
                assertEquals(256, n, "round " + round);
                for (int id = 0; id < 256; id++) {
                    assertEquals(1, counts[id], "id " + id + " in round " + round);
                }
                assertEquals(0, s.check(id -> counts[id]++), "nothing left after the drain");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void concurrentFiresAreEachDeliveredOnce(String name, Supplier<WakeupSignaler> factory) {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            try (WakeupSignaler s = factory.get()) {
                final int threads = 4;
                final int rounds = 300;
                AtomicIntegerArray pending = new AtomicIntegerArray(256);
                AtomicReference<String> error = new AtomicReference<>();
                AtomicInteger delivered = new AtomicInteger();
                List<Thread> signallers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    final int base = t * 64;
                    Thread th = new Thread(() -> {
                        for (int r = 0; r < rounds && error.get() == null; r++) {
                            for (int id = base; id < base + 64; id++) {
                                pending.set(id, 1);
                                s.signal(id);
                            }
                            for (int id = base; id < base + 64; id++) {
                                while (pending.get(id) != 0 && error.get() == null) {
                                    Thread.onSpinWait();
                                }
                            }
                        }
                    });
                    signallers.add(th);
                    th.start();
                }
                int total = threads * 64 * rounds;
                while (delivered.get() < total) {
                    s.poll(id -> {
                        if (pending.getAndSet(id, 0) != 1) {
                            error.compareAndSet(null, "id " + id + " delivered without a pending fire");
                        }
                        delivered.incrementAndGet();
                    });
                    assertEquals(null, error.get());
                }
                for (Thread th : signallers) {
                    th.join(60_000);
                    assertFalse(th.isAlive());
                }
                assertEquals(total, delivered.get());
                assertEquals(0, s.check(id -> { }));
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void floodOfAMillionSignalsFromEightThreadsLosesNoIdAndNeverBlocks(String name,
            Supplier<WakeupSignaler> factory) {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            try (WakeupSignaler s = factory.get()) {
                assertEquals(0, s.check(id -> { }), "armed before the flood");
                BitSet[] fired = flood(s, 8, 125_000);
                BitSet expected = new BitSet();
                for (BitSet b : fired) {
                    expected.or(b);
                }
                BitSet got = new BitSet();
                int n = s.check(got::set);
                assertEquals(expected.cardinality(), n);
                assertEquals(expected, got);
                assertEquals(0, s.check(id -> { }));
                // still works after the flood: a new signal wakes a blocked poll
                CountDownLatch waiting = new CountDownLatch(1);
                AtomicInteger seen = new AtomicInteger(-1);
                Thread owner = new Thread(() -> {
                    waiting.countDown();
                    try {
                        s.poll(seen::set);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                owner.start();
                waiting.await();
                s.signal(77);
                owner.join(60_000);
                assertFalse(owner.isAlive());
                assertEquals(77, seen.get());
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void floodWhileTheOwnerDrainsLosesNoId(String name, Supplier<WakeupSignaler> factory) {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            try (WakeupSignaler s = factory.get()) {
                BitSet got = new BitSet();
                AtomicReference<Throwable> ownerError = new AtomicReference<>();
                CountDownLatch done = new CountDownLatch(1);
                Thread owner = new Thread(() -> {
                    try {
                        while (done.getCount() > 0) {
                            s.poll(got::set, 1, TimeUnit.MILLISECONDS);
                        }
                    } catch (Throwable t) {
                        ownerError.set(t);
                    }
                });
                owner.start();
                BitSet[] fired = flood(s, 8, 25_000);
                // the last signal of each id after the owner's last take must still arrive
                for (int id = 0; id < 256; id++) {
                    s.signal(id);
                }
                done.countDown();
                owner.join(60_000);
                assertFalse(owner.isAlive());
                assertEquals(null, ownerError.get());
                s.check(got::set);
                assertEquals(256, got.cardinality());
                assertTrue(fired.length == 8);
            }
        });
    }

    /** Each thread fires random ids from its own stripe of 32 ids and reports which it fired. */
    private static BitSet[] flood(Signaler s, int threads, int perThread) throws InterruptedException {
        BitSet[] fired = new BitSet[threads];
        Thread[] ts = new Thread[threads];
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            final int stripe = t;
            fired[t] = new BitSet();
            ts[t] = new Thread(() -> {
                SplittableRandom rnd = new SplittableRandom(stripe);
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    int id = stripe * 32 + rnd.nextInt(stripe == 0 ? 16 : 32); // ids 16..31 never fired
                    s.signal(id);
                    fired[stripe].set(id);
                }
            });
            ts[t].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join(60_000);
            assertFalse(t.isAlive(), "signaller blocked");
        }
        return fired;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void pollWaitsForASignalFromAnotherThread(String name, Supplier<WakeupSignaler> factory) {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            try (WakeupSignaler s = factory.get()) {
                for (int round = 0; round < 200; round++) {
                    final int id = round % 256;
                    CountDownLatch go = new CountDownLatch(1);
                    Thread signaller = new Thread(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        s.signal(id);
                    });
                    signaller.start();
                    go.countDown();
                    BitSet got = new BitSet();
                    int n = s.poll(got::set);
                    assertEquals(1, n);
                    assertTrue(got.get(id));
                    signaller.join(60_000);
                }
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void interruptEndsABlockedPoll(String name, Supplier<WakeupSignaler> factory) {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            try (WakeupSignaler s = factory.get()) {
                AtomicReference<Throwable> result = new AtomicReference<>();
                CountDownLatch entered = new CountDownLatch(1);
                Thread owner = new Thread(() -> {
                    entered.countDown();
                    try {
                        s.poll(id -> { });
                        result.set(new AssertionError("poll returned without a signal"));
                    } catch (Throwable t) {
                        result.set(t);
                    }
                });
                owner.start();
                entered.await();
                // whether the owner is parked yet or not, the interrupt must end its poll; nothing
                // else would (no signal comes), so 60 s is a failure bound, not a speed
                owner.interrupt();
                owner.join(60_000);
                assertFalse(owner.isAlive(), "poll did not end within 60 s of the interrupt");
                assertTrue(result.get() instanceof InterruptedException, String.valueOf(result.get()));
                // no signal was taken and the signaler still works
                s.signal(5);
                BitSet got = new BitSet();
                assertEquals(1, s.poll(got::set, 5, TimeUnit.SECONDS));
                assertTrue(got.get(5));
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void interruptStatusSetBeforePollThrowsAndKeepsTheSignal(String name, Supplier<WakeupSignaler> factory)
            throws InterruptedException {
        try (WakeupSignaler s = factory.get()) {
            s.signal(9);
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> s.poll(id -> { }));
            assertFalse(Thread.currentThread().isInterrupted());
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> s.poll(id -> { }, 1, TimeUnit.SECONDS));
            BitSet got = new BitSet();
            assertEquals(1, s.poll(got::set));
            assertTrue(got.get(9));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void timedPollReturnsZeroAfterTheTimeout(String name, Supplier<WakeupSignaler> factory)
            throws InterruptedException {
        try (WakeupSignaler s = factory.get()) {
            long t0 = System.nanoTime();
            assertEquals(0, s.poll(id -> { }, 30, TimeUnit.MILLISECONDS));
            long elapsed = System.nanoTime() - t0;
            assertTrue(elapsed >= TimeUnit.MILLISECONDS.toNanos(30), "returned early: " + elapsed);
            assertEquals(0, s.poll(id -> { }, 0, TimeUnit.SECONDS));
            assertThrows(IllegalArgumentException.class, () -> s.poll(id -> { }, -1, TimeUnit.SECONDS));
            s.signal(255);
            BitSet got = new BitSet();
            assertEquals(1, s.poll(got::set, 0, TimeUnit.SECONDS));
            assertTrue(got.get(255));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void badArgumentsAndUseAfterClose(String name, Supplier<WakeupSignaler> factory) {
        WakeupSignaler s = factory.get();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.signal(256));
        assertEquals("id must be in [0, 256): 256", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> s.signal(-1));
        assertThrows(NullPointerException.class, () -> s.check(null));
        s.close();
        s.close(); // idempotent
        assertTrue(s.isClosed());
        assertThrows(IllegalStateException.class, () -> s.signal(0));
        assertThrows(IllegalStateException.class, () -> s.check(id -> { }));
        assertThrows(IllegalStateException.class, () -> s.poll(id -> { }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void closeWakesAParkedOwner(String name, Supplier<WakeupSignaler> factory) {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            WakeupSignaler s = factory.get();
            AtomicReference<Throwable> result = new AtomicReference<>();
            CountDownLatch entered = new CountDownLatch(1);
            Thread owner = new Thread(() -> {
                entered.countDown();
                try {
                    s.poll(id -> { });
                } catch (Throwable t) {
                    result.set(t);
                }
            });
            owner.start();
            entered.await();
            s.close();
            owner.join(60_000);
            assertFalse(owner.isAlive());
            assertTrue(result.get() instanceof IllegalStateException, String.valueOf(result.get()));
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aThrowingSinkLosesNoUndeliveredId(String name, Supplier<WakeupSignaler> factory) {
        try (WakeupSignaler s = factory.get()) {
            for (int id = 60; id < 70; id++) {
                s.signal(id); // ids 60..69 span two words of the bit set
            }
            BitSet first = new BitSet();
            assertThrows(IllegalStateException.class, () -> s.check(id -> {
                first.set(id);
                if (id == 62) {
                    throw new IllegalStateException("sink failed");
                }
            }));
            BitSet rest = new BitSet();
            assertEquals(7, s.check(rest::set));
            assertEquals(BitSet.valueOf(new long[] {0b111L << 60}), first);
            BitSet expected = new BitSet();
            expected.set(63, 70);
            assertEquals(expected, rest);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aSecondWaiterIsRejected(String name, Supplier<WakeupSignaler> factory) {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            try (WakeupSignaler s = factory.get()) {
                AtomicInteger got = new AtomicInteger(-1);
                Thread owner = new Thread(() -> {
                    try {
                        s.poll(got::set);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                owner.start();
                while (owner.getState() != Thread.State.WAITING) { // parked in poll
                    Thread.onSpinWait();
                }
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> s.poll(id -> { }, 1, TimeUnit.SECONDS));
                assertTrue(e.getMessage().contains("one waiting thread"), e.getMessage());
                s.signal(11);
                owner.join(60_000);
                assertFalse(owner.isAlive());
                assertEquals(11, got.get());
            }
        });
    }

    private static int[] shuffled(SplittableRandom rnd) {
        int[] a = new int[256];
        for (int i = 0; i < 256; i++) {
            a[i] = i;
        }
        for (int i = 255; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }
}
