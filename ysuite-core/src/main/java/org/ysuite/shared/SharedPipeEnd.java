package org.ysuite.shared;

import static org.ysuite.internal.SharedPipeDescriptor.HEADER_SIZE;
import static org.ysuite.internal.SharedPipeDescriptor.INT;
import static org.ysuite.internal.SharedPipeDescriptor.READER_SLEEP_AT;
import static org.ysuite.internal.SharedPipeDescriptor.READER_WAKE_AT;
import static org.ysuite.internal.SharedPipeDescriptor.WRITER_SLEEP_AT;
import static org.ysuite.internal.SharedPipeDescriptor.WRITER_WAKE_AT;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.PipeStats;
import org.ysuite.WaitPolicy;
import org.ysuite.internal.CheckedRecordRing;
import org.ysuite.internal.Futex;
import org.ysuite.internal.SharedPipeCounters;
import org.ysuite.internal.SharedPipeDescriptor;
import org.ysuite.internal.SideGuard;
import org.ysuite.internal.event.PeerGoneEvent;

/**
 * What both ends of a shared pipe do alike: the mapped file and its checked ring, the side's
 * guard (one thread inside at a time; close from any thread), sleeping on the futex word and
 * waking the peer, the peer's liveness, faults on a truncated file, and the close hand-shake.
 * {@link SharedPipeWriter} and {@link SharedPipeReader} add their side's operations.
 */
abstract class SharedPipeEnd implements AutoCloseable {

    private static final long MIN_PARK_NANOS = 50_000;
    private static final long MAX_PARK_NANOS = 1_000_000;

    static final VarHandle SIDE;
    private static final VarHandle PINS;

