package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.Signaler;
import org.ysuite.YSemaphore;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YSemaphore (pure park) is binary: two posts racing one timed {@code await}. The waiter gets a
 * signal promptly; a second post that came after the await took the first is kept for the next
 * check (r3 = 1); two posts before the await are one signal (r3 = 0). Never more than one kept.
 *
 * <p>r2 = 1 is a lost wake-up: the await gave up (its whole timeout) although the first post had
 * landed at least {@link Seq#MARGIN_MS} before it did (System.nanoTime is one clock for every
 * thread). A poster that a loaded machine started only after the whole timeout (r1 = 0, r2 = 0,
 * its signal kept: r3 = 1) is no wake-up lost.
 */
@JCStressTest
@Outcome(id = {"1, 0, 0", "1, 0, 1"}, expect = ACCEPTABLE, desc = "await got the signal; a later post is kept once")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poster ran only after the whole timeout: signal kept")
@Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP (timeout or slow) or a binary semaphore counting")
@State
public class YSemaphoreDoublePostVsAwait {

    private final YSemaphore semaphore = new YSemaphore(Signaler.PURE_PARK);
    private volatile long postedAt;
    private long gaveUpAt;

    @Actor
    public void poster() {
        semaphore.signal(0);
        postedAt = System.nanoTime();
        semaphore.signal(0);
    }

    @Actor
    public void waiter(III_Result r) {
        try {
            r.r1 = semaphore.await(Seq.TIMEOUT_MS, Seq.UNIT) ? 1 : 0;
        } catch (InterruptedException e) {
            r.r1 = -1;
        }
        gaveUpAt = System.nanoTime();
    }

    @Arbiter
    public void next(III_Result r) {
        r.r2 = r.r1 != 1 && Seq.postedWellBefore(postedAt, gaveUpAt) ? 1 : 0;
        r.r3 = semaphore.check(id -> { });
    }
}
