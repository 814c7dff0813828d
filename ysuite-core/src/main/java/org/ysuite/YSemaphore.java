package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.ysuite.internal.SpinWait;
import org.ysuite.internal.Waits;
import org.ysuite.internal.event.Outcome;
import org.ysuite.internal.event.ParkEvent;
import org.ysuite.internal.event.WakeupEvent;

/**
 * A binary semaphore built on {@link LockSupport} park/unpark: the fastest y-suite signaler, for
 * exactly two threads, one firing and one waiting.
 *
 * <p>It carries one signal, id {@code 0} ({@link #capacity()} is {@code 1}). Any thread may
 * {@link #signal(int) signal}; one thread, the owner, waits ({@link #await()}, the timed
 * {@link #await(long, TimeUnit)}, or the {@link PollableSignaler} methods). A signal fired while
 * nobody waits is kept until the owner takes it; a second signal fired before the first is taken
 * is the same signal. Firing a signal happens-before the owner's return from the call that takes
 * it, so anything the signalling thread wrote before {@code signal} is visible to the owner after.
 *
 * <p>A waiting owner first spins as its {@link WaitPolicy} allows (by default not at all:
 * the pipe's reader in front of it spins), then parks. {@code signal} costs one atomic exchange,
 * and calls
 * {@link LockSupport#unpark(Thread)} only when the owner is asleep or about to be.
 *
 * <p>Blocking methods follow {@code java.util.concurrent}: an interrupted owner gets an
 * {@link InterruptedException} (with its interrupt status cleared), whether it was interrupted
 * before the call or while waiting, and no signal is taken in that case. A second thread that
 * tries to park while the owner is parked gets an {@link IllegalStateException}.
 *
 * <p>The steady state allocates nothing.
 */
public final class YSemaphore implements PollableSignaler {

    /*
     * One atomic int word, `state`:
     *   EMPTY     - no signal; the owner is awake (or not waiting at all)
     *   SIGNALLED - a signal is waiting to be taken
     *   PARKED    - the owner found no signal, registered itself in `waiter` and is (going) asleep
     *
     * Transitions:
     *   signal:  any -> SIGNALLED with getAndSet; unpark `waiter` iff the previous value was PARKED.
     *   owner:   SIGNALLED -> EMPTY with a CAS (takes the signal);
     *            EMPTY -> PARKED with a CAS (goes to sleep; fails iff a signal arrived meanwhile);
     *            PARKED -> EMPTY with a CAS on timeout / interrupt (fails iff a signal arrived).
     * Only signal() writes SIGNALLED and only the registered waiter writes PARKED, so at most one
     * signaller sees PARKED per sleep, and exactly that one unparks.
     *
     * No lost wake-up: the owner sets PARKED only by a CAS from EMPTY, i.e. only if no signal is
     * pending at that instant; a later signal's getAndSet necessarily sees PARKED and unparks. An
     * unpark that comes before the park leaves the thread's permit, so park returns at once. The
     * owner re-reads `state` after every return from park (spurious wake-ups, stale permits from
     * an earlier wait) and parks again while it is still PARKED.
     *
     * Memory ordering: signal()'s getAndSet is a volatile write of SIGNALLED; the owner takes
     * the signal with a CAS (a volatile read-modify-write) that reads that value (or a later one
     * in the variable's modification order, which only signallers write). In the JMM a volatile
     * write synchronizes-with every later volatile read of the same variable, so signal()
     * happens-before the owner's return. The exchange must be atomic on both sides: a plain
     * "read SIGNALLED, then write EMPTY" could erase a signal fired in between.
     *
     * The waiter: before publishing PARKED the owner CASes `waiter` from null to itself (which
     * also detects a second thread trying to sleep at the same time). That write precedes the
     * CAS that publishes PARKED in program order, and the signaller reads `waiter` after its
     * getAndSet read PARKED, so the write of `waiter` happens-before the signaller's read: the
     * signaller unparks the right thread. The owner clears `waiter` only after it has left the
     * PARKED state and is awake; a signaller that then reads null (or an unrelated later
     * waiter) does no harm: LockSupport.unpark(null) does nothing, and an extra unpark is just
     * a spurious wake-up for the thread that gets it.
     */
    private static final int EMPTY = 0;
    private static final int SIGNALLED = 1;
    private static final int PARKED = 2;

