package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every wait in ysuite asks its {@link WaitPolicy} how long to spin and reports back: a wait that
 * ends while spinning calls {@code spun(rounds)}, one that spun in vain calls {@code parked()}
 * before it sleeps. Checked with a recording policy on each waiter: the signalers' owners, the
 * off-heap writer waiting for space, and the pipes' readers.
 */
class WaitPolicyUseTest {

    /** A policy that records what the wait tells it; {@code spins()} opens a latch. */
    static final class Recording extends WaitPolicy {
        final int spins;
        final CountDownLatch spinning = new CountDownLatch(1);
        final AtomicInteger spun = new AtomicInteger();
        final AtomicInteger parked = new AtomicInteger();
        volatile int rounds = -1;

        Recording(int spins) {
            this.spins = spins;
        }

        @Override
        int spinLimit() {
            spinning.countDown();
            return spins;
        }

        /** {@link System#nanoTime()} when {@link #spun} was last called. */
        volatile long spunAt;

        @Override
        public void spun(int rounds) {
            spunAt = System.nanoTime();
            this.rounds = rounds;
            spun.incrementAndGet();
        }

        @Override
        public void parked() {
            parked.incrementAndGet();
        }

        @Override
        int maxSpins() {
            return spins;
        }

        @Override
        public WaitPolicy newState() {
            return new Recording(spins);
        }
    }

    /** One waiter: a wait of at most {@code nanos} (true if its event came), and its event. */
    interface Waiter {
        boolean await(long nanos) throws Exception;

        void fire() throws Exception;
    }

    static Stream<Arguments> waiters() {
        return Stream.of(
                waiter("YSemaphore", p -> {
                    YSemaphore s = new YSemaphore(p);
                    return of(n -> s.await(n, TimeUnit.NANOSECONDS), () -> s.signal(0));
                }),
                waiter("YPollset", p -> {
                    YPollset s = new YPollset(p);
                    return of(n -> s.poll(n, TimeUnit.NANOSECONDS) != 0, () -> s.signal(3));
                }),
                waiter("YSocketPair", p -> {
                    YSocketPair s = new YSocketPair(YSocketPair.Kind.SOCKETPAIR, p);
                    return of(n -> s.poll(id -> { }, n, TimeUnit.NANOSECONDS) != 0, () -> s.signal(1));
                }),
                waiter("NioSignaler", p -> {
                    NioSignaler s = new NioSignaler(p);
                    return of(n -> s.poll(id -> { }, n, TimeUnit.NANOSECONDS) != 0, () -> s.signal(1));
                }),
                waiter("OffHeapYPipe writer (awaitSpace)", p -> {
                    OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.defaultPolicy(), p);
                    while (pipe.write(new byte[28])) {
                        // fill the ring
                    }
                    pipe.flush();
                    return of(n -> pipe.awaitSpace(28, n, TimeUnit.NANOSECONDS),
                            () -> pipe.read(new byte[28]));
                }),
                waiter("OffHeapYPipe reader", p -> {
                    OffHeapYPipe pipe = new OffHeapYPipe(256, p, WaitPolicy.defaultPolicy());
                    return of(n -> pipe.checkRead(), () -> {
                        pipe.write(new byte[8]);
                        pipe.flush();
                    });
                }),
                waiter("YPipe reader", p -> {
                    YPipe<String> pipe = new YPipe<>(16, p);
                    return of(n -> pipe.checkRead(), () -> {
                        pipe.write("x");
                        pipe.flush();
                    });
                }));
    }

    private static Arguments waiter(String name, Function<WaitPolicy, Waiter> make) {
        return Arguments.of(name, make);
    }

    private static Waiter of(TimedWait wait, Action fire) {
        return new Waiter() {
            @Override
            public boolean await(long nanos) throws Exception {
                return wait.await(nanos);
            }

            @Override
            public void fire() throws Exception {
                fire.run();
            }
        };
    }

    interface TimedWait {
        boolean await(long nanos) throws Exception;
    }

    interface Action {
        void run() throws Exception;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("waiters")
    void aWaitThatEndsWhileSpinningReportsSpun(String name, Function<WaitPolicy, Waiter> make)
            throws Throwable {
        Recording policy = new Recording(Integer.MAX_VALUE); // spins until the event comes
        Waiter waiter = make.apply(policy);
        boolean[] got = new boolean[1];
        TestThreads.Runner t = TestThreads.start("waiter", () -> got[0] = waiter.await(TimeUnit.SECONDS.toNanos(60)));
        assertTrue(policy.spinning.await(60, TimeUnit.SECONDS), name + ": the wait never asked spins()");
        waiter.fire(); // the wait is spinning now: it must catch this while spinning
        t.join();
        assertTrue(got[0], name + ": the wait missed its event");
        assertEquals(1, policy.spun.get(), name + ": spun(rounds) calls");
        assertEquals(0, policy.parked.get(), name + ": parked() calls");
        assertTrue(policy.rounds >= 1, name + ": rounds reported " + policy.rounds);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("waiters")
    void aWaitThatSpinsInVainReportsParked(String name, Function<WaitPolicy, Waiter> make)
            throws Exception {
        Recording policy = new Recording(3);
        Waiter waiter = make.apply(policy);
        long timeout = TimeUnit.MILLISECONDS.toNanos(20);
        long start = System.nanoTime();
        assertFalse(waiter.await(timeout), name + ": an event nobody fired");
        if (policy.spun.get() != 0) {
            // Legitimate only if the deadline came while it spun (a spin preempted for the whole
            // timeout on a loaded machine): a spin that ended in vain before it must report parked.
            assertTrue(policy.spunAt - start >= timeout, name + ": reported spun(rounds) "
                    + (policy.spunAt - start) + " ns into a " + timeout + " ns wait, before its deadline");
            assertEquals(0, policy.parked.get(), name + ": parked() calls after spun(rounds)");
            return;
        }
        assertEquals(1, policy.parked.get(), name + ": parked() calls");
    }
}
