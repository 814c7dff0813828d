package org.ysuite.agrona;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.IdleStrategy;
import org.ysuite.shared.SharedSignalSender;
import org.ysuite.shared.SharedSignaler;

/**
 * An Agrona {@link IdleStrategy} that lets a duty-cycle loop (an Aeron {@code Subscription.poll}
 * loop, an Agrona {@code Agent}) sleep in the kernel, at no CPU, until a publisher in any process
 * rings a {@link SharedSignaler}'s doorbell ({@link SharedSignalSender#ring()} after its
 * {@code Publication.offer}).
 *
 * <p>When {@link #idle(int)} sees no work it spins ({@link Thread#onSpinWait()}) for
 * {@code spins} calls and yields for {@code yields} more (its budget); then one call <em>arms</em> the
 * doorbell (sets the signaler's sleep bit) and returns without sleeping, so that the loop polls its
 * work once more; the next call with no work sleeps in {@code FUTEX_WAIT} until a ring, a signal,
 * or {@code maxSleep} (so a lost ring or a dead publisher costs at most that, and correctness never
 * depends on every publisher ringing). Any call with work (or {@link #reset()}) disarms: while the
 * loop is busy a ring costs the publisher one load (a fence and a load where the kernel has no
 * {@code membarrier(2)}: {@link SharedSignalSender#ringsWithoutFence()}).
 *
 * <p>The default strategy ({@link #SharedSignalerIdleStrategy(SharedSignaler)}) <em>adapts</em>
 * its budget of spins and yields to the traffic, as the ysuite readers' waits do: a sleep that a
 * ring ends within {@value #SHORT_SLEEP_NANOS} ns (about one wake-up of a sleeping thread: a
 * longer spin would have caught the message) doubles the budget, from a quarter of the caps, up to
 * the caps; every fourth sleep in a row that lasted longer halves it, down to nothing (a stream
 * whose messages come further apart than the spin reaches, e.g. 10^4 a second, then costs one
 * wake-up per message and no spinning). The yields go first, then the spins. Only the sleeps are
 * timed ({@code nanoTime} before and after the futex), so a busy loop pays nothing for it.
 *
 * <p>Why no message is slept through: the arm is an atomic on the shared word (a full fence),
 * followed by a {@code membarrier} that fences every running thread of the publishers' processes,
 * then the loop polls; the publisher's {@code offer} stores the message, then {@code ring()} loads
 * the word (after its own fence, where there is no {@code membarrier}). Either the poll after the
 * arm sees the message, or the ring sees the sleep bit, clears it and wakes the sleeper;
 * {@code FUTEX_WAIT} compares the word in the kernel, so a ring between the arm and the sleep
 * makes the sleep return at once.
 *
 * <p>Stopping: {@link Thread#interrupt()}, which Agrona's {@code AgentRunner.close()} uses, does
 * not end a sleep in the futex, so a loop that sleeps sees its runner stopped when the sleep ends:
 * at the next ring or signal, or after {@code maxSleep}. {@code AgentRunner.close()} therefore
 * returns within {@code maxSleep} (1 s by default) of the loop's last sleep starting; with a long
 * {@code maxSleep}, have a sender ring once {@code close()} has begun.
 *
 * <p>One thread uses an instance (the loop's), as with every Agrona idle strategy. A signal id
 * fired on the signaler also ends a sleep; this strategy takes (and drops) such ids.
 */
public final class SharedSignalerIdleStrategy implements IdleStrategy {

    /** Spins before yielding, by default. */
    public static final int DEFAULT_SPINS = 100;
    /** Yields before arming, by default. */
    public static final int DEFAULT_YIELDS = 10;
    /**
     * The longest sleep by default: 1 s. Every ring and signal ends a sleep, so this bounds only
     * what a publisher that never rings costs; each timed-out sleep costs the idle loop a wake-up
     * (about 150 us of CPU on a 2-vCPU VM), so an idle loop spends about 0.015 % of a core here.
     */
    public static final long DEFAULT_MAX_SLEEP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * A sleep shorter than this (50 us: about one wake-up of a sleeping thread on a VM) means a
     * longer spin would have caught the ring: the adaptive budget grows.
     */
    public static final long SHORT_SLEEP_NANOS = 50_000;
    /** Long sleeps in a row that halve the adaptive budget. */
    static final int LONG_SLEEPS_TO_HALVE = 4;
    /** {@link #alias()}. */
    public static final String ALIAS = "ysuite-futex";

    private final SharedSignaler signaler;
    private final int spins;
    private final int yields;
    private final long maxSleepNanos;
    private final boolean adaptive;
    /** Idle steps (spins, then yields) before arming: {@code spins + yields} unless adaptive. */
    private int budget;
    private int longSleeps;
    private int idles;
    private boolean armed;
    private long sleeps;
    private volatile boolean sleeping;

    /**
     * The adaptive strategy with the defaults: at most 100 spins and 10 yields, sleeps of at most 1 s.
     *
     * @param signaler the signaler whose owner is this loop's process
     */
    public SharedSignalerIdleStrategy(SharedSignaler signaler) {
        this(signaler, DEFAULT_SPINS, DEFAULT_YIELDS, DEFAULT_MAX_SLEEP_NANOS, TimeUnit.NANOSECONDS, true);
    }

