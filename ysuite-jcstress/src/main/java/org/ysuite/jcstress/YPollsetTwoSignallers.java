package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;
import org.ysuite.YPollset;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YPollset: two signallers setting different bits of the one word at the same time, with one
 * atomic step each. Neither bit may be lost.
 */
@JCStressTest
@Outcome(id = "6", expect = ACCEPTABLE, desc = "both bits 1 and 2 fired")
@Outcome(expect = FORBIDDEN, desc = "LOST SIGNAL: a bit overwritten by the other signaller")
@State
public class YPollsetTwoSignallers {

    private final YPollset pollset = new YPollset(0);

    @Actor
    public void signaller1() {
        pollset.signal(1);
    }

    @Actor
    public void signaller2() {
        pollset.signal(2);
    }

    @Arbiter
    public void owner(I_Result r) {
        r.r1 = pollset.check();
    }
}
