package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.YSocketPair;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YSocketPair (socketpair kind): {@code signal(7)} racing the owner's drain ({@code check}), which
 * reads back an outstanding wake-up, takes the bits and, finding none, re-arms the descriptor.
 * The owner starts armed (its last check found nothing), as it is before it sleeps in poll(2).
 *
 * <p>r1 = ids the racing check took; r2 = 1 if {@code fd()} then polls readable (what a native
 * poller would see, asked with a zero timeout); r3 = ids the owner's next check takes. Forbidden
 * is the lost wake-up: the owner's check found nothing (it would now sleep in poll(2)), id 7 is
 * unconsumed, and the descriptor reads not-ready. A readable descriptor with nothing behind it is
 * a spurious wake-up, which the contract allows.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "check took the signal; no wake-up left")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "check found nothing and re-armed; the signal made fd readable")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "check took the signal; its wake-up byte stays (spurious wake-up, allowed)")
@Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: id fired and unconsumed, owner armed, fd not readable")
@Outcome(expect = FORBIDDEN, desc = "signal lost or taken twice")
@State
public class YSocketPairArmVsSignal {

    private static final DescriptorPool<Fixtures.SocketPair> POOL =
            new DescriptorPool<>(YSocketPairArmVsSignal.class, () -> new Fixtures.SocketPair(YSocketPair.Kind.SOCKETPAIR));

    private final Fixtures.SocketPair fixture;
    private final YSocketPair signals;

    /** Leases a clean signaler, armed as after a check that found nothing (see {@link DescriptorPool}). */
    public YSocketPairArmVsSignal() {
        fixture = POOL.take(this);
        signals = fixture.signals;
    }

    @Actor
    public void signaller() {
        signals.signal(7);
    }

    @Actor
    public void owner(III_Result r) {
        r.r1 = signals.check(Fixtures.DROP);
    }

    @Arbiter
    public void poller(III_Result r) {
        r.r2 = fixture.readable();
        r.r3 = signals.check(Fixtures.DROP);
        POOL.give(fixture);
    }
}
