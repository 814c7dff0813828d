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
 * YSemaphore (pure park): a post racing a timed {@code await}. The waiter must come back with
 * the signal (r1 = 1) without sleeping through it (r2 = 1 means it was still parked after
 * {@link Seq#SLOW_MS}), and the signal is consumed (r3 = what a later check finds).
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "await returned with the signal")
@Outcome(id = "1, 1, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: waiter parked with the signal posted")
@Outcome(id = "0, 1, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: await timed out with the signal posted")
@Outcome(expect = FORBIDDEN, desc = "signal lost or delivered twice")
@State
public class YSemaphoreSignalVsAwait {

    private final YSemaphore semaphore = new YSemaphore(Signaler.PURE_PARK);

    @Actor
    public void poster() {
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
