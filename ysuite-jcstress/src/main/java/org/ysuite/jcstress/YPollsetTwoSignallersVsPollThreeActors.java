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
 * YPollset (pure park), three actors (needs three CPUs): two signallers racing each other and
 * the owner going to sleep. The owner wakes with at least one bit, never sleeps through a set bit
 * (r2), and the two bits are delivered exactly once between its poll (r1) and the next check (r3).
 */
@JCStressTest
@Outcome(id = {"6, 0, 0", "2, 0, 4", "4, 0, 2"}, expect = ACCEPTABLE, desc = "owner woke; every bit taken once")
@Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP or LOST SIGNAL: owner slept with a bit set, or a bit vanished or came twice")
@State
public class YPollsetTwoSignallersVsPollThreeActors {

    private final YPollset pollset = new YPollset(Signaler.PURE_PARK);

    @Actor
    public void signaller1() {
        pollset.signal(1);
    }

    @Actor
    public void signaller2() {
        pollset.signal(2);
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
