package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.NioSignaler;

import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The NIO bridge ({@link NioSignaler}), owner starting busy (not armed): {@code signal(7)} racing
 * the owner's check that finds nothing and arms the channel.
 * r2 = 1 if the owner's {@link Selector} ({@code selectNow}) finds the channel readable. Forbidden
 * is the lost wake-up: the owner armed (its check found nothing, it would now block in
 * {@code select()}), id 7 unconsumed, and the channel not ready.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "check took the signal; no wake-up left")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "check found nothing and re-armed; the signal made the channel readable")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "check took the signal; its wake-up stays (spurious wake-up, allowed)")
@Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: id fired and unconsumed, owner armed, channel not readable")
@Outcome(expect = FORBIDDEN, desc = "signal lost or taken twice")
@State
public class NioSignalerIdleArmVsSignal {

    /** A signaler and the selector its channel is registered with, reused across rounds. */
    static final class Pair {
        final NioSignaler signals = new NioSignaler();
        final Selector selector = Readiness.selectorFor(signals.channel());
    }

    private static final ConcurrentLinkedQueue<Pair> POOL = new ConcurrentLinkedQueue<>();

    private final Pair pair;

    /** Takes a signaler from the pool; leaves the owner busy, not armed. */
    public NioSignalerIdleArmVsSignal() {
        Pair p = POOL.poll();
        pair = p != null ? p : new Pair();
        while (pair.signals.check(id -> { }) != 0) {
            // drain leftovers; the last check armed the channel
        }
        pair.signals.signal(3); // armed: this writes the wake-up
        pair.signals.check(id -> { }); // reads it back, takes id 3: the owner is busy (IDLE), not armed
    }

    @Actor
    public void signaller() {
        pair.signals.signal(7);
    }

    @Actor
    public void owner(III_Result r) {
        r.r1 = pair.signals.check(id -> { });
    }

    @Arbiter
    public void poller(III_Result r) {
        r.r2 = Readiness.readable(pair.selector);
        r.r3 = pair.signals.check(id -> { });
        POOL.offer(pair);
    }
}
