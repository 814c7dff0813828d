package org.ysuite.jcstress;

import jnr.ffi.Pointer;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.NioSignaler;
import org.ysuite.PollableSignaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YSocketPair;

import java.nio.channels.Selector;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * The descriptor-backed signalers the races lease from a {@link DescriptorPool}, each with the
 * probe that asks whether its wake-up is ready the way a native poller or a selector would.
 */
final class Fixtures {

    /** Throws the ids away. */
    static final IntConsumer DROP = id -> { };

    private Fixtures() {
    }

    /**
     * Drains {@code signals} until a check finds nothing (so the signaler is armed, any wake-up
     * left by the previous sample read back) and proves it: a descriptor still readable then is
     * a fixture that cannot be trusted.
     *
     * @param signals the signaler
     * @param fixture its fixture, whose probe is asked
     * @param what the fixture, for the message
     */
    static void drainArmed(PollableSignaler signals, Probe fixture, String what) {
        while (signals.check(DROP) != 0) {
            // the previous sample's ids
        }
        if (fixture.readable() != 0) {
            throw new IllegalStateException(what + ": still readable after a drain that armed it");
        }
    }

    /**
     * The shared state of the arm-versus-signal races ({@link YSocketPairRaces}, {@link NioSignalerRaces}):
     * a signaler leased from {@code pool}, left armed (as after a check that found nothing, the state
     * before the owner sleeps in poll(2) or a selector) or with the owner busy (its last check took an
     * id, so the descriptor is not armed). The races' actors are {@link #fire} ({@code signal(7)})
     * against the owner's {@link #drain} ({@code check}); the arbiter {@link #probe} asks the descriptor
     * (r2) and takes what is left (r3), then gives the fixture back.
     *
     * @param <F> the fixture
     */
    abstract static class ArmRace<F extends DescriptorPool.Fixture & Probe> {
        private final DescriptorPool<F> pool;
        private final F fixture;
        private final PollableSignaler signals;

        ArmRace(DescriptorPool<F> pool, Function<F, PollableSignaler> signalsOf, boolean ownerBusy) {
            this.pool = pool;
            fixture = pool.take(this);
            signals = signalsOf.apply(fixture);
            if (ownerBusy) {
                signals.signal(3); // armed: this writes the wake-up
                signals.check(DROP); // reads it back, takes id 3: the owner is busy (IDLE), not armed
            }
        }

        /** The signaller's side. */
        final void fire() {
            signals.signal(7);
        }

        /** The owner's side: r1 = the ids its check took. */
        final void drain(III_Result r) {
            r.r1 = signals.check(DROP);
        }

        /** The arbiter: r2 = 1 if the descriptor polls readable, r3 = the ids left; returns the fixture. */
        final void probe(III_Result r) {
            r.r2 = fixture.readable();
            r.r3 = signals.check(DROP);
            pool.give(fixture);
        }
    }

    /** Something whose wake-up can be asked about without consuming it. */
    interface Probe {
        /**
         * Asks the descriptor, with a zero timeout.
         *
         * @return 1 if readable now, else 0
         */
        int readable();
    }

    /** A {@link YSocketPair} and a struct pollfd to ask about its {@code fd()}. */
    static final class SocketPair implements DescriptorPool.Fixture, Probe {
        final YSocketPair signals;
        /** Used by one arbiter (or reset) at a time: the pool hands the fixture to one state. */
        private final Pointer pollfd = Readiness.pollfd();

        SocketPair(YSocketPair.Kind kind) {
            this.signals = new YSocketPair(kind);
        }

        SocketPair(YSocketPair.Kind kind, WaitPolicy policy) {
            this.signals = new YSocketPair(kind, policy);
        }

        @Override
        public int readable() {
            return Readiness.readable(pollfd, signals.fd());
        }

        @Override
        public void reset() {
            drainArmed(signals, this, signals.toString());
        }
    }

    /** A {@link NioSignaler} and the selector its channel is registered with. */
    static final class Nio implements DescriptorPool.Fixture, Probe {
        final NioSignaler signals = new NioSignaler();
        private final Selector selector = Readiness.selectorFor(signals.channel());

        @Override
        public int readable() {
            return Readiness.readable(selector);
        }

        @Override
        public void reset() {
            drainArmed(signals, this, "NioSignaler");
        }
    }
}
