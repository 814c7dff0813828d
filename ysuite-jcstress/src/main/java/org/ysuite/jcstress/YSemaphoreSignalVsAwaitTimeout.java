package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.Signaler;
import org.ysuite.YSemaphore;

import java.util.concurrent.TimeUnit;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
public class YSemaphoreSignalVsAwaitTimeout {

    private final YSemaphore semaphore = new YSemaphore(Signaler.PURE_PARK);

    @Actor
    public void poster() {
        semaphore.signal(0);
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
