package org.ysuite.jcstress;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.WaitPolicy;
import org.ysuite.YSemaphore;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress races of {@link org.ysuite.YSemaphore}, one nested test per race (run one with
 * {@code -t YSemaphoreRaces.Name}, all of them with {@code -t YSemaphoreRaces}).
 */
public final class YSemaphoreRaces {

    private YSemaphoreRaces() {
    }

    /**
     * YSemaphore (pure park) is binary: two posts racing one timed {@code await}. The waiter gets a
     * signal promptly; a second post that came after the await took the first is kept for the next
     * check (r3 = 1); two posts before the await are one signal (r3 = 0). Never more than one kept.
     * r2 = 1: the wait ran its whole timeout although the post landed well before it returned
     * ({@link Seq#sleptThrough}); a poster started only after the timeout is no lost wake-up.
     */
    @JCStressTest
    @Outcome(id = {"1, 0, 0", "1, 0, 1"}, expect = ACCEPTABLE, desc = "await got the signal; a later post is kept once")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poster ran only after the whole timeout: kept")
    @Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP (timeout or slow) or a binary semaphore counting")
    @State
    public static class DoublePostVsAwait {

        private final YSemaphore semaphore = new YSemaphore(WaitPolicy.purePark());
        private volatile long postedAt;
        private long startedAt;
        private long returnedAt;

        @Actor
        public void poster() {
            semaphore.signal(0);
            postedAt = System.nanoTime();
            semaphore.signal(0);
        }

        @Actor
        public void waiter(III_Result r) {
            startedAt = System.nanoTime();
            try {
                r.r1 = semaphore.await(Seq.TIMEOUT_MS, Seq.UNIT) ? 1 : 0;
            } catch (InterruptedException e) {
                r.r1 = -1;
            }
            returnedAt = System.nanoTime();
        }

        @Arbiter
        public void next(III_Result r) {
            r.r2 = Seq.sleptThrough(startedAt, postedAt, returnedAt);
            r.r3 = semaphore.check(id -> { });
        }
    }

    /**
     * YSemaphore (pure park): a post racing a timed {@code await}. The waiter must come back with
     * the signal (r1 = 1) without sleeping through it (r2 = 1 means it was still parked after
     * {@link Seq#SLOW_MS}), and the signal is consumed (r3 = what a later check finds).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "await returned with the signal")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poster ran only after the whole timeout: kept")
    @Outcome(id = "1, 1, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: waiter parked with the signal posted")
    @Outcome(id = "0, 1, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: await timed out with the signal posted")
    @Outcome(expect = FORBIDDEN, desc = "signal lost or delivered twice")
    @State
    public static class SignalVsAwait {

        private final YSemaphore semaphore = new YSemaphore(WaitPolicy.purePark());
        private volatile long postedAt;
        private long startedAt;
        private long returnedAt;

        @Actor
        public void poster() {
            semaphore.signal(0);
            postedAt = System.nanoTime();
        }

        @Actor
        public void waiter(III_Result r) {
            startedAt = System.nanoTime();
            try {
                r.r1 = semaphore.await(Seq.TIMEOUT_MS, Seq.UNIT) ? 1 : 0;
            } catch (InterruptedException e) {
                r.r1 = -1;
            }
            returnedAt = System.nanoTime();
        }

        @Arbiter
        public void next(III_Result r) {
            r.r2 = Seq.sleptThrough(startedAt, postedAt, returnedAt);
            r.r3 = semaphore.check(id -> { });
        }
    }

    /**
     * YSemaphore (pure park): a post racing an {@code await} whose one-microsecond timeout runs out.
     * The signal is taken exactly once: by the await (r1 = 1) or by the next check (r2 = 1).
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "await took the signal")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "await timed out first; the signal is kept")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "LOST SIGNAL: the timeout path erased the post")
    @Outcome(expect = FORBIDDEN, desc = "signal delivered twice")
    @State
    public static class SignalVsAwaitTimeout {

        private final YSemaphore semaphore = new YSemaphore(WaitPolicy.purePark());
        private volatile long postedAt;
        private long startedAt;
        private long returnedAt;

        @Actor
        public void poster() {
            semaphore.signal(0);
            postedAt = System.nanoTime();
        }

        @Actor
        public void waiter(II_Result r) {
            try {
                r.r1 = semaphore.await(1, TimeUnit.MICROSECONDS) ? 1 : 0;
            } catch (InterruptedException e) {
                r.r1 = -1;
            }
        }

        @Arbiter
        public void next(II_Result r) {
            r.r2 = semaphore.check(id -> { });
        }
    }

    /**
     * YSemaphore (its default policy, pure park): a post racing the untimed {@code await()}. The
     * untimed wait has no timeout of its own, so a {@link Watchdog} interrupts the waiter after
     * {@link Seq#TIMEOUT_MS}: r1 = -1 with r2 = 1 is a waiter that slept through a signal posted
     * well before the watchdog fired ({@link Seq#sleptThrough}); r1 = -1 with r2 = 0 is a poster
     * that a loaded machine ran only after the watchdog (its signal is then kept, r3 = 1).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "await returned with the signal")
    @Outcome(id = "-1, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poster ran only after the watchdog: kept")
    @Outcome(id = {"-1, 1, 1", "-1, 1, 0"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: the watchdog had to interrupt the waiter although the signal was posted well before")
    @Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP (slow) or the signal delivered twice")
    @State
    public static class SignalVsUntimedAwait {

        private final YSemaphore semaphore = new YSemaphore();
        private volatile long postedAt;
        private long startedAt;
        private long returnedAt;

        @Actor
        public void poster() {
            semaphore.signal(0);
            postedAt = System.nanoTime();
        }

        @Actor
        public void waiter(III_Result r) {
            startedAt = System.nanoTime(); // before the watchdog, so its interrupt counts as the whole wait
            ScheduledFuture<?> dog = Watchdog.arm();
            try {
                semaphore.await();
                r.r1 = 1;
            } catch (InterruptedException e) {
                r.r1 = -1;
            }
            returnedAt = System.nanoTime();
            Watchdog.disarm(dog);
        }

        @Arbiter
        public void next(III_Result r) {
            r.r2 = Seq.sleptThrough(startedAt, postedAt, returnedAt);
            r.r3 = semaphore.check(id -> { });
        }
    }
}
