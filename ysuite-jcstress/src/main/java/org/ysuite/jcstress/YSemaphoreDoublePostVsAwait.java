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
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YSemaphore (pure park) is binary: two posts racing one timed {@code await}. The waiter gets a
 * signal promptly; a second post that came after the await took the first is kept for the next
 * check (r3 = 1); two posts before the await are one signal (r3 = 0). Never more than one kept.
 */
@JCStressTest
@Outcome(id = {"1, 0, 0", "1, 0, 1"}, expect = ACCEPTABLE, desc = "await got the signal; a later post is kept once")
@Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP (timeout or slow) or a binary semaphore counting")
@State
public class YSemaphoreDoublePostVsAwait {

    private final YSemaphore semaphore = new YSemaphore(Signaler.PURE_PARK);

    @Actor
    public void poster() {
        semaphore.signal(0);
        semaphore.signal(0);
    }

    @Actor
    public void waiter(III_Result r) {
        long start = System.nanoTime();
        try {
            r.r1 = semaphore.await(Seq.TIMEOUT_MS, Seq.UNIT) ? 1 : 0;
        } catch (InterruptedException e) {
            r.r1 = -1;
        }
        r.r2 = Seq.slow(start);
    }

    @Arbiter
    public void next(III_Result r) {
        r.r3 = semaphore.check(id -> { });
    }
}
