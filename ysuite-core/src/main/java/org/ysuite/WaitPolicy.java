package org.ysuite;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * How long a waiting thread spins before it goes to sleep: every wait in ysuite (a pipe's reader
 * about to sleep, a signaler's owner, an off-heap writer waiting for space) asks its policy.
 *
 * <p>Spinning pays when the awaited event comes within a few microseconds: the waiter sees it
 * without the cost of a park and an unpark on both sides (and, for a pipe, without going asleep,
 * so the writer's flush needs no signal at all). Spinning costs a core while it lasts, so a
 * policy bounds it. The caller's loop, as every ysuite wait writes it:
 * <pre>{@code
 * int limit = policy.spins();            // rounds this wait may spin
 * int round = 0;
 * while (!ready() && round < limit) {
 *     Thread.onSpinWait();
 *     round++;
 * }
 * if (ready()) {
 *     policy.spun(round);                 // the spin paid off after `round` rounds
 *     return;
 * }
 * policy.parked();                        // it did not: announce sleep, then park
 * ... publish "asleep", park until signalled ...
 * }</pre>
 *
 * <p>The policies:
 * <ul>
 *   <li>{@link #spinThenPark(int)}: a fixed number of rounds; the default is
 *       {@value #DEFAULT_SPINS} ({@link #defaultPolicy()}), a few microseconds on current x86
 *       parts;</li>
 *   <li>{@link #purePark()}: no spin at all; the seed's "worst case" measures it;</li>
 *   <li>{@link #adaptive()}: spins up to {@value #DEFAULT_SPINS} rounds while spinning pays off
 *       or nearly does, and shrinks its spin to zero while waits keep ending in long parks, so
 *       sparse traffic costs no spinning CPU (see {@code docs/performance.md}, "Sparse traffic").
 *       It is not the default because of a ping-pong whose two peers both use it: once both
 *       have parked a few times in a row (at start-up, after a pause), each reply needs a
 *       wake-up, which takes longer than any spin, both spins shrink to zero and the pair stays
 *       asleep, at the park/unpark round trip instead of the spin's. A fixed spin on either side
 *       gets the pair back to spinning.</li>
 * </ul>
 *
 * <p>A policy is used by the one thread that waits on the object it was given to (a pipe's
 * reader, a signaler's owner). The fixed policies are immutable and may be shared freely; an
 * adaptive policy keeps a hint of recent waits in plain fields, so give each waiting side its
 * own: {@link #adaptive()} returns a new one each time, and {@link #newState()} returns, for any
 * policy, one of the same kind with the state of a waiter that has not waited yet (the policy
 * itself when it keeps no state). A component that makes waiters of its own, one per writer
 * thread say, takes one policy from its user and gives each waiter {@code policy.newState()}. A
 * shared adaptive policy stays correct; it only adapts to the mix of its waiters.
 *
 * <h2>Virtual threads</h2>
 * Every policy knows where it runs: when the waiting thread is a virtual thread (JDK 21+),
 * {@link #spins()} returns at most {@link #virtualThreadSpins()} rounds, {@code 0} unless the
 * system property {@value #VIRTUAL_THREAD_SPINS_PROPERTY} says otherwise. A virtual thread spins
 * on a carrier that other virtual threads are waiting for, and what it spins for usually needs one
 * of them to run; parking unmounts it and frees the carrier at once. A platform thread keeps the
 * policy's own spin. Every ysuite wait parks with {@link java.util.concurrent.locks.LockSupport},
 * so it unmounts a virtual thread instead of pinning its carrier (see {@code docs/virtual-threads.md}).
 *
 * <p>The library targets release 17, where {@code Thread.isVirtual()} does not exist: this class
 * looks it up once, as a {@link MethodHandle}, when it is initialised. On a JDK without it every
 * thread counts as a platform thread; on JDK 21+ the check costs a {@code Thread.currentThread()}
 * and one field read per wait (the handle is a constant the JIT inlines).
 */
public abstract class WaitPolicy {

    /**
     * The system property that sets {@link #virtualThreadSpins()}, read once when this class is
     * initialised: a number of rounds {@code >= 0}; absent, the cap is {@code 0}.
     */
    public static final String VIRTUAL_THREAD_SPINS_PROPERTY = "org.ysuite.virtualThreadSpins";

    /** {@code Thread::isVirtual} as {@code (Thread)boolean}, or null before JDK 21. */
    private static final MethodHandle IS_VIRTUAL = findIsVirtual();
    private static final int VIRTUAL_THREAD_SPINS = readVirtualThreadSpins();

    /** Spin rounds of the default policy before a wait parks. */
    public static final int DEFAULT_SPINS = 200;

    private static final WaitPolicy PURE_PARK = new SpinThenPark(0);
    private static final WaitPolicy DEFAULT = new SpinThenPark(DEFAULT_SPINS);

    /** Only the policies of this package: the waits depend on their contract. */
    WaitPolicy() {
    }

    /**
     * Returns the default policy: {@link #spinThenPark(int) spin} {@value #DEFAULT_SPINS} rounds,
     * then park.
     *
     * @return the shared default policy
     */
    public static WaitPolicy defaultPolicy() {
        return DEFAULT;
    }

    /**
     * Returns the policy that never spins: a wait that finds nothing goes to sleep at once.
     *
     * @return the shared pure-park policy
     */
    public static WaitPolicy purePark() {
        return PURE_PARK;
    }

    /**
     * Returns a policy that spins a fixed number of rounds, then parks.
     *
     * @param spins rounds of {@link Thread#onSpinWait()} before parking, {@code >= 0}; {@code 0}
     *     is {@link #purePark()}
     * @return the policy
     * @throws IllegalArgumentException if {@code spins} is negative
     */
    public static WaitPolicy spinThenPark(int spins) {
        if (spins < 0) {
            throw new IllegalArgumentException("spins must be >= 0: " + spins);
        }
        return spins == 0 ? PURE_PARK : spins == DEFAULT_SPINS ? DEFAULT : new SpinThenPark(spins);
    }

    /**
     * Returns a new adaptive policy that spins at most {@value #DEFAULT_SPINS} rounds.
     *
     * @return a new policy, for one waiting side
     */
    public static WaitPolicy adaptive() {
        return new AdaptiveSpin(DEFAULT_SPINS);
    }

    /**
     * Returns a new adaptive policy that spins at most {@code maxSpins} rounds.
     *
     * @param maxSpins the most rounds a wait spins, {@code >= 1}
     * @return a new policy, for one waiting side
     * @throws IllegalArgumentException if {@code maxSpins} is less than 1
     */
    public static WaitPolicy adaptive(int maxSpins) {
        if (maxSpins < 1) {
            throw new IllegalArgumentException("maxSpins must be >= 1: " + maxSpins);
        }
        return new AdaptiveSpin(maxSpins);
    }

    /**
     * Returns a policy of the same kind for one more waiting side, with the state of a waiter
     * that has not waited yet: a policy that keeps no state ({@link #defaultPolicy()},
     * {@link #purePark()}, {@link #spinThenPark(int)}) returns itself; an {@link #adaptive(int)}
     * one returns a new adaptive policy with the same maximum. Cheap, but it may allocate: call
     * it when a waiter is made (a writer thread's first use, a reader's construction), never on
     * a wait's path.
     *
     * @return a policy to be used by one waiting side
     */
    public abstract WaitPolicy newState();

    /**
     * Returns how many rounds the wait that starts now, on the calling thread, may spin before it
     * parks: the policy's own limit on a platform thread, at most {@link #virtualThreadSpins()} on
     * a virtual thread.
     *
     * @return the spin limit, {@code >= 0}
     */
    public final int spins() {
        int limit = spinLimit();
        return limit > VIRTUAL_THREAD_SPINS && isVirtual(Thread.currentThread())
                ? VIRTUAL_THREAD_SPINS : limit;
    }

    /**
     * Tells whether no wait under this policy on the calling thread ever spins: the policy never
     * does ({@link #purePark()}), or the thread is virtual and {@link #virtualThreadSpins()} is
     * {@code 0}. Unlike {@link #spins()} it starts no wait (an adaptive policy learns nothing).
     *
     * @return {@code true} if waits park at once
     */
    final boolean neverSpins() {
        return maxSpins() == 0 || VIRTUAL_THREAD_SPINS == 0 && isVirtual(Thread.currentThread());
    }

    /**
     * The policy's own limit for the wait that starts now, before the virtual-thread cap.
     *
     * @return rounds, {@code >= 0}
     */
    abstract int spinLimit();

    /**
     * Returns the most rounds any policy spins when the waiting thread is a virtual thread: the
     * value of {@value #VIRTUAL_THREAD_SPINS_PROPERTY}, or {@code 0} if it is not set.
     *
     * @return the cap, {@code >= 0}
     */
    public static int virtualThreadSpins() {
        return VIRTUAL_THREAD_SPINS;
    }

    /**
     * Tells whether {@code thread} is a virtual thread; always {@code false} before JDK 21.
     *
     * @param thread the thread to ask about
     * @return {@code true} if {@code thread} is virtual
     * @throws NullPointerException if {@code thread} is null
     */
    public static boolean isVirtual(Thread thread) {
        if (thread == null) {
            throw new NullPointerException("thread");
        }
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable t) {
            // Thread.isVirtual() is a plain getter that throws nothing; reaching this is a JDK bug.
            throw new IllegalStateException("Thread.isVirtual() failed", t);
        }
    }

    private static MethodHandle findIsVirtual() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException e) {
            return null; // JDK 17-20: no virtual threads, every thread is a platform thread
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static int readVirtualThreadSpins() {
        String value = System.getProperty(VIRTUAL_THREAD_SPINS_PROPERTY);
        if (value == null) {
            return 0;
        }
        int spins;
        try {
            spins = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(VIRTUAL_THREAD_SPINS_PROPERTY
                    + " must be an int >= 0: \"" + value + "\"", e);
        }
        if (spins < 0) {
            throw new IllegalArgumentException(VIRTUAL_THREAD_SPINS_PROPERTY + " must be >= 0: " + spins);
        }
        return spins;
    }

    /**
     * Tells the policy that a wait ended while spinning, after {@code rounds} rounds.
     *
     * @param rounds the rounds spun before the awaited event was seen
     */
    public void spun(int rounds) {
    }

    /**
     * Tells the policy that a wait spun its whole limit and is going to park.
     */
    public void parked() {
    }

    /** The most rounds a wait under this policy spins (0: it never spins). */
    abstract int maxSpins();

    /** A fixed spin, then park. */
    static final class SpinThenPark extends WaitPolicy {
        private final int spins;

        SpinThenPark(int spins) {
            this.spins = spins;
        }

        @Override
        int spinLimit() {
            return spins;
        }

        @Override
        int maxSpins() {
            return spins;
        }

        @Override
        public WaitPolicy newState() {
            return this; // immutable: one instance serves every waiter
        }

        @Override
        public String toString() {
            return spins == 0 ? "WaitPolicy.purePark()" : "WaitPolicy.spinThenPark(" + spins + ")";
        }
    }

    /**
     * Spins as long as spinning recently paid off: a wait that caught its event while spinning
     * doubles the limit (up to the maximum, and at least twice the rounds it took); every
     * {@value #PARKS_PER_HALVING}th park in a row halves it, down to zero, so a run of parks
     * (sparse traffic) soon costs no spinning at all while an odd park among paying spins (a
     * descheduled peer, a pause of the sender) costs nothing. A zero limit is tried again every
     * {@value #PROBE_EVERY} waits with one full spin, so a stream that becomes dense again is
     * noticed.
     */
    static final class AdaptiveSpin extends WaitPolicy {
        static final int PROBE_EVERY = 64;
        static final int PARKS_PER_HALVING = 4;
        private final int maxSpins;
        /** Plain fields: written and read by the one waiting thread; a racy read is only a hint. */
        private int limit;
        private int parksInARow;
        private int parksAtZero;

        AdaptiveSpin(int maxSpins) {
            this.maxSpins = maxSpins;
            this.limit = maxSpins;
        }

        @Override
        int spinLimit() {
            int l = limit;
            if (l == 0 && ++parksAtZero >= PROBE_EVERY) {
                parksAtZero = 0;
                return maxSpins;
            }
            return l;
        }

        @Override
        int maxSpins() {
            return maxSpins;
        }

        @Override
        public WaitPolicy newState() {
            return new AdaptiveSpin(maxSpins);
        }

        @Override
        public void spun(int rounds) {
            // The spin paid off: spin twice as long next time, and at least twice as long as it
            // took, up to the maximum (long arithmetic: no overflow near Integer.MAX_VALUE).
            parksInARow = 0;
            limit = (int) Math.min(maxSpins, 2L * Math.max(limit, rounds) + 1);
        }

        @Override
        public void parked() {
            if (++parksInARow >= PARKS_PER_HALVING) {
                parksInARow = 0;
                limit >>>= 1;
            }
        }

        @Override
        public String toString() {
            return "WaitPolicy.adaptive(" + maxSpins + ")";
        }
    }
}
