package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link PollableSignaler}, run by every implementation (the pattern of JCTools'
 * {@code QueueSanityTest}: one body of tests, one row per implementation). Each row is a name and a
 * factory from a {@link WaitPolicy}; the tests that depend on spinning run with
 * {@link WaitPolicy#purePark()} and with {@link WaitPolicy#defaultPolicy()}.
 *
 * <p>What stays in {@code YSemaphoreTest}, {@code YPollsetTest}, {@code YSocketPairTest} and
 * {@code NioSignalerTest} is specific to that type: {@code await}, the bitmask {@code poll()},
 * capacities and id checks, descriptors and selectors. {@code WakeupSignalerTest} holds what the
 * descriptor-backed signalers share beyond this contract (256 ids, floods, close).
 */
class PollableSignalerContractTest {

    private static final Duration WATCHDOG = Duration.ofMinutes(10);
    /** Round trips per ping-pong run: {@code ysuite.test.rounds} (default 200,000). */
    private static final int ROUNDS = Integer.getInteger("ysuite.test.rounds", 200_000);

    /** One implementation under test. */
    record Impl(String name, Function<WaitPolicy, PollableSignaler> factory, int pingPongRounds) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Impl> impls() {
        // a round trip through a descriptor costs two system calls each way: a tenth of the rounds
        return Stream.of(
                new Impl("YSemaphore", YSemaphore::new, ROUNDS),
                new Impl("YPollset", YPollset::new, ROUNDS),
                new Impl("YSocketPair(SOCKETPAIR)", p -> new YSocketPair(YSocketPair.Kind.SOCKETPAIR, p), ROUNDS / 10),
                new Impl("YSocketPair(EVENTFD)", p -> new YSocketPair(YSocketPair.Kind.EVENTFD, p), ROUNDS / 10),
                new Impl("NioSignaler", NioSignaler::new, ROUNDS / 10));
    }

    static Stream<Arguments> implsAndSpins() {
        return impls().flatMap(i -> Stream.of(
                Arguments.of(i, 0), Arguments.of(i, WaitPolicy.DEFAULT_SPINS)));
    }

    static Stream<Arguments> implsAndTimed() {
        return impls().flatMap(i -> Stream.of(Arguments.of(i, false), Arguments.of(i, true)));
    }

    private final List<PollableSignaler> opened = new ArrayList<>();

    /** Opens a signaler that is closed after the test, if it is closeable. */
    private PollableSignaler open(Impl impl, int spin) {
        PollableSignaler s = impl.factory().apply(WaitPolicy.spinThenPark(spin));
        opened.add(s);
        return s;
    }

    @AfterEach
    void closeAll() throws IOException {
        for (PollableSignaler s : opened) {
            if (s instanceof Closeable) {
                ((Closeable) s).close();
            }
        }
    }

    /** Records delivered ids. */
    private static final class Ids implements IntConsumer {
        final List<Integer> got = new ArrayList<>();

        @Override
        public void accept(int id) {
            got.add(id);
        }
    }

    // ---------------------------------------------------------------- arguments

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void nullPolicyRejected(Impl impl) {
        NullPointerException e = assertThrows(NullPointerException.class, () -> impl.factory().apply(null));
        assertEquals("policy", e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void badIdsRejectedWithoutFiring(Impl impl) {
        PollableSignaler s = open(impl, WaitPolicy.DEFAULT_SPINS);
        int capacity = s.capacity();
        for (int id : new int[] {capacity, capacity + 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.signal(id));
            assertEquals("id must be in [0, " + capacity + "): " + id, e.getMessage());
        }
        assertEquals(0, s.check(id -> { }), "a rejected id must not fire a signal");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void negativeTimeoutRejected(Impl impl) {
        PollableSignaler s = open(impl, WaitPolicy.DEFAULT_SPINS);
        assertRejectedNaming(() -> s.poll(id -> { }, -5, TimeUnit.SECONDS), "timeout", "-5");
    }

    /** The call throws an {@link IllegalArgumentException} whose message names each of {@code words}. */
    private static void assertRejectedNaming(Executable call, String... words) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), e.getMessage());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void nullArgumentsRejectedWithoutTakingTheSignal(Impl impl) {
        PollableSignaler s = open(impl, WaitPolicy.DEFAULT_SPINS);
        s.signal(0);
        assertThrows(NullPointerException.class, () -> s.check(null));
        assertThrows(NullPointerException.class, () -> s.poll(null));
        assertThrows(NullPointerException.class, () -> s.poll(null, 1, TimeUnit.SECONDS));
        assertThrows(NullPointerException.class, () -> s.poll(id -> { }, 1, null));
        Ids ids = new Ids();
        assertEquals(1, s.check(ids), "a rejected call must not take the signal");
        assertEquals(List.of(0), ids.got);
    }

    // ---------------------------------------------------------------- single-threaded semantics

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void checkNeverBlocksAndASignalIsKeptUntilTaken(Impl impl) throws InterruptedException {
        PollableSignaler s = open(impl, 0);
        Ids ids = new Ids();
        assertEquals(0, s.check(ids));
        s.signal(0);
        s.signal(0); // a second fire before the take is the same signal
        assertEquals(1, s.check(ids));
        assertEquals(0, s.check(ids));
        s.signal(0);
        assertEquals(1, s.poll(ids));
        s.signal(0);
        assertEquals(1, s.poll(ids, 1, TimeUnit.SECONDS));
        assertEquals(List.of(0, 0, 0), ids.got);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void zeroTimeoutDoesNotWait(Impl impl) throws InterruptedException {
        PollableSignaler s = open(impl, WaitPolicy.DEFAULT_SPINS);
        Ids ids = new Ids();
        assertEquals(0, s.poll(ids, 0, TimeUnit.DAYS));
        assertTrue(ids.got.isEmpty());
        s.signal(0);
        assertEquals(1, s.poll(ids, 0, TimeUnit.DAYS));
        assertEquals(List.of(0), ids.got);
    }

    @ParameterizedTest(name = "{0}, spin {1}")
    @MethodSource("implsAndSpins")
    void timedPollTimesOutNoEarlierThanTheTimeout(Impl impl, int spin) throws InterruptedException {
        PollableSignaler s = open(impl, spin);
        Ids ids = new Ids();
        long t0 = System.nanoTime();
        assertEquals(0, s.poll(ids, 50, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(50));
        t0 = System.nanoTime();
        assertEquals(0, s.poll(ids, 20_000, TimeUnit.MICROSECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MICROSECONDS.toNanos(20_000));
        assertTrue(ids.got.isEmpty());
        // after a timeout the signaler still works
        s.signal(0);
        assertEquals(1, s.poll(ids, 0, TimeUnit.SECONDS));
    }

    // ---------------------------------------------------------------- interrupts

    @ParameterizedTest(name = "{0}, timed {1}")
    @MethodSource("implsAndTimed")
    void interruptDuringWaitThrowsAndLeavesACleanState(Impl impl, boolean timed) throws Throwable {
        PollableSignaler s = open(impl, WaitPolicy.DEFAULT_SPINS);
        AtomicBoolean threw = new AtomicBoolean();
        AtomicBoolean stillInterrupted = new AtomicBoolean(true);
        TestThreads.Runner owner = TestThreads.start("owner", () -> {
            try {
                if (timed) {
                    s.poll(id -> { }, 1, TimeUnit.HOURS);
                } else {
                    s.poll(id -> { });
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
        assertTrue(!stillInterrupted.get(), "interrupt status must be cleared");
        // a later signal is taken exactly once
        assertEquals(0, s.check(id -> { }));
        s.signal(0);
        assertEquals(1, s.poll(id -> { }, 0, TimeUnit.SECONDS));
        assertEquals(0, s.poll(id -> { }, 0, TimeUnit.SECONDS));
    }

    // ---------------------------------------------------------------- wake-ups

    @ParameterizedTest(name = "{0}, spin {1}")
    @MethodSource("implsAndSpins")
    void signalWakesAParkedOwner(Impl impl, int spin) throws Throwable {
        PollableSignaler s = open(impl, spin);
        AtomicInteger result = new AtomicInteger();
        TestThreads.Runner owner = TestThreads.start("owner",
                () -> result.set(s.poll(id -> { }, 1, TimeUnit.HOURS)));
        TestThreads.awaitParked(owner.thread);
        s.signal(0);
        owner.join();
        assertEquals(1, result.get());
        assertEquals(0, s.check(id -> { }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void hugeTimeoutDoesNotOverflow(Impl impl) throws Throwable {
        PollableSignaler s = open(impl, 0);
        AtomicInteger result = new AtomicInteger();
        TestThreads.Runner owner = TestThreads.start("owner",
                () -> result.set(s.poll(id -> { }, Long.MAX_VALUE, TimeUnit.DAYS)));
        TestThreads.awaitParked(owner.thread);
        s.signal(0);
        owner.join();
        assertEquals(1, result.get());
    }

    @ParameterizedTest(name = "{0}, timed {1}")
    @MethodSource("implsAndTimed")
    void spuriousWakeUpsDoNotEndTheWait(Impl impl, boolean timed) throws Throwable {
        PollableSignaler s = open(impl, 0);
        AtomicBoolean signalled = new AtomicBoolean();
        AtomicBoolean sawSignalFlag = new AtomicBoolean();
        AtomicInteger result = new AtomicInteger();
        TestThreads.Runner owner = TestThreads.start("owner", () -> {
            result.set(timed ? s.poll(id -> { }, 1, TimeUnit.HOURS) : s.poll(id -> { }));
            sawSignalFlag.set(signalled.get());
        });
        TestThreads.awaitParked(owner.thread);
        for (int i = 0; i < 2_000; i++) {
            LockSupport.unpark(owner.thread); // a wake-up without a signal
            Thread.yield();
        }
        TestThreads.awaitParked(owner.thread); // it went back to sleep
        signalled.set(true);
        s.signal(0);
        owner.join();
        assertTrue(sawSignalFlag.get(), "the poll returned before the signal");
        assertEquals(1, result.get());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void spuriousWakeUpsDoNotShortenATimeout(Impl impl) throws Throwable {
        PollableSignaler s = open(impl, 0);
        AtomicLong elapsed = new AtomicLong();
        AtomicInteger result = new AtomicInteger(-1);
        AtomicBoolean done = new AtomicBoolean();
        TestThreads.Runner owner = TestThreads.start("owner", () -> {
            long t0 = System.nanoTime();
            result.set(s.poll(id -> { }, 100, TimeUnit.MILLISECONDS));
            elapsed.set(System.nanoTime() - t0);
            done.set(true);
        });
        while (!done.get()) {
            LockSupport.unpark(owner.thread);
            Thread.yield();
        }
        owner.join();
        assertEquals(0, result.get());
        assertTrue(elapsed.get() >= TimeUnit.MILLISECONDS.toNanos(100), elapsed + " ns");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void aSecondConcurrentWaiterIsRejected(Impl impl) throws Throwable {
        PollableSignaler s = open(impl, 0);
        AtomicInteger result = new AtomicInteger();
        TestThreads.Runner owner = TestThreads.start("owner", () -> result.set(s.poll(id -> { })));
        TestThreads.awaitParked(owner.thread);
        assertThrows(IllegalStateException.class, () -> s.poll(id -> { }, 1, TimeUnit.SECONDS));
        s.signal(0);
        owner.join(); // the first waiter was not disturbed
        assertEquals(1, result.get());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void ownershipCanMoveBetweenThreadsSequentially(Impl impl) throws Throwable {
        PollableSignaler s = open(impl, 0);
        for (int i = 0; i < 3; i++) {
            TestThreads.Runner owner = TestThreads.start("owner" + i, () -> s.poll(id -> { }));
            TestThreads.awaitParked(owner.thread);
            s.signal(0);
            owner.join();
        }
        assertEquals(0, s.check(id -> { }));
    }

    // ---------------------------------------------------------------- stress

    /** The non-volatile payload that signal/poll must publish. */
    private int payload;

    /**
     * Two signalers, two threads, strict alternation over every id of the smaller capacity: each
     * side checks the other's plain write, so a signal that does not publish (or is lost) fails.
     */
    @ParameterizedTest(name = "{0}, spin {1}")
    @MethodSource("implsAndSpins")
    void pingPongPublishesThePayload(Impl impl, int spin) {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            PollableSignaler ping = open(impl, spin);
            PollableSignaler pong = open(impl, spin);
            int ids = ping.capacity();
            int rounds = impl.pingPongRounds();
            payload = 0;
            TestThreads.Runner echo = TestThreads.start("echo", () -> {
                int[] got = new int[1];
                for (int i = 1; i <= rounds; i++) {
                    int n = ping.poll(id -> got[0] = id);
                    if (n != 1 || got[0] != i % ids || payload != i) {
                        throw new AssertionError("round " + i + ": " + n + " ids, id " + got[0] + ", payload " + payload);
                    }
                    payload = -i;
                    pong.signal(i % ids);
                }
            });
            int[] got = new int[1];
            for (int i = 1; i <= rounds; i++) {
                payload = i;
                ping.signal(i % ids);
                assertEquals(1, pong.poll(id -> got[0] = id));
                assertEquals(i % ids, got[0]);
                assertEquals(-i, payload);
            }
            echo.join();
            assertEquals(0, ping.check(id -> { }));
            assertEquals(0, pong.check(id -> { }));
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void manySignallersTheLastSignalIsNeverLost(Impl impl) {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            int threads = 4;
            int perThread = impl.pingPongRounds() / 4;
            PollableSignaler s = open(impl, WaitPolicy.DEFAULT_SPINS);
            AtomicInteger fired = new AtomicInteger();
            List<TestThreads.Runner> signallers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                signallers.add(TestThreads.start("signaller" + t, () -> {
                    for (int k = 0; k < perThread; k++) {
                        fired.incrementAndGet();
                        s.signal(0);
                    }
                }));
            }
            // Every increment is followed by a signal, so the owner must see the final count; and
            // it polls at least once: if the signallers were all done before its first look, their
            // last signal is still pending (never lost), so that poll returns at once.
            int wakeUps = 0;
            do {
                s.poll(id -> { });
                wakeUps++;
            } while (fired.get() < threads * perThread);
            for (TestThreads.Runner r : signallers) {
                r.join();
            }
            assertTrue(wakeUps >= 1 && wakeUps <= threads * perThread, "wake-ups " + wakeUps);
        });
    }
}