    /**
     * A strategy with a fixed budget and its longest sleep: every idle period spins {@code spins}
     * times and yields {@code yields} times before it arms.
     *
     * @param signaler the signaler whose owner is this loop's process
     * @param spins idle calls that spin before the first yield, {@code >= 0}
     * @param yields idle calls that yield before arming, {@code >= 0}
     * @param maxSleep the longest single sleep, {@code > 0}
     * @param unit its unit
     * @throws IllegalArgumentException if {@code spins} or {@code yields} is negative or
     *     {@code maxSleep} is not positive
     * @throws NullPointerException if {@code signaler} or {@code unit} is null
     */
    public SharedSignalerIdleStrategy(SharedSignaler signaler, int spins, int yields, long maxSleep, TimeUnit unit) {
        this(signaler, spins, yields, maxSleep, unit, false);
    }

    /**
     * A strategy with its budget, or the caps of an adaptive budget, and its longest sleep.
     *
     * @param signaler the signaler whose owner is this loop's process
     * @param spins idle calls that spin before the first yield (adaptive: at most), {@code >= 0}
     * @param yields idle calls that yield before arming (adaptive: at most), {@code >= 0}
     * @param maxSleep the longest single sleep, {@code > 0}
     * @param unit its unit
     * @param adaptive whether the budget adapts to the traffic (see the class comment) or stays fixed
     * @throws IllegalArgumentException if {@code spins} or {@code yields} is negative, their sum
     *     overflows an int, or {@code maxSleep} is not positive
     * @throws NullPointerException if {@code signaler} or {@code unit} is null
     */
    public SharedSignalerIdleStrategy(SharedSignaler signaler, int spins, int yields, long maxSleep, TimeUnit unit,
            boolean adaptive) {
        this.signaler = Objects.requireNonNull(signaler, "signaler");
        if (spins < 0 || yields < 0) {
            throw new IllegalArgumentException("spins and yields must be >= 0: " + spins + ", " + yields);
        }
        if (spins + yields < 0) {
            throw new IllegalArgumentException("spins + yields must be <= " + Integer.MAX_VALUE + ": " + spins
                    + " + " + yields);
        }
        if (maxSleep <= 0) {
            throw new IllegalArgumentException("maxSleep must be > 0: " + maxSleep + " " + unit);
        }
        this.spins = spins;
        this.yields = yields;
        this.maxSleepNanos = unit.toNanos(maxSleep);
        this.adaptive = adaptive;
        this.budget = spins + yields;
    }

    /**
     * Idles after a duty cycle that did {@code workCount} units of work: resets on work, else
     * spins, yields, arms (and returns at once, for one more poll), then sleeps.
     *
     * @param workCount the work done in the last cycle
     */
    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    /** One idle step with no work: spin, yield, arm, or sleep, by how long the loop has idled. */
    @Override
    public void idle() {
        if (idles < budget) {
            if (idles++ < spins) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        } else if (!armed) {
            armed = signaler.armSleep();
            if (!armed) {
                signaler.check(); // an id was fired: a wake-up like a ring; poll again
            }
        } else {
            armed = false;
            sleeping = true;
            long start = adaptive ? System.nanoTime() : 0;
            try {
                if (signaler.sleepIfArmed(maxSleepNanos)) {
                    sleeps++;
                }
            } finally {
                sleeping = false;
            }
            if (adaptive) {
                afterSleep(System.nanoTime() - start);
            }
        }
    }

    /**
     * Adapts the budget to a sleep of {@code nanos} (the adaptive strategy's only input).
     *
     * @param nanos how long the sleep took, its wake-up included
     */
    void afterSleep(long nanos) {
        int cap = spins + yields;
        if (nanos < SHORT_SLEEP_NANOS) {
            longSleeps = 0;
            budget = (int) Math.min(cap, Math.max(Math.max(1, cap / 4), 2L * budget));
        } else if (++longSleeps >= LONG_SLEEPS_TO_HALVE) {
            longSleeps = 0;
            budget /= 2;
        }
    }

    /**
     * Returns the idle steps (spins, then yields) an idle period takes now before it arms.
     *
     * @return {@code spins + yields} for a fixed strategy; for an adaptive one, between 0 and that
     *     (read it on the loop's thread: a plain field)
     */
    public int budget() {
        return budget;
    }

    /**
     * Tells whether the budget adapts to the traffic.
     *
     * @return {@code true} for the default strategy and {@code adaptive} true
     */
    public boolean isAdaptive() {
        return adaptive;
    }

    /** Starts the budget again and disarms (a publisher's ring is a load again). */
    @Override
    public void reset() {
        idles = 0;
        if (armed) {
            armed = false;
            signaler.disarm();
        }
    }

    /**
     * Returns {@value #ALIAS}.
     *
     * @return the alias
     */
    @Override
    public String alias() {
        return ALIAS;
    }

    /**
     * Returns how many times the loop slept in the futex (woken or timed out).
     *
     * @return the count (read it on the loop's thread, or after it ended, to be exact)
     */
    public long sleeps() {
        return sleeps;
    }

    /**
     * Tells whether the loop's thread is inside its futex sleep now (set just before it, cleared
     * just after): for tests and monitoring.
     *
     * @return {@code true} while sleeping
     */
    public boolean isSleeping() {
        return sleeping;
    }

    /**
     * Tells whether the last idle call armed the doorbell (the next one with no work sleeps).
     *
     * @return {@code true} if armed (read it on the loop's thread: a plain field)
     */
    public boolean isArmed() {
        return armed;
    }

    /**
     * Returns the signaler this strategy sleeps on.
     *
     * @return the signaler
     */
    public SharedSignaler signaler() {
        return signaler;
    }

    @Override
    public String toString() {
        return "SharedSignalerIdleStrategy{spins=" + spins + ", yields=" + yields + ", adaptive=" + adaptive
                + ", budget=" + budget + ", maxSleepNanos=" + maxSleepNanos + ", sleeps=" + sleeps + "}";
    }
}
