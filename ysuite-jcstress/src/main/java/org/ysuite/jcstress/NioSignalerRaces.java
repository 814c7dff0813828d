package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.NioSignaler;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress races of {@link org.ysuite.NioSignaler}, one nested test per race (run one with
 * {@code -t NioSignalerRaces.Name}, all of them with {@code -t NioSignalerRaces}).
 */
public final class NioSignalerRaces {

    private NioSignalerRaces() {
    }

    /**
     * The NIO bridge ({@link NioSignaler}): {@code signal(7)} racing the owner's drain-and-re-arm.
     * r2 = 1 if the owner's {@link java.nio.channels.Selector} ({@code selectNow}) finds the channel readable. Forbidden
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
    public static class ArmVsSignal extends Fixtures.ArmRace<Fixtures.Nio> {

        private static final DescriptorPool<Fixtures.Nio> POOL = new DescriptorPool<>(ArmVsSignal.class, Fixtures.Nio::new);

        /** Leases a clean signaler, armed as after a check that found nothing (see {@link DescriptorPool}). */
        public ArmVsSignal() {
            super(POOL, f -> f.signals, false);
        }

        @Actor
        public void signaller() {
            fire();
        }

        @Actor
        public void owner(III_Result r) {
            drain(r);
        }

        @Arbiter
        public void poller(III_Result r) {
            probe(r);
        }
    }

    /**
     * The NIO bridge ({@link NioSignaler}), owner starting busy (not armed): {@code signal(7)} racing
     * the owner's check that finds nothing and arms the channel.
     * r2 = 1 if the owner's {@link java.nio.channels.Selector} ({@code selectNow}) finds the channel readable. Forbidden
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
    public static class IdleArmVsSignal extends Fixtures.ArmRace<Fixtures.Nio> {

        private static final DescriptorPool<Fixtures.Nio> POOL = new DescriptorPool<>(IdleArmVsSignal.class, Fixtures.Nio::new);

        /** Leases a clean, armed signaler (see {@link DescriptorPool}); leaves the owner busy, not armed. */
        public IdleArmVsSignal() {
            super(POOL, f -> f.signals, true);
        }

        @Actor
        public void signaller() {
            fire();
        }

        @Actor
        public void owner(III_Result r) {
            drain(r);
        }

        @Arbiter
        public void poller(III_Result r) {
            probe(r);
        }
    }
}
