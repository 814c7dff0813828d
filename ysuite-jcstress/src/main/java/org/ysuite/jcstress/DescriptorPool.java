package org.ysuite.jcstress;

import java.lang.ref.WeakReference;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The file-descriptor-backed fixtures of one race (a YSocketPair, a NioSignaler and its selector,
 * a mailbox over a YSocketPair), at most {@link #LIMIT} of them open in a forked VM, whatever the
 * jcstress mode and options.
 *
 * <h2>What jcstress 0.16 does with test states</h2>
 * The runner that jcstress 0.16's annotation processor generates for a race
 * ({@code JCStressTestProcessor}) keeps a whole epoch of states alive at once:
 * <ol>
 *   <li>{@code internalRun} allocates {@code strideSize x strideCount} states up front
 *       (256 x 40 = 10240 by default, in every mode but sanity);</li>
 *   <li>every actor runs its method over all of them, stride by stride, and only then the
 *       arbiters of the whole epoch run, each actor thread then replacing the states of its
 *       share of the array with new ones ({@code ls[c] = new State()} right after
 *       {@code arbiter(ls[c])});</li>
 *   <li>before that, {@code sanityCheck} sizes the epoch: {@code ForkedTestConfig.adjustStrideCount}
 *       calls {@code runWith(count)} for count = 1, 2, 3, ... (x 1.2 each step, five times each),
 *       which constructs {@code count} fresh states, runs the actors and the arbiters over them,
 *       and stops growing at the first count that takes longer than the iteration time, allocates
 *       more than the footprint limit, or <em>throws {@link OutOfMemoryError}</em> (the one
 *       exception it catches: "this many states do not fit"). The epoch is then that count.</li>
 * </ol>
 * A state that owns its descriptors therefore holds them for a whole epoch: 10240 socketpairs
 * (20480 descriptors), 10240 NIO pipes with selectors (40000+), past any usual limit. Returning
 * them to a pool in the arbiter does not help, since no arbiter runs before every state of the
 * epoch has been constructed; and sharing one signaler between live states would let two samples
 * race on the same signaler, which is no longer the race under test.
 *
 * <h2>The design</h2>
 * Each state takes a fixture in its constructor and gives it back in its arbiter, so a sample
 * owns its fixture exclusively from before its actors run until its arbiter is done. The pool opens
 * at most {@link #LIMIT} fixtures. When a state asks for one more, the pool throws
 * {@link OutOfMemoryError}: that happens only while jcstress sizes the epoch ({@code runWith}),
 * which catches it and settles on the last count that fit (at most {@code LIMIT}, e.g. 126 states: one
 * stride of 126). So jcstress itself bounds the epoch by the descriptors, as it bounds it by the
 * heap for ordinary states; nothing depends on {@code -strideSize}/{@code -strideCount} or on a
 * raised {@code ulimit -n}.
 *
 * <p>The states built by that failed {@code runWith} before the throw are dropped by jcstress
 * without their arbiters: their fixtures would be lost. The pool keeps a weak reference to the
 * state holding each leased fixture; when it runs out, it collects garbage and takes back the
 * fixtures whose holder is gone. That is safe: an unreachable state can no longer be touched by an
 * actor or an arbiter. (So the suite needs {@code System.gc()} to work: do not run it with
 * {@code -XX:+DisableExplicitGC}; if it does not, the run ends with this class's
 * {@code OutOfMemoryError} as a test error, never with a silent leak.)
 *
 * <h2>No sample inherits anything from the previous one</h2>
 * Every {@link #take} resets the fixture ({@link Fixture#reset}): it drains what the previous
 * sample left (bits, an outstanding wake-up, messages), leaves the signaler armed with nothing
 * pending, and then <em>proves</em> it clean by asking the descriptor (poll(2) or selectNow): a
 * fixture still readable after the drain is an {@link IllegalStateException}, a test error.
 * Each race's constructor then builds its own starting point from that clean, armed fixture.
 *
 * <h2>Threads</h2>
 * Constructors run on jcstress's main thread (the epoch's first states, the sizing runs) and on
 * the actor threads (the states replaced after each epoch, several threads at once); arbiters on
 * the actor threads. Both methods are {@code synchronized}: the lock orders a fixture's last use
 * in an arbiter (then {@link #give}) before its next use after {@link #take} on any thread. It
 * is never taken inside an actor, so it does not touch the races themselves.
 *
 * @param <T> the fixture type
 */
final class DescriptorPool<T extends DescriptorPool.Fixture> {

    /** A pooled, descriptor-backed fixture. */
    interface Fixture {
        /**
         * Drains what the previous sample left and proves the fixture clean: armed, nothing
         * pending, its descriptor not readable.
         *
         * @throws IllegalStateException if the fixture cannot be brought back clean
         */
        void reset();
    }

    /**
     * Fixtures open at once per race and VM: at most 128 x 5 = 640 descriptors (a NioSignaler
     * with its selector, the heaviest fixture, holds 4 on JDK 17 and 5 on JDK 25), within the
     * common soft limit of 1024 descriptors per process with room for the JVM's own.
     */
    static final int LIMIT = 128;

    /** Full collections tried before the pool says it is exhausted. */
    private static final int GC_ATTEMPTS = 3;

    private final String race;
    private final Supplier<T> opener;
    private final int limit;
    private final ArrayDeque<T> free = new ArrayDeque<>();
    /** Leased fixture -> the state holding it (weakly, so a dropped state gives it back). */
    private final Map<T, WeakReference<Object>> leased = new IdentityHashMap<>();
    private int opened;

    /**
     * A pool of at most {@link #LIMIT} fixtures.
     *
     * @param race the race, for messages
     * @param opener opens a new fixture
     */
    DescriptorPool(Class<?> race, Supplier<T> opener) {
        this(race, opener, LIMIT);
    }

    DescriptorPool(Class<?> race, Supplier<T> opener, int limit) {
        this.race = race.getSimpleName();
        this.opener = opener;
        this.limit = limit;
    }

    /**
     * Leases a clean fixture to {@code holder} (a state, from its constructor) until it is given
     * back.
     *
     * @param holder the state that will use it
     * @return a reset fixture, used by nobody else until {@link #give}
     * @throws OutOfMemoryError if {@link #LIMIT} fixtures are held by live states (jcstress's
     *         signal that the epoch cannot grow)
     */
    T take(Object holder) {
        T fixture = lease(holder);
        fixture.reset(); // outside the lock: system calls, and no one else can see this fixture
        return fixture;
    }

    private synchronized T lease(Object holder) {
        T fixture = free.pollFirst();
        if (fixture == null) {
            if (opened < limit) {
                fixture = opener.get();
                opened++;
            } else {
                fixture = reclaim();
            }
        }
        leased.put(fixture, new WeakReference<>(holder));
        return fixture;
    }

    /**
     * Gives back a fixture after the arbiter of the sample that used it is done with it.
     *
     * @param fixture a fixture from {@link #take}
     * @throws IllegalStateException if it is not leased
     */
    synchronized void give(T fixture) {
        if (leased.remove(fixture) == null) {
            throw new IllegalStateException(race + ": fixture given back twice or not from this pool");
        }
        free.addFirst(fixture); // LIFO: the most recently used fixtures stay warm
    }

    /** Takes back the fixtures of states that were dropped without their arbiter, or fails. */
    private T reclaim() {
        for (int attempt = 0; attempt < GC_ATTEMPTS; attempt++) {
            for (Iterator<Map.Entry<T, WeakReference<Object>>> it = leased.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<T, WeakReference<Object>> e = it.next();
                if (e.getValue().get() == null) {
                    T orphan = e.getKey(); // before remove(): IdentityHashMap recycles the entry
                    it.remove();
                    free.addFirst(orphan);
                }
            }
            T fixture = free.pollFirst();
            if (fixture != null) {
                return fixture;
            }
            System.gc(); // clears the weak references of unreachable states
        }
        throw new OutOfMemoryError(race + ": all " + limit + " descriptor-backed fixtures are held by live"
                + " states (jcstress sizes its epoch to fewer states when it sees this)");
    }

    /**
     * Fixtures opened so far.
     *
     * @return at most the limit
     */
    synchronized int opened() {
        return opened;
    }
}
