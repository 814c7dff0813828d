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
 * A set of 31 binary signals in one atomic word, with many signalling threads and one owner that
 * waits for any of them: the y-suite signaler behind a mailbox or any "poll many sources" loop.
 *
 * <p>Ids are {@code 0} to {@code 30} ({@link #capacity()} is {@code 31}). Any thread may
 * {@link #signal(int) signal}; one thread, the owner, takes the fired signals, without blocking
 * ({@link #check()}) or waiting for at least one ({@link #poll()},
 * {@link #poll(long, TimeUnit)}). The owner receives them as a bitmask (bit {@code i} set when
 * id {@code i} was fired) or, through the {@link PollableSignaler} methods, one id at a time,
 * lowest first. A signal fired while the owner is busy is kept; firing an id again before the
 * owner takes it is the same signal. Firing a signal happens-before the owner's return from the
 * call that takes it.
 *
 * <p>A waiting owner spins as its {@link WaitPolicy} allows (by default not at all: the
 * readers in front of it spin), then sets the word's sleep bit and parks. {@code signal} sets
 * its bit and clears the sleep bit
 * in one atomic step, and calls {@link LockSupport#unpark(Thread)} only if the sleep bit was set:
 * signalling a busy owner costs one compare-and-set and no system call.
 *
 * <p>Blocking methods follow {@code java.util.concurrent}: an interrupted owner gets an
 * {@link InterruptedException} (with its interrupt status cleared), whether it was interrupted
 * before the call or while waiting, and no signal is taken in that case. A second thread that
 * tries to park while the owner is parked gets an {@link IllegalStateException}.
 *
 * <p>The steady state allocates nothing.
 */
public final class YPollset implements PollableSignaler {

    /** Re-posts bits a throwing sink did not take (the owner is awake: no unpark). */
    private final IntConsumer putBack = bits -> STATE.getAndBitwiseOr(this, bits);

    /** The number of signal ids: bits 0 to 30 of the state word. */
    private static final int CAPACITY = 31;

    /** Bit 31: the owner found no signal, registered in {@code waiter} and is (going) asleep. */
    private static final int SLEEP = 1 << 31;

    /*
     * The state word: bits 0..30 are the fired, not yet taken signals; bit 31 (SLEEP) is set
     * only by the owner, with a CAS from 0 (no signal pending, awake) to SLEEP, just before it
     * parks. Hence the word is either SLEEP alone, or a set of signal bits without SLEEP.
     *
     * signal(i): CAS loop  s -> (s | 1 << i) & ~SLEEP;  unpark the waiter iff s had SLEEP.
     *   Setting the bit and clearing SLEEP in the same atomic step means exactly one signaller
     *   sees SLEEP per sleep (the first; every later one sees it clear), so the owner is unparked
     *   once per sleep and nobody can clear a SLEEP bit belonging to a later sleep. The
     *   alternative, getAndBitwiseOr(bit) then a separate "clear SLEEP" fix-up, is worse: several
     *   signallers can all see SLEEP before the first clears it (several unparks), and a late
     *   fix-up can clear the SLEEP bit of the owner's *next* sleep after the owner woke, took the
     *   bits and went back to sleep; it would then have to unpark unconditionally to stay correct.
     *   The loop retries only when another signaller (or the owner) changed the word between
     *   the read and the CAS; compareAndExchange hands back the fresh value for the retry.
     *
     * Owner: takes with getAndSet(0) when the word is non-zero (while awake it never holds
     *   SLEEP); to sleep, CAS 0 -> SLEEP (fails iff a signal arrived: take it instead), park,
     *   and after every return from park re-read the word: still SLEEP means a spurious wake-up
     *   or a stale unpark (park again); anything else means a signaller cleared SLEEP and set
     *   its bit (take). On timeout it getAndSet(0)s: that withdraws SLEEP, or takes the bits if a
     *   signal just arrived. On interrupt it CASes SLEEP -> 0: that fails only if a signal
     *   arrived, which then stays in the word untaken.
     *
     * No lost wake-up: the owner publishes SLEEP only from 0, i.e. when nothing is pending; the
     * next signal's CAS must see SLEEP and unpark. An unpark that beats the park leaves the
     * thread's permit, so the park returns at once.
     *
     * Memory ordering: every signal() does a successful CAS, a volatile write (even when its bit
     * was already set: that write is what orders this signal() before the owner's take); the
     * owner takes with getAndSet, a volatile read-modify-write that reads the latest value. A
     * volatile write synchronizes-with every later volatile read of the same variable, so
     * signal() happens-before the owner's return from the call that takes the bit.
     *
     * The waiter: before publishing SLEEP the owner CASes `waiter` from null to itself (which
     * also detects a second thread trying to sleep). That write precedes the CAS publishing
     * SLEEP in program order, and the signaller reads `waiter` after its CAS read SLEEP, so the
     * signaller sees it (happens-before through the volatile state word) and unparks the right
     * thread. The owner clears `waiter` only after it is awake and SLEEP is gone; a signaller
     * that reads null then does nothing (unpark(null) is a no-op), and an extra unpark of a
     * later waiter is just a spurious wake-up for it.
     */
    private static final VarHandle STATE;
    private static final VarHandle WAITER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(YPollset.class, "state", int.class);
            WAITER = lookup.findVarHandle(YPollset.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Signal bits 0..30 and the SLEEP bit; accessed only through {@link #STATE}. */
    private volatile int state;

    /** The thread that is (going) asleep in a poll, else null; see the comment above. */
    private volatile Thread waiter;

    /** The owner's parks and their time (a mailbox's reader's sleeps). */
    final ParkClock parkClock = new ParkClock();

    private final WaitPolicy policy;
    /** The user's name in events, or null (see {@link #named}). */
    private volatile String name;
    /** What waits on it, for the events: its owner, or a {@link YMailbox}'s reader. */
    String waiterLabel = "YPollset owner";
    /** The spin phase of a poll: takes the fired bits (see {@link SpinWait}). */
    private final Taker taker = new Taker();

    /** One look of the spin phase: takes the fired bits into {@code bits}. */
    private final class Taker extends SpinWait {
        /** What the last successful look took; owner thread only. */
        int bits;

        @Override
        protected boolean ready() {
            return (bits = take()) != 0;
        }
    }

    /**
     * Creates a pollset whose owner parks at once, {@link WaitPolicy#purePark()}: behind the
     * pipes it wakes the reader of (a {@link YMailbox}, pipes of one's own) the readers have
     * spun already (see {@code docs/design.md}, "Who spins where"). An owner that waits on the
     * pollset alone and wants a spin passes a policy to {@link #YPollset(WaitPolicy)}. No signal
     * is fired.
     */
    public YPollset() {
        this(WaitPolicy.purePark());
    }

    /**
     * Creates a pollset whose owner waits as {@code policy} says: spins, then parks. No signal is
     * fired.
     *
     * @param policy the owner's waiting policy, e.g. {@link WaitPolicy#purePark()}; an
     *     {@link WaitPolicy#adaptive() adaptive} one should be this pollset's own
     * @throws NullPointerException if {@code policy} is null
     */
    public YPollset(WaitPolicy policy) {
        this.policy = Waits.checkPolicy(policy, "policy");
    }

    /**
     * Names this pollset: the name appears in its Flight Recorder events (see
     * docs/observability.md), so that a recording tells them apart. Name it before handing it
     * to other threads, or their events may still carry the old name for a while.
     *
     * @param name the name
     * @return this pollset
     * @throws NullPointerException if {@code name} is null
     */
    public YPollset named(String name) {
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
     * Fires signal {@code id}, waking the owner if it is asleep. Firing an id that is already
     * fired and not yet taken has no further effect. Any thread may call this.
     *
     * @param id the signal to fire, {@code 0 <= id < 31}
     * @throws IllegalArgumentException if {@code id} is out of range
     */
    @Override
    public void signal(int id) {
        if (id < 0 || id >= CAPACITY) {
            throw Waits.badId(id, CAPACITY);
        }
        int bit = 1 << id;
        int s = (int) STATE.getVolatile(this);
        for (;;) {
            int witness = (int) STATE.compareAndExchange(this, s, (s | bit) & ~SLEEP);
            if (witness == s) {
                break;
            }
            s = witness;
        }
        if ((s & SLEEP) != 0) {
            LockSupport.unpark(waiter);
            WakeupEvent.emit("YPollset signal", name);
        }
    }

    /**
     * Returns {@code 31}: ids {@code 0} to {@code 30}.
     *
     * @return {@code 31}
     */
    @Override
    public int capacity() {
        return CAPACITY;
    }

    /**
     * Takes every fired signal without blocking. Only the owner may call this.
     *
     * @return the fired ids as a bitmask (bit {@code i} for id {@code i}), {@code 0} if none
     */
    public int check() {
        return take();
    }

    /**
     * Takes every fired signal, waiting (spinning briefly, then parking) until at least one is
     * fired. Only the owner may call this.
     *
     * @return the fired ids as a bitmask (bit {@code i} for id {@code i}); never {@code 0}
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and no signal is taken
     * @throws IllegalStateException if another thread is asleep on this pollset
     */
    public int poll() throws InterruptedException {
        return poll0(false, 0L);
    }

    /**
     * Takes every fired signal, waiting at most {@code timeout} for one. Only the owner may call
     * this.
     *
     * @param timeout how long to wait, {@code >= 0}; {@code 0} takes the fired signals without
     *     waiting
     * @param unit the unit of {@code timeout}
     * @return the fired ids as a bitmask (bit {@code i} for id {@code i}); {@code 0} if the time
     *     ran out first (never earlier than {@code timeout})
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and no signal is taken
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if another thread is asleep on this pollset
     */
    public int poll(long timeout, TimeUnit unit) throws InterruptedException {
        return poll0(true, Waits.timeoutNanos(timeout, unit));
    }

    /**
     * Takes every fired signal without blocking and hands each id to {@code ids}, lowest first.
     * If {@code ids} throws, the ids not yet handed to it are kept for the next call.
     *
     * @param ids receives each fired id once
     * @return how many ids were handed to {@code ids}; {@code 0} if none was fired
     * @throws NullPointerException if {@code ids} is null
     */
    @Override
    public int check(IntConsumer ids) {
        Objects.requireNonNull(ids, "ids");
        return deliver(take(), ids);
    }

    /**
     * Waits like {@link #poll()}, then hands each fired id to {@code ids}, lowest first. If
     * {@code ids} throws, the ids not yet handed to it are kept for the next call.
     *
     * @param ids receives each fired id once
     * @return how many ids were handed to {@code ids}; at least {@code 1}
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and no signal is taken
     * @throws NullPointerException if {@code ids} is null
     * @throws IllegalStateException if another thread is asleep on this pollset
     */
    @Override
    public int poll(IntConsumer ids) throws InterruptedException {
        Objects.requireNonNull(ids, "ids");
        return deliver(poll0(false, 0L), ids);
    }

    /**
     * Waits like {@link #poll(long, TimeUnit)}, then hands each fired id to {@code ids}, lowest
     * first. If {@code ids} throws, the ids not yet handed to it are kept for the next call.
     *
     * @param ids receives each fired id once
     * @param timeout how long to wait, {@code >= 0}; {@code 0} does not wait
     * @param unit the unit of {@code timeout}
     * @return how many ids were handed to {@code ids}; {@code 0} if the time ran out
     * @throws InterruptedException if the current thread is interrupted before or while waiting;
     *     its interrupt status is cleared and no signal is taken
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code ids} or {@code unit} is null
     * @throws IllegalStateException if another thread is asleep on this pollset
     */
    @Override
    public int poll(IntConsumer ids, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(ids, "ids");
        return deliver(poll0(true, Waits.timeoutNanos(timeout, unit)), ids);
    }

    /**
     * Returns a description with the current state, for debugging.
     *
     * @return a description of this pollset
     */
    @Override
    public String toString() {
        int s = (int) STATE.getVolatile(this);
        return "YPollset[fired=0x" + Integer.toHexString(s & ~SLEEP)
                + ((s & SLEEP) != 0 ? ", owner parked" : "")
                + ", " + policy + "]";
    }

    /** Takes the fired bits; the owner is awake, so the taken word has no SLEEP bit. */
    private int take() {
        // The read is a cheap filter that leaves the cache line shared while nothing is fired;
        // getAndSet is the take (atomic: a plain write of 0 could erase a concurrent signal).
        // The word is either signal bits or SLEEP alone; SLEEP alone here means another thread
        // is asleep in a poll (a misuse the caller then reports): leave its SLEEP bit alone.
        if (((int) STATE.getVolatile(this) & ~SLEEP) == 0) {
            return 0;
        }
        return (int) STATE.getAndSet(this, 0);
    }

    private int poll0(boolean timed, long nanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        int bits = take();
        if (bits != 0 || (timed && nanos == 0L)) {
            return bits;
        }
        if (taker.spin(policy)) {
            return taker.bits;
        }
        long deadline = timed ? Waits.deadline(nanos) : 0L;
        Thread me = Thread.currentThread();
        // Register before publishing SLEEP (see the comment at the top for why this order).
        if (!WAITER.compareAndSet(this, null, me)) {
            throw Waits.secondWaiter(this, waiter);
        }
        try {
            if (!STATE.compareAndSet(this, 0, SLEEP)) {
                // Not 0: signals arrived since the last check (SLEEP is impossible: only the
                // registered waiter sets it, and that is us).
                return (int) STATE.getAndSet(this, 0);
            }
            ParkEvent event = ParkEvent.begin(waiterLabel, name);
            long parkedAt = ParkClock.start();
            try {
                return sleep(event, timed, deadline);
            } finally {
                parkClock.stop(parkedAt);
            }
        } finally {
            // We are awake and SLEEP is gone: see the comment at the top.
            WAITER.setRelease(this, (Thread) null);
        }
    }

    /** The owner, SLEEP published: parks until a signal, the deadline or an interrupt. */
    private int sleep(ParkEvent event, boolean timed, long deadline) throws InterruptedException {
        for (;;) {
            if (!Waits.park(this, timed, deadline)) {
                // Time is up: withdraw SLEEP, or take what a signal set meanwhile.
                int taken = (int) STATE.getAndSet(this, 0) & ~SLEEP;
                ParkEvent.end(event, taken != 0 ? Outcome.SIGNAL : Outcome.TIMEOUT);
                return taken;
            }
            if (Thread.interrupted()) {
                // Withdraw SLEEP; if a signal arrived meanwhile its bits stay, untaken.
                STATE.compareAndSet(this, SLEEP, 0);
                ParkEvent.end(event, Outcome.INTERRUPT);
                throw new InterruptedException();
            }
            if ((int) STATE.getVolatile(this) != SLEEP) {
                ParkEvent.end(event, Outcome.SIGNAL);
                return (int) STATE.getAndSet(this, 0); // a signaller cleared SLEEP
            }
            // Spurious wake-up or a stale unpark: still SLEEP, park again.
        }
    }

    /** Hands each bit of {@code bits} to {@code ids}, lowest first; re-posts the rest on a throw. */
    private int deliver(int bits, IntConsumer ids) {
        // The owner is awake (SLEEP is clear): putting the bits back needs no unpark.
        return Waits.deliver(bits, ids, putBack);
    }
}
