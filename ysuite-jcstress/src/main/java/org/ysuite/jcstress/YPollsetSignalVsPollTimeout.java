package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.Signaler;
import org.ysuite.YPollset;

import java.util.concurrent.TimeUnit;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YPollset (pure park): {@code signal(4)} racing a poll whose one-microsecond timeout runs out —
 * the owner withdraws its sleep bit as the signaller clears it. The bit must survive either way:
 * taken by the timed-out poll (r1) or left for the next check (r2), exactly once.
 */
@JCStressTest
@Outcome(id = "16, 0", expect = ACCEPTABLE, desc = "poll took the signal")
@Outcome(id = "0, 16", expect = ACCEPTABLE, desc = "poll timed out first; the signal waits for the next check")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "LOST SIGNAL: the timeout path erased the bit")
@Outcome(expect = FORBIDDEN, desc = "bit delivered twice or a stray bit (the sleep bit leaked out)")
@State
public class YPollsetSignalVsPollTimeout {

    private final YPollset pollset = new YPollset(Signaler.PURE_PARK);

    @Actor
    public void signaller() {
        pollset.signal(4);
    }

    @Actor
    public void owner(II_Result r) {
        try {
            r.r1 = pollset.poll(1, TimeUnit.MICROSECONDS);
        } catch (InterruptedException e) {
            r.r1 = -1;
        }
    }

    @Arbiter
    public void next(II_Result r) {
        r.r2 = pollset.check();
    }
}
