package org.ysuite;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.LongSupplier;

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
 * An adaptive policy reads the clock in {@link #parked()} and again at the start of the next
 * wait ({@link #spins()}), and so learns how long the park lasted without any help from the
 * code that parks; a wait that ends in its spin reads no clock.
 *
 * <p>The policies:
 * <ul>
 *   <li>{@link #adaptive()}, the default ({@link #defaultPolicy()}): spins up to
 *       {@value #DEFAULT_SPINS} rounds (a few microseconds on current x86 parts) while spinning
 *       pays off, and judges each wait that parked by how long it slept. A long sleep (longer
 *       than a park/unpark round trip: the traffic's own gap, as in sparse traffic) halves the
 *       spin, so a run of them takes it to zero and sparse traffic costs no spinning CPU (see
 *       {@code docs/performance.md}, "Sparse traffic"). A short sleep (the
 *       event came as soon as a wake-up could bring it: a ping-pong whose peer was asleep too)
 *       grows the spin again, so two peers that both use it and have both been parking (at
 *       start-up, after a pause) get back to spinning instead of paying a wake-up per
 *       message;</li>
 *   <li>{@link #spinThenPark(int)}: a fixed number of rounds, whatever the traffic: spinning
 *       CPU on every wait that parks;</li>
 *   <li>{@link #purePark()}: no spin at all; the seed's "worst case" measures it.</li>
 * </ul>
 *
 * <p>A policy is used by the one thread that waits on the object it was given to (a pipe's
 * reader, a signaler's owner). The fixed policies are immutable and may be shared freely; an
 * adaptive policy, the default among them, keeps a hint of recent waits in plain fields, so give
 * each waiting side its own: {@link #defaultPolicy()} and {@link #adaptive()} return a new one
 * each time, and {@link #newState()} returns, for any policy, one of the same kind with the
 * state of a waiter that has not waited yet (the policy itself when it keeps no state). A
 * component that makes waiters of its own, one per writer thread say, takes one policy from its
 * user and gives each waiter {@code policy.newState()}. A shared adaptive policy stays correct
 * (its spin stays within its maximum); it only adapts to the mix of its waiters, and times their
 * parks against each other's.
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

    /** The most spin rounds of the default policy before a wait parks. */
    public static final int DEFAULT_SPINS = 200;

    private static final WaitPolicy PURE_PARK = new SpinThenPark(0);

    /** Only the policies of this package: the waits depend on their contract. */
    WaitPolicy() {
    }

    /**
     * Returns a new default policy: {@link #adaptive()}, which spins at most
     * {@value #DEFAULT_SPINS} rounds, and none while the waits it parks in are long (sparse
     * traffic).
     *
     * @return a new policy, for one waiting side
     */
    public static WaitPolicy defaultPolicy() {
        return adaptive();
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
        return spins == 0 ? PURE_PARK : new SpinThenPark(spins);
    }

    /**
     * Returns a new adaptive policy that spins at most {@value #DEFAULT_SPINS} rounds.
     *
     * @return a new policy, for one waiting side
     */
    public static WaitPolicy adaptive() {
        return new AdaptiveSpin(DEFAULT_SPINS, AdaptiveSpin.NANO_TIME);
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
        return new AdaptiveSpin(maxSpins, AdaptiveSpin.NANO_TIME);
    }

    /**
     * Returns a policy of the same kind for one more waiting side, with the state of a waiter
     * that has not waited yet: a policy that keeps no state ({@link #purePark()},
     * {@link #spinThenPark(int)}) returns itself; an adaptive one ({@link #defaultPolicy()},
     * {@link #adaptive(int)}) returns a new adaptive policy with the same maximum. Cheap, but it
     * may allocate: call it when a waiter is made (a writer thread's first use, a reader's
     * construction), never on a wait's path.
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
     * Tells the policy that a wait spun its whole limit and is going to park. An adaptive policy
     * reads the clock here, and again when the next wait on this policy starts ({@link #spins()}),
     * to learn how long the wait slept.
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
     * Spins while spinning pays or could pay, and stops spinning while the waits it parks in are
     * long. A wait that caught its event while spinning doubles the limit (up to the maximum, and
     * at least twice the rounds it took). A wait that parked is judged by how long it slept, timed
     * from {@link #parked()} to the start of the next wait (the clock is read on the parking path
     * only, where a park and an unpark cost microseconds anyway; a wait that ends in its spin
     * reads no clock):
     * <ul>
     *   <li>shorter than {@link #SHORT_PARK_NANOS}: the event came about as soon as a wake-up
     *       could bring it, so what kept the waiter waiting was most likely the wake-ups
     *       themselves (a ping-pong whose peer was asleep too): spinning would have removed
     *       them, so the limit doubles as after a paying spin, and a limit at zero comes back;</li>
     *   <li>longer: the gap is the traffic's own (sparse traffic), and no spin shorter than it
     *       can pay: the limit halves, down to zero.</li>
     * </ul>
     * Doubling and halving alike, the limit follows the majority of the parks: sparse traffic
     * whose timing jitters (a loaded host delays some wake-ups, so that some parks end early)
     * still settles at zero as long as most of its parks are long, and an odd long park among
     * paying spins (a descheduled peer, a pause of the sender) costs one wait at half the spin.
     */
    static final class AdaptiveSpin extends WaitPolicy {
        /**
         * A park shorter than this counts as short (see the class comment). Two threads that
         * wake each other by park/unpark, both asleep, take 35-43 us per round trip on the
         * virtualised x86 hosts this was tuned on (a few us on bare metal, or while the host's
         * cores are busy), and the time measured here adds the waiter's own work between waking
         * and its next wait (a reply, an unpark: a few us more). 10^4 messages a second leave
         * 100 us between messages. 60 us lies between the two: a ping-pong of sleeping peers
         * keeps or regains its spin, paced traffic of 10^4 messages a second or sparser loses it.
         */
        static final long SHORT_PARK_NANOS = 60_000L;
        /** The clock of production use. */
        static final LongSupplier NANO_TIME = System::nanoTime;

        private final int maxSpins;
        /** {@link System#nanoTime()}, or a test's clock. */
        private final LongSupplier clock;
        /** Plain fields: written and read by the one waiting thread; a racy read is only a hint. */
        private int limit;
        /** Whether the last wait parked and its sleep is still to be timed by the next wait. */
        private boolean parkPending;
        /** The clock when the last wait parked, if {@link #parkPending}. */
        private long parkedAt;

        AdaptiveSpin(int maxSpins, LongSupplier clock) {
            this.maxSpins = maxSpins;
            this.clock = clock;
            this.limit = maxSpins;
        }

        @Override
        int spinLimit() {
            if (parkPending) {
                parkPending = false;
                limit = clock.getAsLong() - parkedAt < SHORT_PARK_NANOS ? grown(limit) : limit >>> 1;
            }
            return limit;
        }

        @Override
        int maxSpins() {
            return maxSpins;
        }

        @Override
        public WaitPolicy newState() {
            return new AdaptiveSpin(maxSpins, clock);
        }

        @Override
        public void spun(int rounds) {
            // The spin paid off: spin twice as long next time, and at least twice as long as it
            // took, up to the maximum.
            limit = grown(Math.max(limit, rounds));
        }

        @Override
        public void parked() {
            parkedAt = clock.getAsLong();
            parkPending = true;
        }

        /** Twice {@code rounds} and one, at most the maximum (long arithmetic: no overflow). */
        private int grown(int rounds) {
            return (int) Math.min(maxSpins, 2L * rounds + 1);
        }

        @Override
        public String toString() {
            return "WaitPolicy.adaptive(" + maxSpins + ")";
        }
    }
}
