package org.ysuite;

import java.io.Closeable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.ysuite.internal.FdGuard;
import org.ysuite.internal.SignalBits;
import org.ysuite.internal.SpinWait;
import org.ysuite.internal.Waits;
import org.ysuite.internal.event.Outcome;
import org.ysuite.internal.event.ParkEvent;
import org.ysuite.internal.event.WakeupEvent;

/**
 * The passive signaler shared by {@link YSocketPair} and {@link NioSignaler}: an atomic set of
 * signal ids, plus a wake-up object (a socket, an eventfd, an NIO pipe) that some poller can wait
 * on, written only when the owner may be asleep.
 *
 * <h2>States</h2>
 * One volatile {@code state} word says what a signaller must do after firing a new id:
 * <ul>
 *   <li>{@code IDLE}: the owner is awake (its last drain found something); nothing to do.</li>
 *   <li>{@code ARMED}: the owner's last drain found nothing, so it may be waiting on the wake-up
 *       object; the signaller that moves ARMED&rarr;WOKEN writes the wake-up (one system call).</li>
 *   <li>{@code PARKED}: the owner is parked in {@link #poll}; the signaller that moves
 *       PARKED&rarr;IDLE unparks it (reading which thread only after its CAS: see {@code waiter}).</li>
 *   <li>{@code WOKEN}: a wake-up was written (or is being written); later signals only set bits.
 *       Only the owner leaves WOKEN, after it has read the wake-up back &mdash; or the signaller
 *       whose write failed, which puts ARMED back before it throws.</li>
 * </ul>
 * So at most one wake-up is ever outstanding in the wake-up object (the socket buffer can never
 * fill up, and a busy owner costs its signallers no system call at all).
 *
 * <h2>Why no wake-up is lost</h2>
 * A signaller fires its bit (a volatile read-modify-write) and then reads {@code state}; the
 * owner writes ARMED or PARKED (volatile) and then reads the bits again before it sleeps. Volatile
 * accesses are totally ordered, so either the owner's second read sees the bit, or the
 * signaller's read sees the armed state and wakes it (Dekker's pattern). A signaller that finds its
 * bit already set skips the state check (the thread that set the bit does it) unless the state
 * is ARMED, which is how a failed wake-up write is retried.
 */
abstract class WakeupSignaler implements PollableSignaler, Closeable {

    static final int IDLE = 0;
    static final int ARMED = 1;
    static final int PARKED = 2;
    static final int WOKEN = 3;

