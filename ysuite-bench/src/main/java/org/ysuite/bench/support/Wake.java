package org.ysuite.bench.support;

import java.io.Closeable;
import java.io.IOException;
import java.util.function.IntConsumer;
import org.ysuite.Signaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;
import org.ysuite.YSocketPair;

/**
 * One y-suite signaler seen from both sides: the writer's {@link #signal()} and the owner's
 * {@link #await()}, each done the way a user of that signaler would (YSemaphore.await,
 * YPollset.poll, YSocketPair.poll).
 */
public abstract class Wake implements Closeable {

    /** Signaler kinds a benchmark {@code @Param} may name. */
    public static final String SEMAPHORE = "semaphore";
    /** YPollset. */
    public static final String POLLSET = "pollset";
    /** YSocketPair over a socketpair. */
    public static final String SOCKETPAIR = "socketpair";
    /** YSocketPair over an eventfd. */
    public static final String EVENTFD = "eventfd";

    /**
     * The waiting policy a benchmark's {@code spin} parameter names: {@code 0} is
     * {@link WaitPolicy#purePark()}, {@link WaitPolicy#DEFAULT_SPINS} a new
     * {@link WaitPolicy#defaultPolicy() default} policy (adaptive: it spins at most that many
     * rounds), any other positive count a fixed spin of that many rounds, and a negative one,
     * {@code -n}, a fixed spin of {@code n} rounds ({@code -200}: the default's most rounds on
     * every wait, to compare with the default).
     *
     * @param spin the parameter
     * @return the policy, a new one where it keeps state
     */
    public static WaitPolicy policy(int spin) {
        if (spin == WaitPolicy.DEFAULT_SPINS) {
            return WaitPolicy.defaultPolicy();
        }
        return WaitPolicy.spinThenPark(Math.abs(spin));
    }

    /**
     * Creates the named signaler.
     *
     * @param kind one of the constants of this class
     * @param spin its owner's {@link #policy(int) waiting policy}, as a spin count
     * @return the signaler
     */
    public static Wake create(String kind, int spin) {
        WaitPolicy policy = policy(spin);
        switch (kind) {
            case SEMAPHORE:
                return new Semaphore(new YSemaphore(policy));
            case POLLSET:
                return new Pollset(new YPollset(policy));
            case SOCKETPAIR:
                return new SocketPair(new YSocketPair(YSocketPair.Kind.SOCKETPAIR, policy));
            case EVENTFD:
                return new SocketPair(new YSocketPair(YSocketPair.Kind.EVENTFD, policy));
            default:
                throw new IllegalArgumentException("unknown signaler: " + kind);
        }
    }

    /** Fires the signal (writer side: after a flush that found the reader asleep). */
    public abstract void signal();

    /**
     * Waits for the signal (owner side: after a read that found the pipe empty).
     *
     * @throws InterruptedException when the benchmark stops
     */
    public abstract void await() throws InterruptedException;

    /**
     * Returns the underlying signaler.
     *
     * @return the signaler
     */
    public abstract Signaler signaler();

    @Override
    public void close() throws IOException {
    }

    private static final class Semaphore extends Wake {
        private final YSemaphore s;

        Semaphore(YSemaphore s) {
            this.s = s;
        }

        @Override
        public void signal() {
            s.signal(0);
        }

        @Override
        public void await() throws InterruptedException {
            s.await();
        }

        @Override
        public Signaler signaler() {
            return s;
        }
    }

    private static final class Pollset extends Wake {
        private final YPollset s;

        Pollset(YPollset s) {
            this.s = s;
        }

        @Override
        public void signal() {
            s.signal(0);
        }

        @Override
        public void await() throws InterruptedException {
            s.poll();
        }

        @Override
        public Signaler signaler() {
            return s;
        }
    }

    private static final class SocketPair extends Wake {
        private static final IntConsumer IGNORE = id -> { };
        private final YSocketPair s;

        SocketPair(YSocketPair s) {
            this.s = s;
        }

        @Override
        public void signal() {
            s.signal(0);
        }

        @Override
        public void await() throws InterruptedException {
            s.poll(IGNORE);
        }

        @Override
        public Signaler signaler() {
            return s;
        }

        @Override
        public void close() throws IOException {
            s.close();
        }
    }
}
