package org.ysuite.jcstress;

import jnr.ffi.Pointer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.YSocketPair;

import java.util.concurrent.ConcurrentLinkedQueue;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YSocketPair (eventfd kind), owner starting busy: the same race as
 * {@link YSocketPairIdleArmVsSignal}; forbidden is an unconsumed id behind a not-ready fd.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "check took the signal; no wake-up left")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "check found nothing and re-armed; the signal made fd readable")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "check took the signal; its wake-up stays (spurious wake-up, allowed)")
@Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: id fired and unconsumed, owner armed, fd not readable")
@Outcome(expect = FORBIDDEN, desc = "signal lost or taken twice")
@State
public class YSocketPairEventfdIdleArmVsSignal {

    private static final ConcurrentLinkedQueue<YSocketPair> POOL = new ConcurrentLinkedQueue<>();

    private final YSocketPair signals;
    private final Pointer pollfd = Readiness.pollfd();

    /** Takes a signaler from the pool; leaves the owner busy, not armed. */
    public YSocketPairEventfdIdleArmVsSignal() {
        YSocketPair s = POOL.poll();
        signals = s != null ? s : new YSocketPair(YSocketPair.Kind.EVENTFD);
        while (signals.check(id -> { }) != 0) {
            // drain leftovers; the last check armed the descriptor
        }
        signals.signal(3); // armed: this writes the wake-up
        signals.check(id -> { }); // reads it back, takes id 3: the owner is busy (IDLE), not armed
    }

    @Actor
    public void signaller() {
        signals.signal(7);
    }

    @Actor
    public void owner(III_Result r) {
        r.r1 = signals.check(id -> { });
    }

    @Arbiter
    public void poller(III_Result r) {
        r.r2 = Readiness.readable(pollfd, signals.fd());
        r.r3 = signals.check(id -> { });
        POOL.offer(signals);
    }
}