    private static final VarHandle STATE;
    private static final VarHandle WAITER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(YSemaphore.class, "state", int.class);
            WAITER = lookup.findVarHandle(YSemaphore.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** EMPTY, SIGNALLED or PARKED; accessed only through {@link #STATE} (volatile mode). */
    @SuppressWarnings("unused")
    private volatile int state;

    /** The thread that is (going) asleep in a wait, else null; see the comment above. */
    private volatile Thread waiter;

    /** The owner's parks and their time (a mailbox's reader's sleeps). */
    final ParkClock parkClock = new ParkClock();

    private final WaitPolicy policy;
    /** The user's name in events, or null (see {@link #named}). */
    private volatile String name;
    /** What waits on it, for the events: its owner, or a {@link YMailbox}'s reader. */
    String waiterLabel = "YSemaphore owner";
    /** The spin phase of a wait: takes the signal (see {@link SpinWait}). */
    private final Taker taker = new Taker();

    /** One look of the spin phase: takes a fired signal. */
    private final class Taker extends SpinWait {
        @Override
        protected boolean ready() {
            return tryTake();
        }
    }

    /**
     * Creates a semaphore whose owner parks at once, {@link WaitPolicy#purePark()}: behind a
     * {@link YPipe} (the documented use) the pipe's reader has spun already, and a second spin
     * here could only catch a flush that the first one just missed (see {@code docs/design.md},
     * "Who spins where"). An owner that waits on the semaphore alone and wants a spin passes a
     * policy to {@link #YSemaphore(WaitPolicy)}. No signal is fired.
     */
    public YSemaphore() {
        this(WaitPolicy.purePark());
    }

    /**
     * Creates a semaphore whose owner waits as {@code policy} says: spins, then parks. No signal
     * is fired.
     *
     * @param policy the owner's waiting policy, e.g. {@link WaitPolicy#purePark()}; an
     *     {@link WaitPolicy#adaptive() adaptive} one should be this semaphore's own
     * @throws NullPointerException if {@code policy} is null
     */
    public YSemaphore(WaitPolicy policy) {
        this.policy = Waits.checkPolicy(policy, "policy");
    }

    /**
     * Names this semaphore: the name appears in its Flight Recorder events (see
     * docs/observability.md), so that a recording tells them apart. Name it before handing it
     * to other threads, or their events may still carry the old name for a while.
     *
     * @param name the name
     * @return this semaphore
     * @throws NullPointerException if {@code name} is null
     */
    public YSemaphore named(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * Returns the name given by {@link #named(String)}.
     *
     * @return the name, or {@code null} if it has none
     */
    public String name() {
        return name;
    }

    /**
     * Returns the owner's waiting policy.
     *
     * @return the policy given at construction
     */
    public WaitPolicy waitPolicy() {
        return policy;
    }

    /**
     * Fires the signal, waking the owner if it is asleep. Firing an already-fired signal that the
     * owner has not taken yet has no further effect. Any thread may call this.
     *
     * @param id the signal, must be {@code 0}
     * @throws IllegalArgumentException if {@code id} is not {@code 0}
     */
    @Override
    public void signal(int id) {
        if (id != 0) {
            throw Waits.badId(id, 1);
        }
        // Always a volatile write (even over SIGNALLED): it is what makes this signal()
        // happen-before the owner's take.
        if ((int) STATE.getAndSet(this, SIGNALLED) == PARKED) {
            LockSupport.unpark(waiter);
            WakeupEvent.emit("YSemaphore signal", name);
        }
    }

    /**
     * Returns {@code 1}: a semaphore carries the single signal id {@code 0}.
     *
     * @return {@code 1}
     */
    @Override
    public int capacity() {
        return 1;
    }

    /**
     * Waits until the signal is fired, then takes it. Returns at once if it was fired before the
     * call. Only the owner may call this.
     *
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and the signal, if any, is not taken
     * @throws IllegalStateException if another thread is asleep on this semaphore
     */
    public void await() throws InterruptedException {
        await0(false, 0L);
    }

    /**
     * Waits at most {@code timeout} for the signal, then takes it. Only the owner may call this.
     *
     * @param timeout how long to wait, {@code >= 0}; {@code 0} takes a fired signal without
     *     waiting
     * @param unit the unit of {@code timeout}
     * @return {@code true} if the signal was taken, {@code false} if the time ran out first (never
     *     earlier than {@code timeout})
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and the signal, if any, is not taken
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if another thread is asleep on this semaphore
     */
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return await0(true, Waits.timeoutNanos(timeout, unit));
    }

    /**
     * Takes the signal if it is fired, without blocking, and hands id {@code 0} to {@code ids}.
     *
     * @param ids receives id {@code 0} if the signal was fired
     * @return {@code 1} if the signal was taken, else {@code 0}
     * @throws NullPointerException if {@code ids} is null
     */
    @Override
    public int check(IntConsumer ids) {
        Objects.requireNonNull(ids, "ids");
        if (tryTake()) {
            ids.accept(0);
            return 1;
        }
        return 0;
    }

    /**
     * Waits like {@link #await()}, then hands id {@code 0} to {@code ids}.
     *
     * @param ids receives id {@code 0}
     * @return {@code 1}
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and the signal, if any, is not taken
     * @throws NullPointerException if {@code ids} is null
     * @throws IllegalStateException if another thread is asleep on this semaphore
     */
    @Override
    public int poll(IntConsumer ids) throws InterruptedException {
        Objects.requireNonNull(ids, "ids");
        await0(false, 0L);
        ids.accept(0);
        return 1;
    }

    /**
     * Waits like {@link #await(long, TimeUnit)}, then hands id {@code 0} to {@code ids} if the
     * signal was taken.
     *
     * @param ids receives id {@code 0} if the signal was taken
     * @param timeout how long to wait, {@code >= 0}; {@code 0} does not wait
     * @param unit the unit of {@code timeout}
     * @return {@code 1} if the signal was taken, {@code 0} if the time ran out
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and the signal, if any, is not taken
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code ids} or {@code unit} is null
     * @throws IllegalStateException if another thread is asleep on this semaphore
     */
    @Override
    public int poll(IntConsumer ids, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(ids, "ids");
        if (await0(true, Waits.timeoutNanos(timeout, unit))) {
            ids.accept(0);
            return 1;
        }
        return 0;
    }

    /**
     * Returns a description with the current state, for debugging.
     *
     * @return a description of this semaphore
     */
    @Override
    public String toString() {
        int s = (int) STATE.getVolatile(this);
        String name = s == EMPTY ? "empty" : s == SIGNALLED ? "signalled" : "owner parked";
        return "YSemaphore[" + name + ", " + policy + "]";
    }

    /** Takes a fired signal; the owner is awake, so the state is EMPTY or SIGNALLED. */
    private boolean tryTake() {
        // The read is a cheap filter (no cache-line ownership taken while nothing is fired); the
        // CAS is the take. It cannot fail once SIGNALLED was read: only the owner leaves SIGNALLED.
        return (int) STATE.getVolatile(this) == SIGNALLED
                && STATE.compareAndSet(this, SIGNALLED, EMPTY);
    }

    private boolean await0(boolean timed, long nanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (tryTake()) {
            return true;
        }
        if (timed && nanos == 0L) {
            return false;
        }
        if (taker.spin(policy)) {
            return true;
        }
        long deadline = timed ? Waits.deadline(nanos) : 0L;
        Thread me = Thread.currentThread();
        // Register before publishing PARKED (see the class comment for why this order matters).
        if (!WAITER.compareAndSet(this, null, me)) {
            throw Waits.secondWaiter(this, waiter);
        }
        try {
            if (!STATE.compareAndSet(this, EMPTY, PARKED)) {
                // Not EMPTY: a signal arrived since the last check (PARKED is impossible, only the
                // registered waiter writes it, and that is us).
                return tryTake();
            }
            ParkEvent event = ParkEvent.begin(waiterLabel, name);
            long parkedAt = ParkClock.start();
            try {
                return sleep(event, timed, deadline);
            } finally {
                parkClock.stop(parkedAt);
            }
        } finally {
            // We are awake and no longer PARKED: see the class comment.
            WAITER.setRelease(this, (Thread) null);
        }
    }

    /** The owner, PARKED published: parks until a signal, the deadline or an interrupt. */
    private boolean sleep(ParkEvent event, boolean timed, long deadline) throws InterruptedException {
        for (;;) {
            if (!Waits.park(this, timed, deadline)) {
                // Time is up. Withdraw PARKED; if that fails a signal arrived: take it.
                boolean taken = !STATE.compareAndSet(this, PARKED, EMPTY) && tryTake();
                ParkEvent.end(event, taken ? Outcome.SIGNAL : Outcome.TIMEOUT);
                return taken;
            }
            if (Thread.interrupted()) {
                // Withdraw PARKED; if a signal arrived meanwhile it stays SIGNALLED, untaken.
                STATE.compareAndSet(this, PARKED, EMPTY);
                ParkEvent.end(event, Outcome.INTERRUPT);
                throw new InterruptedException();
            }
            if ((int) STATE.getVolatile(this) != PARKED) {
                ParkEvent.end(event, Outcome.SIGNAL);
                return tryTake(); // a signaller moved PARKED -> SIGNALLED
            }
            // Spurious wake-up or a stale unpark: still PARKED, park again.
        }
    }
}
