package org.ysuite.jcstress;

import jnr.ffi.Pointer;
import org.ysuite.NioSignaler;
import org.ysuite.PollableSignaler;
import org.ysuite.YSocketPair;

import java.nio.channels.Selector;
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

        SocketPair(YSocketPair.Kind kind, int spinIterations) {
            this.signals = new YSocketPair(kind, spinIterations);
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