    static {
        try {
            SIDE = MethodHandles.lookup().findVarHandle(SharedPipeEnd.class, "side", long.class);
            PINS = MethodHandles.lookup().findVarHandle(SharedPipeEnd.class, "pins", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        SideGuard.preload();
    }

    final SharedPipeFile file;
    /** The file's path, for messages. */
    final String path;
    /** The user's name for the pipe in events ({@link SharedYPipe.Builder#name}), or null. */
    String eventName;
    final int capacity;
    /** The whole mapping: the header and the shared words. */
    final ByteBuffer shared;
    /** The records in the mapped ring, each checked before it is used. */
    final CheckedRecordRing ring;
    /** The futex word this side sleeps on (its address, and its offset in the file). */
    private final long ownWakeWord;
    private final int ownWakeAt;
    /** This side's sleep, and its waking of the peer. */
    final SharedWords.Sleep sleep;
    final SharedWords.Wake wake;
    final long peerCheckNanos;
    /** This side's counters in the file's header, and its reads of both sides'. */
    final SharedPipeCounters counters;
    private final Futex futex = new Futex();

    /** This side's {@link SideGuard} word (no payload). */
    private volatile long side;
    /** Threads outside the guard touching the mapping (close's wake-ups); see {@link #close()}. */
    private volatile int pins;
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    /** The side's last act (final flush, CLOSED, the peer's wake-up) has been done. */
    private final AtomicBoolean finished = new AtomicBoolean();
    /** True while the thread inside runs the caller's code (a handler); that thread's own. */
    boolean inCallback;
    /** The thread sleeping in this side's wait, for close() to unpark a virtual one. */
    private volatile Thread sleeper;

    SharedPipeEnd(SharedPipeFile file, long peerCheckNanos) {
        this.file = file;
        this.path = file.path.toString();
        this.capacity = file.capacity;
        this.shared = file.mapped;
        this.ring = new CheckedRecordRing(shared.slice(HEADER_SIZE, capacity), path);
        long base = Futex.address(shared);
        long readerWakeWord = base + READER_WAKE_AT;
        long writerWakeWord = base + WRITER_WAKE_AT;
        if (file.writer) {
            this.sleep = new SharedWords.Sleep(shared, WRITER_SLEEP_AT, WRITER_WAKE_AT);
            this.wake = new SharedWords.Wake(shared, READER_SLEEP_AT, READER_WAKE_AT, readerWakeWord,
                    new SharedPipeWakeFifo.WriterBell(file)); // a pollable reader's FIFO
            this.ownWakeWord = writerWakeWord;
            this.ownWakeAt = WRITER_WAKE_AT;
        } else {
            this.sleep = new SharedWords.Sleep(shared, READER_SLEEP_AT, READER_WAKE_AT);
            this.wake = new SharedWords.Wake(shared, WRITER_SLEEP_AT, WRITER_WAKE_AT, writerWakeWord);
            this.ownWakeWord = readerWakeWord;
            this.ownWakeAt = READER_WAKE_AT;
        }
        this.peerCheckNanos = peerCheckNanos;
        this.counters = new SharedPipeCounters(shared);
        file.releaseWhenUnreachable(this);
    }

    /**
     * Returns the name given by {@link SharedYPipe.Builder#name(String)}, which this side's
     * Flight Recorder events carry (see docs/observability.md).
     *
     * @return the name, or {@code null} if none was given
     */
    public final String name() {
        return eventName;
    }

    /** Records, if the event is enabled, that this side found its peer gone, and why. */
    final void peerGone(String reason) {
        PeerGoneEvent.emit(getClass().getSimpleName(), eventName, path, reason);
    }

    /**
     * Returns the pipe's counters as the file holds them now, both sides' (each side keeps its
     * own in the file's header, so the other side, and the stat tool (ysuite-tools) in any process,
     * can read them): {@link PipeStats#messagesFlushed()} the writer's complete messages
     * flushed (a message written in parts counts once, with its last part, as
     * {@code OffHeapYPipe} counts it); {@link PipeStats#wakeups()} the writer's flushes that found the reader asleep
     * and woke it; {@link PipeStats#sleeps()} the reader's {@code awaitMessage} calls that slept
     * in the futex (once per call, however many peer-check slices it slept);
     * {@link PipeStats#sleepNanos()} the time they slept; {@link PipeStats#writerWaits()} the
     * writer's {@code awaitSpace} calls that found no room and waited; {@link PipeStats#depth()}
     * flushed minus the reader's messages consumed. A restarted side continues its counts. No
     * lock: any thread may call it while the pipe runs. The message counts are derived from the
     * writer's anchor and the records it walks up to {@code head} and {@code c} (at most two
     * rings of record headers; see {@code SharedPipeCounters}), so the pipe's own operations pay
     * only a plain add per message written.
     *
     * <p>The counters come from a file another process can write: they are only reported, never
     * trusted, and a scribbled counter shows as a strange number, never as an exception.
     *
     * @return a snapshot of the counters
     * @throws IllegalStateException if this side is closed (the stat tool still reads the file),
     *     or the file was truncated under the mapping
     */
    public final PipeStats stats() {
        // The pin keeps the mapping while we read it, outside the guard: tryRelease unmaps only
        // once the side is CLOSED and no pin is held. Our pin (a volatile add) comes before our
        // volatile read of the side word, and the releaser reads the side word before the pins:
        // either we see CLOSED here and touch nothing, or it sees our pin and leaves the unmap
        // to our tryRelease below.
        PINS.getAndAdd(this, 1);
        try {
            if (SideGuard.isClosed((long) SIDE.getVolatile(this))) {
                throw new IllegalStateException("pipe is closed: its counters are in " + path
                        + " (java -jar ysuite-tools-VERSION.jar stat " + path + ")");
            }
            return SharedPipeCounters.read(shared, ring).toPipeStats();
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            PINS.getAndAdd(this, -1);
            tryRelease();
        }
    }

    /**
     * Returns the ring's size.
     *
     * @return the capacity in bytes
     */
    public final int capacity() {
        return capacity;
    }

    /**
     * Returns the largest message this pipe carries.
     *
     * @return {@code capacity() / 2 - 4}
     */
    public final int maxMessageLength() {
        return ring.maxMessageLength;
    }

    /**
     * Returns the pipe file.
     *
     * @return its absolute path
     */
    public final Path file() {
        return file.path;
    }

    /**
     * Tells whether {@link #close()} has been called.
     *
     * @return {@code true} once closed
     */
    public final boolean isClosed() {
        return SideGuard.isClosed(side);
    }

    @Override
    public final String toString() {
        return getClass().getSimpleName() + "[" + path + ", " + capacity + " bytes"
                + (isClosed() ? ", closed]" : "]");
    }

    // ------------------------------------------------------------------------------------------
    // Peer, sleep, faults
    // ------------------------------------------------------------------------------------------

    /**
     * The peer's side state, checked: FREE, OPEN or CLOSED; anything else was written by someone
     * other than the two sides (this pipe's code writes only those), and is reported as the
     * file's corruption, never taken for a live peer.
     */
    final int peerState() {
        int state = file.peerState();
        if (!SharedPipeDescriptor.isKnownState(state)) {
            throw corrupt("the " + SharedPipeFile.sideName(!file.writer) + "'s side state is " + state
                    + " (expected 0 FREE, 1 OPEN or 2 CLOSED)");
        }
        return state;
    }

    final IllegalStateException corrupt(String what) {
        return ring.corrupt(what);
    }

    /**
     * Sleeps while this side's futex word holds {@code expected}, at most {@code nanos}; false if
     * the time ran out. A platform thread sleeps in FUTEX_WAIT; a virtual thread parks in timed
     * slices, looking at the word after each (a native wait would pin its carrier). Then checks
     * that the pipe was not closed meanwhile.
     */
    final boolean sleep(int expected, long nanos) {
        sleeper = Thread.currentThread();
        boolean woken;
        try {
            // Dekker with close(): we store sleeper, then read side; close stores CLOSING, then
            // reads sleeper (all volatile). Either we see the close here and do not sleep, or
            // close sees us and wakes our word until we have left (a FUTEX_WAKE that came before
            // our FUTEX_WAIT finds nobody, and our own close cannot bump the peer's word).
            if (SideGuard.isClosed(side)) {
                woken = true;
            } else if (!WaitPolicy.isVirtual(Thread.currentThread())) {
                woken = futex.await(ownWakeWord, expected, nanos);
            } else {
                woken = false;
                long end = System.nanoTime() + nanos;
                long park = MIN_PARK_NANOS;
                for (long left = nanos; left > 0; left = end - System.nanoTime()) {
                    if ((int) INT.getAcquire(shared, ownWakeAt) != expected
                            || isClosed() || Thread.currentThread().isInterrupted()) {
                        woken = true;
                        break;
                    }
                    LockSupport.parkNanos(this, Math.min(park, left));
                    park = Math.min(2 * park, MAX_PARK_NANOS);
                }
            }
        } finally {
            sleeper = null;
        }
        checkOpen(); // close() woke us: leave (the exit unmaps)
        return woken;
    }


    /**
     * A fault on the mapping (an {@link InternalError} from a load or store on a lost page, or
     * EFAULT from futex) as the documented exception; any other InternalError is rethrown.
     */
    final RuntimeException fault(Throwable e) {
        if (e instanceof InternalError && !String.valueOf(e.getMessage()).contains("fault occurred")) {
            throw (InternalError) e;
        }
        return new IllegalStateException("pipe file " + path + " was truncated under the mapping (a fault"
                + " accessing it: another process shrank the file); this pipe cannot be used any more", e);
    }

    // ------------------------------------------------------------------------------------------
    // Side guard and close
    // ------------------------------------------------------------------------------------------

    // A late fault. JDK 17 to 20 report a fault of a load or store on a lost page of the mapping
    // not at the access but at the thread's next call into the VM: a native method (futex, or a
    // CAS that the interpreter or C1 calls rather than inlines), a method's entry (a compile
    // request), an allocation's slow path, an exception's stack trace. That call may be one of
    // the guard's CASes, and the error may come after the CAS took effect; or the entry of exit(),
    // and the operation then ends with the side still BUSY. So entering and leaving look at the
    // word again after such an error; close() and finishOnce() take any such error
    // (takeLateFault) before their steps; and close() on the thread whose mark a BUSY word bears,
    // outside a handler, knows that no operation is inside and leaves for it (staleHold).

    /**
     * Enters the side, marking the word with this thread's id: a late fault thrown at the CAS
     * leaves the side again if the CAS had taken effect, then is reported as the truncation.
     */
    final void enter() {
        long token = Thread.currentThread().getId() & SideGuard.PAYLOAD;
        try {
            SideGuard.enter(SIDE, this, SharedPipeFile.sideName(file.writer), token);
        } catch (InternalError late) {
            long word = (long) SIDE.getVolatile(this);
            if ((word & SideGuard.BUSY) != 0 && (word & SideGuard.PAYLOAD) == token) {
                exit(); // ours: the CAS took effect before the error was thrown
            }
            throw fault(late);
        }
    }

    private boolean tryEnter() {
        try {
            enter();
            return true;
        } catch (IllegalStateException busy) {
            return false;
        }
    }

    /** True once close() has begun to close the side (an operation inside should stop). */
    final boolean closing() {
        return ((long) SIDE.getOpaque(this) & SideGuard.CLOSING) != 0;
    }

    /**
     * Leaves the side. A late fault thrown inside may have come before or after the step that
     * took effect: leaving again does only what is left (the thread is still BUSY if its CAS did
     * not take effect: nobody else enters a side this thread holds), then reports the fault.
     */
    final void exit() {
        try {
            leave();
        } catch (InternalError late) {
            leave();
            throw fault(late);
        }
    }

    /**
     * BUSY to IDLE is a release CAS from a word this thread has looked at: if close() set CLOSING
     * meanwhile the CAS fails and we look again. Seeing CLOSING, we are still BUSY (the mapping is
     * ours): we do the side's last act (flush, CLOSED, wake) before moving to CLOSED, so a close
     * that came during an operation never drops what it had written. Not BUSY: left already (see
     * exit), and only the release may be left to do.
     */
    private void leave() {
        long seen = (long) SIDE.getOpaque(this);
        for (;;) {
            if ((seen & SideGuard.BUSY) == 0) {
                tryRelease();
                return;
            }
            if ((seen & SideGuard.CLOSING) != 0) {
                finishOnce();
                SideGuard.exit(SIDE, this, 0L, 0L); // CLOSING is final: this moves to CLOSED
                tryRelease();
                return;
            }
            long witness = (long) SIDE.compareAndExchangeRelease(this, seen, 0L); // IDLE, no mark
            if (witness == seen) {
                return;
            }
            seen = witness;
        }
    }

    /**
     * True if this side is BUSY under this thread's mark while this thread is in close() and not
     * in a handler: an operation of this thread ended without leaving (a late fault thrown at
     * exit's entry), and nothing is inside. The caller then leaves in its place.
     */
    private boolean staleHold() {
        long word = (long) SIDE.getVolatile(this);
        long token = Thread.currentThread().getId() & SideGuard.PAYLOAD;
        return (word & (SideGuard.BUSY | SideGuard.CLOSING | SideGuard.CLOSED)) == SideGuard.BUSY
                && (word & SideGuard.PAYLOAD) == token && !inCallback;
    }

    /**
     * Takes a late fault of this thread's earlier accesses to the mapping, if one is pending, by
     * a call into the VM ({@code Thread.holdsLock}, a native method no compiler inlines); it is
     * dropped: the file was truncated, and close goes on. From JDK 21 nothing is ever pending.
     */
    private void takeLateFault() {
        try {
            Thread.holdsLock(this);
        } catch (InternalError late) {
            // the truncation: the peer learns of it from its own faults
        }
    }

    final void checkOpen() {
        if (SideGuard.isClosed((long) SIDE.getOpaque(this))) {
            throw new IllegalStateException("pipe is closed");
        }
    }

    /** Unmaps and unlocks once the side is CLOSED (out of the memory) and no close pins it. */
    private void tryRelease() {
        if (((long) SIDE.getVolatile(this) & SideGuard.CLOSED) != 0 && (int) PINS.getVolatile(this) == 0
                && released.compareAndSet(false, true)) {
            file.release();
        }
    }

    /**
     * Close, from the thread that holds this side open outside any call (the writer's own open
     * claim): drops what it holds and returns true; false if this thread holds nothing.
     */
    boolean dropOwnHold() {
        return false;
    }

    /**
     * The side's own part of its last act, before CLOSED is marked (the writer flushes its
     * complete messages). May throw on a corrupt or truncated file: closing goes on.
     */
    void lastAct() {
    }

    /**
     * Closes this side (see the subclasses' descriptions). Idempotent; never throws, even when
     * the file was truncated. The file stays.
     */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) {
            return;
        }
        // The pin keeps the mapping while this thread touches it outside the guard: tryRelease
        // unmaps only when the side is CLOSED and no pin is held (both volatile: whichever of
        // close and an exiting operation comes last sees both, and unmaps).
        takeLateFault(); // none is pending in the steps below: only finishOnce touches the mapping
        PINS.getAndAdd(this, 1);
        try {
            boolean inside = dropOwnHold() || tryEnter() || staleHold();
            SideGuard.close(SIDE, this); // BUSY: now BUSY|CLOSING; the exit below (or the op's) finishes
            if (inside) {
                try {
                    exit();
                } catch (IllegalStateException truncated) {
                    // exit left and finished; the fault is the file's truncation: close goes on
                }
            } else if (((long) SIDE.getVolatile(this) & SideGuard.BUSY) == 0) {
                // The operation that kept us out has left (our close moved IDLE to CLOSED, or its
                // exit saw CLOSING and finished): finish here if it did not. Its release exit
                // happened before our volatile read of CLOSED: its positions are visible.
                finishOnce();
            }
            // A wait of this instance that read side before our close may enter FUTEX_WAIT after
            // our wake-up (see sleep): wake its word until it has left, for at most a slice.
            long giveUp = System.nanoTime() + peerCheckNanos;
            for (Thread s = sleeper; s != null && System.nanoTime() - giveUp < 0; s = sleeper) {
                LockSupport.unpark(s); // a virtual sleeper parks in slices
                try {
                    Futex.wake(ownWakeWord, Integer.MAX_VALUE);
                } catch (RuntimeException e) {
                    // a truncated file: the sleeper times out at its next slice
                }
                LockSupport.parkNanos(MIN_PARK_NANOS);
            }
        } finally {
            PINS.getAndAdd(this, -1);
            tryRelease();
        }
    }

    /**
     * The side's last act, once, by whoever is last inside the mapping (close, or the operation
     * close found running): {@link #lastAct()}; then CLOSED (a release store after it: a reader
     * that sees CLOSED sees the last c), then the peer's wake word is bumped and woken, so a peer
     * on its way into FUTEX_WAIT either sees CLOSED first or finds its word changed. Faults (a
     * truncated file) are swallowed: close never throws.
     */
    private void finishOnce() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        // A late fault of each step is taken before the next, which then runs whole.
        try {
            lastAct();
        } catch (RuntimeException | InternalError e) {
            // a corrupt or truncated file: closing goes on
        }
        takeLateFault();
        try {
            file.markClosed();
        } catch (RuntimeException | InternalError e) {
            // truncated: the peer learns it from its own faults
        }
        takeLateFault();
        try {
            wake.always();
        } catch (RuntimeException | InternalError e) {
            // truncated (EFAULT): the peer's next peer check ends its sleep
        }
        takeLateFault(); // not in the guard's CAS after us
    }
}