    /** Longest single wait for a wake-up that a signaller is still writing (bounds close latency). */
    static final long IN_FLIGHT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final VarHandle STATE;
    private static final VarHandle WAITER;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(WakeupSignaler.class, "state", int.class);
            WAITER = MethodHandles.lookup().findVarHandle(WakeupSignaler.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int state;
    /**
     * The thread waiting in poll, or null. The owner registers itself (volatile CAS) before it
     * publishes PARKED, and clears it only after it has left {@link #sleep}, where every exit
     * moves the state off PARKED first (its own disarm CAS, or it saw a signaller's IDLE / a
     * WOKEN). So while the state is PARKED, {@code waiter} is the parked owner.
     *
     * <p>A signaller therefore reads it only <em>after</em> its CAS PARKED&rarr;IDLE has
     * succeeded; the CAS read the owner's PARKED, so the read of {@code waiter} that follows
     * sees that registration or a later write of it: the owner still parked in that same wait
     * (the right thread); {@code null}, which the owner writes only after it has left that wait,
     * awake, having re-read the bits (so nothing is owed); or the registration of a later wait,
     * whose unpark is merely spurious (the owner re-checks and parks again). Reading it
     * <em>before</em> the CAS (as this class once did) lost wake-ups: the signaller could read
     * {@code null} between two waits and then CAS the <em>next</em> wait's PARKED to IDLE,
     * leaving that owner parked with no signaller left to wake it.
     */
    private volatile Thread waiter;

    /** The owner's parks and their time (a mailbox's reader's sleeps). */
    final ParkClock parkClock = new ParkClock();

    /**
     * Test seam, {@code null} in production: called at two points of {@link #signal}'s PARKED
     * path so that a test can run the owner through a whole poll cycle in between. A plain field
     * set before the signalling threads start; the one load it costs is on the path that ends in
     * an unpark anyway.
     */
    RaceHook raceHook;

    private final SignalBits bits;
    private final WaitPolicy policy;
    /** The user's name in events, or null (see the subclasses' {@code named}). */
    volatile String name;
    /** What waits on it, for the events: its owner, or a {@link YMailbox}'s reader. */
    String waiterLabel = typeName() + " owner";
    /** What wakes it, for the events (made once: a wake-up must not build a string). */
    private final String wakerLabel = typeName() + " signal";
    /** The spin phase of a poll (see {@link SpinWait}). */
    private final AnyFired anyFired = new AnyFired();

    /** One look of the spin phase: is any id fired? (Only the owner takes, so they stay.) */
    private final class AnyFired extends SpinWait {
        @Override
        protected boolean ready() {
            return bits.any();
        }
    }
    /** Brackets every system call on the wake-up object; see {@link FdGuard}. */
    final FdGuard guard = new FdGuard();

    /** Hook point: a signaller has read PARKED. */
    static final int HOOK_SAW_PARKED = 1;
    /** Hook point: a signaller is about to fix and unpark the thread it wakes. */
    static final int HOOK_BEFORE_UNPARK = 2;

    /** See {@link #raceHook}. */
    interface RaceHook {
        /**
         * Called on the signalling thread.
         *
         * @param point {@link #HOOK_SAW_PARKED} or {@link #HOOK_BEFORE_UNPARK}
         */
        void at(int point);
    }

    private void hook(int point) {
        RaceHook h = raceHook;
        if (h != null) {
            h.at(point);
        }
    }

    /** The state word, for tests' failure messages. */
    final int stateNow() {
        return state;
    }

    WakeupSignaler(int capacity, WaitPolicy policy) {
        this.policy = Waits.checkPolicy(policy, "policy");
        this.bits = new SignalBits(capacity);
    }

    /**
     * Returns the owner's waiting policy in {@link #poll}.
     *
     * @return the policy given at construction
     */
    public final WaitPolicy waitPolicy() {
        return policy;
    }

    /** Writes one wake-up; called by at most one signaller per ARMED cycle, inside the guard. */
    abstract void writeWakeup();

    /**
     * Reads the wake-up back (owner only, inside the guard).
     *
     * @return {@code true} if it was there and is now consumed, {@code false} if not yet written
     */
    abstract boolean readWakeup();

    /** Waits at most {@code nanos} for a wake-up being written to land (owner only, inside the guard). */
    abstract void awaitWakeup(long nanos);

    /** Releases the wake-up object; called once, after every guarded call has ended. */
    abstract void closeResources();

    /** Name used in messages. */
    abstract String typeName();

    /**
     * Returns how many distinct signals this signaler carries.
     *
     * @return the number of valid ids
     */
    @Override
    public final int capacity() {
        return bits.capacity();
    }

    /**
     * Fires signal {@code id} from any thread. Costs one atomic operation; a system call (or an
     * unpark) is added only for the first signal after the owner found nothing and went to wait.
     *
     * @param id the signal to fire, {@code 0 <= id < capacity()}
     * @throws IllegalArgumentException if {@code id} is out of range
     * @throws IllegalStateException if this signaler is closed, or the wake-up could not be
     *         written; the id then stays fired and the wake-up armed, so that the next signal (a
     *         retry of the same id included) writes it
     */
    @Override
    public final void signal(int id) {
        if (id < 0 || id >= bits.capacity()) {
            throw Waits.badId(id, bits.capacity());
        }
        if (guard.isClosed()) {
            throw closed();
        }
        if (!bits.fire(id) && state != ARMED) {
            // Already fired: the thread that fired it does the state check. Unless the state is
            // ARMED: then that thread is about to write the wake-up, or its write failed and put
            // ARMED back (see below); the CAS lets exactly one of us write it.
            return;
        }
        for (;;) {
            int s = state; // volatile read after the volatile RMW of the bit (Dekker, see class doc)
            if (s == ARMED) {
                if (STATE.compareAndSet(this, ARMED, WOKEN)) {
                    try {
                        wake();
                        WakeupEvent.emit(wakerLabel, name);
                    } catch (RuntimeException | Error e) {
                        // Nothing was written, so the owner cannot leave this WOKEN (it leaves it
                        // only after reading a wake-up back): put ARMED back, so that the next
                        // signal, a retry of this id included, writes it; then report the failure.
                        STATE.compareAndSet(this, WOKEN, ARMED);
                        throw e;
                    }
                    return;
                }
            } else if (s == PARKED) {
                hook(HOOK_SAW_PARKED);
                // Claim the wake-up first, and only then read which thread to unpark: see
                // waiter's doc for why the thread read after a successful CAS is the right one.
                if (STATE.compareAndSet(this, PARKED, IDLE)) {
                    hook(HOOK_BEFORE_UNPARK);
                    LockSupport.unpark(waiter); // null (owner already gone) is a no-op
                    WakeupEvent.emit(wakerLabel, name);
                    return;
                }
            } else {
                return; // IDLE: owner awake; WOKEN: a wake-up is already outstanding
            }
        }
    }

    private void wake() {
        if (!guard.enter()) {
            throw closed(); // raced with close(): the descriptor may be gone, never touch it
        }
        try {
            writeWakeup();
        } finally {
            guard.exit();
            // Keep this object reachable until the system call is over, so that a Cleaner of a
            // subclass cannot close the descriptor (and let its number be reused) under the call.
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Takes every fired signal without blocking. A call that finds nothing <em>arms</em> the
     * wake-up: from then on the first signal makes it readable, and it stays readable until the
     * next {@code check} or {@code poll}. A call that finds something leaves it unarmed (a busy
     * owner costs its signallers no system call), so wait on the wake-up only after a
     * {@code check} returned {@code 0}.
     *
     * @param ids receives each fired id once
     * @return how many ids were handed to {@code ids}; {@code 0} if none (the wake-up is armed)
     * @throws NullPointerException if {@code ids} is null
     * @throws IllegalStateException if this signaler is closed
     */
    @Override
    public final int check(IntConsumer ids) {
        Objects.requireNonNull(ids, "ids");
        ensureOpen();
        consumeWakeup();
        int n = bits.take(ids);
        if (n != 0) {
            return n;
        }
        if (state == IDLE) {
            state = ARMED; // only the owner leaves IDLE, so a plain volatile write is enough
        }
        n = bits.take(ids); // re-read after publishing ARMED (Dekker with signal)
        if (n != 0) {
            // busy again: disarm, unless a signaller already won ARMED->WOKEN (then its wake-up
            // stays outstanding and the next drain reads it back)
            STATE.compareAndSet(this, ARMED, IDLE);
        }
        return n;
    }

    /**
     * Takes every fired signal, waiting until at least one is fired: spins briefly, then parks
     * (the owner's own wait never blocks in a system call, so an interrupt ends it at once).
     *
     * @param ids receives each fired id once
     * @return how many ids were handed to {@code ids}; at least {@code 1}
     * @throws InterruptedException if the owner is interrupted before or while waiting; no signal
     *         is taken
     * @throws NullPointerException if {@code ids} is null
     * @throws IllegalStateException if this signaler is closed, also while waiting
     */
    @Override
    public final int poll(IntConsumer ids) throws InterruptedException {
        return await(ids, false, 0L);
    }

    /**
     * Takes every fired signal, waiting at most {@code timeout} for one.
     *
     * @param ids receives each fired id once
     * @param timeout how long to wait, {@code >= 0}; zero means do not wait (like {@link #check})
     * @param unit the unit of {@code timeout}
     * @return how many ids were handed to {@code ids}; {@code 0} if the time ran out
     * @throws InterruptedException if the owner is interrupted before or while waiting; no signal
     *         is taken
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code ids} or {@code unit} is null
     * @throws IllegalStateException if this signaler is closed, also while waiting
     */
    @Override
    public final int poll(IntConsumer ids, long timeout, TimeUnit unit) throws InterruptedException {
        return await(ids, true, Waits.timeoutNanos(timeout, unit));
    }

    private int await(IntConsumer ids, boolean timed, long nanos) throws InterruptedException {
        Objects.requireNonNull(ids, "ids");
        ensureOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (timed && nanos == 0) {
            return check(ids);
        }
        consumeWakeup();
        int n = bits.take(ids);
        if (n != 0) {
            return n;
        }
        long deadline = timed ? Waits.deadline(nanos) : 0L;
        if (anyFired.spin(policy)) {
            return bits.take(ids); // only the owner takes, so the bits are still there
        }
        Thread me = Thread.currentThread();
        if (!WAITER.compareAndSet(this, null, me)) {
            throw Waits.secondWaiter(this, waiter);
        }
        ParkEvent event = ParkEvent.begin(waiterLabel, name);
        String outcome = Outcome.CLOSE;
        long parkedAt = ParkClock.start();
        try {
            int got = sleep(ids, timed, deadline);
            outcome = got != 0 ? Outcome.SIGNAL : Outcome.TIMEOUT;
            return got;
        } catch (InterruptedException e) {
            outcome = Outcome.INTERRUPT;
            throw e;
        } finally {
            parkClock.stop(parkedAt);
            ParkEvent.end(event, outcome);
            // Only now: every path out of sleep() has moved the state off PARKED (see waiter).
            waiter = null;
        }
    }

    private int sleep(IntConsumer ids, boolean timed, long deadline) throws InterruptedException {
        for (;;) {
            int s = state;
            if (s == WOKEN) {
                // A wake-up from an earlier arm is outstanding: read it back before parking,
                // since signallers do nothing while the state is WOKEN.
                int n = awaitOutstanding(ids, timed, deadline);
                if (n != 0) {
                    return n;
                }
                if (timed && deadline - System.nanoTime() <= 0) {
                    return bits.take(ids);
                }
                continue;
            }
            if (s != PARKED && !STATE.compareAndSet(this, s, PARKED)) {
                continue; // ARMED -> WOKEN by a signaller: handle it above
            }
            int n;
            try {
                n = bits.take(ids); // re-read after publishing PARKED (Dekker with signal)
            } catch (RuntimeException | Error e) {
                disarmPark();
                throw e;
            }
            if (n != 0) {
                disarmPark();
                return n;
            }
            if (Thread.interrupted()) {
                disarmPark();
                throw new InterruptedException();
            }
            if (guard.isClosed()) { // close() sets the flag, then reads waiter (Dekker again)
                disarmPark();
                throw closed();
            }
            if (!Waits.park(this, timed, deadline)) {
                disarmPark(); // time is up: withdraw PARKED, take what arrived meanwhile
                return bits.take(ids);
            }
        }
    }

    /** In state WOKEN: tries to read the wake-up back, waiting briefly if it is still in flight. */
    private int awaitOutstanding(IntConsumer ids, boolean timed, long deadline) throws InterruptedException {
        consumeWakeup();
        if (state != WOKEN) {
            return 0;
        }
        int n = bits.take(ids);
        if (n != 0) {
            return n;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long slice = IN_FLIGHT_SLICE_NANOS;
        if (timed) {
            slice = Math.min(slice, deadline - System.nanoTime());
            if (slice <= 0) {
                return 0;
            }
        }
        if (!guard.enter()) {
            throw closed();
        }
        try {
            awaitWakeup(slice);
        } finally {
            guard.exit();
            Reference.reachabilityFence(this);
        }
        return 0;
    }

    /** Leaves PARKED; if the CAS fails a signaller already set IDLE (and its unpark is harmless). */
    private void disarmPark() {
        STATE.compareAndSet(this, PARKED, IDLE);
    }

    /** Owner only: reads back an outstanding wake-up, so that the next drain can arm again. */
    private void consumeWakeup() {
        if (state != WOKEN) {
            return;
        }
        if (!guard.enter()) {
            throw closed();
        }
        try {
            if (readWakeup()) {
                state = IDLE; // only the owner leaves WOKEN
            }
        } finally {
            guard.exit();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Tells whether {@link #close()} has been called.
     *
     * @return {@code true} once closed
     */
    public final boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Closes the wake-up object. Safe against concurrent {@link #signal}: it waits for every
     * system call in flight on the descriptors to finish before releasing them, and every later
     * {@code signal} throws {@link IllegalStateException} without touching them. An owner parked
     * in {@link #poll} is woken and gets {@link IllegalStateException}. Idempotent.
     */
    @Override
    public final void close() {
        if (!guard.close()) {
            return;
        }
        closeResources();
        // Unpark the registered owner whatever the state word says (a signaller may have taken
        // PARKED and not yet unparked): it re-reads the closed flag before every park. Dekker
        // with sleep(): guard.close() published the flag (a volatile RMW) before this volatile
        // read of waiter; the owner registers in waiter before it publishes PARKED and reads the
        // flag after. Either we read its registration and unpark it, or its read of the flag
        // comes later and sees closed, so it never parks. An unpark of a thread that is not
        // parked only makes its next park return at once, which every wait loop tolerates.
        LockSupport.unpark(waiter);
    }

    final void ensureOpen() {
        if (guard.isClosed()) {
            throw closed();
        }
    }

    final IllegalStateException closed() {
        return new IllegalStateException(typeName() + " is closed");
    }
}
