package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.Signaler;
import org.ysuite.YPollset;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YPollset (pure park): {@code signal(5)} racing the owner's blocking {@code poll}, which sets
 * the sleep bit and parks. The wait is bounded ({@link Seq#TIMEOUT_MS}) only so that a failure
 * ends: the owner must wake with bit 5, never sleep through it (r2 = 1: it was still asleep with
 * the bit set after {@link Seq#SLOW_MS}), and leave nothing behind (r3).
 */
@JCStressTest
@Outcome(id = "32, 0, 0", expect = ACCEPTABLE, desc = "owner woke with the signal")
@Outcome(id = "32, 1, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: owner asleep with the bit set until its timeout")
@Outcome(id = "0, 1, 32", expect = FORBIDDEN, desc = "LOST WAKE-UP: poll timed out with the bit set")
@Outcome(expect = FORBIDDEN, desc = "signal lost or delivered twice")
@State
public class YPollsetSignalVsPoll {

    private final YPollset pollset = new YPollset(Signaler.PURE_PARK);

    @Actor
    public void signaller() {
        pollset.signal(5);
    }

    @Actor
    public void owner(III_Result r) {
        long start = System.nanoTime();
        try {
            r.r1 = pollset.poll(Seq.TIMEOUT_MS, Seq.UNIT);
        } catch (InterruptedException e) {
            r.r1 = -1;
        }
        r.r2 = Seq.slow(start);
    }

    @Arbiter
    public void next(III_Result r) {
        r.r3 = pollset.check();
    }
}
