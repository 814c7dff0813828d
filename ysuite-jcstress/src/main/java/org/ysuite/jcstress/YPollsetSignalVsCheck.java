package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.YPollset;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YPollset: {@code signal(3)} racing the owner's non-blocking {@code check()}. The bit is taken
 * exactly once: by the racing check (r1) or by the next one (r2).
 */
@JCStressTest
@Outcome(id = "8, 0", expect = ACCEPTABLE, desc = "check took the signal")
@Outcome(id = "0, 8", expect = ACCEPTABLE, desc = "signal landed after the check: the next check takes it")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "LOST SIGNAL: bit 3 vanished")
@Outcome(expect = FORBIDDEN, desc = "bit delivered twice or a bit never fired")
@State
public class YPollsetSignalVsCheck {

    private final YPollset pollset = new YPollset();

    @Actor
    public void signaller() {
        pollset.signal(3);
    }

    @Actor
    public void owner(II_Result r) {
        r.r1 = pollset.check();
    }

    @Arbiter
    public void next(II_Result r) {
        r.r2 = pollset.check();
    }
}
