// Over 500 lines: the public writer API with its javadoc; the ring is in CheckedRecordRing, the
// file, liveness and sleep in SharedPipeEnd, the counters in SharedPipeCounters.
package org.ysuite.shared;

import static org.ysuite.internal.SharedPipeDescriptor.CLOSED;
import static org.ysuite.internal.SharedPipeDescriptor.C_AT;
import static org.ysuite.internal.SharedPipeDescriptor.HEAD_AT;
import static org.ysuite.internal.SharedPipeDescriptor.OPEN;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.ysuite.WaitPolicy;
import org.ysuite.internal.AnchoredCounts;
import org.ysuite.internal.CheckedRecordRing;
import org.ysuite.internal.Futex;
import org.ysuite.internal.RoomWait;
import org.ysuite.internal.SharedPipeCounters;
import org.ysuite.internal.SpinWait;
import org.ysuite.internal.Waits;
import org.ysuite.internal.event.Outcome;
import org.ysuite.internal.event.ParkEvent;
import org.ysuite.internal.event.WakeupEvent;

/**
 * The writer side of a shared pipe ({@link SharedYPipe}): writes messages into the mapped ring,
 * flushes them (waking the reader's futex only when the reader sleeps), and waits for space.
 * Opened by {@link SharedYPipe#createWriter}, {@link SharedYPipe.Builder#createWriter()} or,
 * for a restarted writer, {@link SharedYPipe.Builder#openWriter()}: it resumes after the last
 * message flushed.
 *
 * <p>Exactly one thread at a time uses a writer; {@link #close()} may come from any thread at
 * any time. See {@link SharedYPipe} for the file, the protocol, the peer checks and what a
 * corrupt or truncated file does.
 */
public final class SharedPipeWriter extends SharedPipeEnd {

    private final WaitPolicy writerPolicy;
    /** The spin phase of a wait for space (see {@link SpinWait}). */
    private final RoomSpin roomSpin = new RoomSpin();
    /** The wait for space once the ring was found full, in its flight-recorder event. */
    private final Blocked blockedWait = new Blocked();

    /** Writer: first byte not yet flushed; end of the last complete record; end of the last. */
    private long w;
    private long f;
    private long tail;
    /** Writer: the last head it read. */
    private long headCache;
    /**
     * Writer: complete messages written (a message in parts counts once, at its last part),
     * flushed or not; the anchor's count is this less the unflushed ones (see
     * {@link AnchoredCounts}).
     */
    private long messages;
    /** Writer: the open claim's record position (or -1), length and thread. */
    private long claimStart = -1;
    private int claimLength;
    private Thread claimThread;

    /** One look of the spin phase: does a record of {@code length} fit now? */
    private final class RoomSpin extends SpinWait {
        /** The awaited message's length; writer thread only. */
        int length;

        @Override
        protected boolean ready() {
            return hasRoom(length);
        }
    }

    SharedPipeWriter(SharedPipeFile file, WaitPolicy writerPolicy, long peerCheckNanos) {
        super(file, peerCheckNanos);
        this.writerPolicy = writerPolicy;
        long c = SharedWords.positionAfterArm(shared, C_AT); // checked at open
        w = f = tail = c; // a restarted writer resumes after the last flush
        // A restarted writer continues the count: the anchor's, plus the messages flushed after it.
        messages = SharedPipeCounters.read(shared, ring).flushed;
        headCache = SharedWords.positionAfterArm(shared, HEAD_AT);
        counters.anchor(messages, w); // before any byte is written under this head
    }

    /**
     * Writes {@code src} as one complete message; it becomes visible at the next {@link #flush()}.
     *
     * @param src the message
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IllegalArgumentException if the message is longer than {@link #maxMessageLength()}
     * @throws IllegalStateException if the pipe is closed, or another thread is writing
     */
    public boolean write(byte[] src) {
        Objects.requireNonNull(src, "src");
        return write(src, 0, src.length, false);
    }

    /**
     * Writes {@code length} bytes of {@code src} from {@code offset} as one message.
     *
     * @param src the bytes
     * @param offset where the message starts in {@code src}
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @param incomplete {@code true} if more parts of the same message follow
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
     * @throws IllegalArgumentException if {@code length} is longer than {@link #maxMessageLength()}
     * @throws IllegalStateException if the pipe is closed, or another thread is writing
     */
    public boolean write(byte[] src, int offset, int length, boolean incomplete) {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.length);
        long start = beginWrite(length);
        if (start < 0) {
            return false;
        }
        try {
            ring.put(start, src, offset, length);
            append(start, length, incomplete);
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
        return true;
    }

    /**
     * Writes the remaining bytes of {@code src} as one message, advancing its position past them
     * if the message was written.
     *
     * @param src the bytes
     * @param incomplete {@code true} if more parts of the same message follow
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IllegalArgumentException if {@code src.remaining()} is longer than
     *     {@link #maxMessageLength()}
     * @throws IllegalStateException if the pipe is closed, or another thread is writing
     */
    public boolean write(ByteBuffer src, boolean incomplete) {
        Objects.requireNonNull(src, "src");
        int length = src.remaining();
        long start = beginWrite(length);
        if (start < 0) {
            return false;
        }
        try {
            ring.put(start, src, length);
            src.position(src.position() + length);
            append(start, length, incomplete);
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
        return true;
    }

    /**
     * Claims room for a message of {@code length} bytes to be built in place in
     * {@link #claimBuffer()} at {@code [returned, returned + length)}, until {@link #commit(boolean)}.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @return the index of the message's first byte in {@link #claimBuffer()}, or {@code -1} if
     *     the ring has no room now
     * @throws IllegalArgumentException if {@code length} is out of range
     * @throws IllegalStateException if the pipe is closed, another thread is
     *     writing, or a claim is already open
     */
    public int claim(int length) {
        long start = beginWrite(length);
        if (start < 0) {
            return -1;
        }
        claimStart = start;
        claimLength = length;
        claimThread = Thread.currentThread();
        ring.claimView();
        return ring.payloadIndex(start); // the writer side stays entered until commit
    }

    /**
     * Returns the buffer {@link #claim(int)} indexes (the ring), reset to position 0, limit its
     * capacity and native order. Write only inside an open claim.
     *
     * @return the ring buffer
     * @throws IllegalStateException if the pipe is closed
     */
    public ByteBuffer claimBuffer() {
        checkOpen();
        return ring.claimView();
    }

    /**
     * Completes the open claim: the message is visible at the next flush. If the pipe was closed
     * while the claim was open, the claimed message is discarded (the complete messages written
     * before it are flushed, as by {@link #close()}) and {@link IllegalStateException} thrown.
     *
     * @param incomplete {@code true} if more parts of the same message follow
     * @throws IllegalStateException if no claim is open, or the pipe was closed meanwhile
     */
    public void commit(boolean incomplete) {
        if (claimStart < 0) {
            checkOpen();
            throw new IllegalStateException("no open claim: call claim(length) first");
        }
        long start = claimStart;
        claimStart = -1;
        claimThread = null;
        if (closing()) {
            exit(); // finishes the close: flushes the messages before the claim
            throw new IllegalStateException("pipe is closed: the claimed message is discarded");
        }
        try {
            append(start, claimLength, incomplete);
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * Takes back the message written last, if it has not been flushed yet.
     *
     * @return {@code true} if a message was taken back; {@code false} if everything written has
     *     been flushed
     * @throws IllegalStateException if the pipe is closed, another thread is writing, or a claim is open
     */
    public boolean unwrite() {
        enter();
        try {
            long last = ring.lastMessage(w, tail); // checked: our own records, in a file others can write
            if (last < 0) {
                tail = w; // only padding was unflushed
                return false;
            }
            tail = last;
            long complete = f;
            f = ring.lastCompleteEnd(w, tail); // the end of the last complete record still written
            messages -= ring.lastPartsIn(f, complete); // 1 if a complete message went
            return true;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * Makes every complete message written so far visible to the reader; if the reader was
     * armed to sleep, sends it the wake-up ({@code FUTEX_WAKE}, or a byte on the wake FIFO for a
     * pollable reader) before returning.
     *
     * <p>"Armed" is not always "asleep": a reader arms before its last look for a message (in
     * {@link SharedPipeReader#awaitMessage} and {@link SharedPipeReader#prepareToPoll()}), so a
     * flush that lands between its arm and that look sends a wake-up that the reader does not
     * need: it finds the message by itself ({@code prepareToPoll} returns {@code false}), and the
     * spare wake-up is a {@code FUTEX_WAKE} with no waiter or a byte that the next
     * {@code prepareToPoll} drains. No wake-up is ever missing; one can be spare.
     *
     * @return {@code true} if the reader was awake (or nothing needed flushing); {@code false} if
     *     it was armed to sleep and this call has sent it the wake-up (nothing is left for the
     *     caller to do)
     * @throws IllegalStateException if the pipe is closed, another thread is writing, or the file was truncated
     */
    public boolean flush() {
        if (claimStart >= 0 && claimThread == Thread.currentThread()) {
            try {
                return flushPositions(); // inside our own claim: the side is entered already
            } catch (InternalError | Futex.FaultException e) {
                throw fault(e);
            }
        }
        if (w == f) { // nothing new: the positions are this thread's, the mapping is not touched
            checkOpen();
            return true;
        }
        enter();
        try {
            return flushPositions();
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * Waits until a message of {@code length} bytes fits. Flush first: the reader frees space
     * only by consuming flushed messages.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @throws InterruptedException if interrupted while waiting
     * @throws PeerGoneException if the reader died, or closed its side, while there is no room
     * @throws IOException if the peer check fails
     * @throws IllegalArgumentException if {@code length} is out of range or can never fit behind
     *     the incomplete parts already written
     * @throws IllegalStateException if messages are unflushed, or the pipe is closed (also while waiting)
     */
    public void awaitSpace(int length) throws InterruptedException, IOException {
        awaitRoom(length, -1L);
    }

    /**
     * Waits at most {@code timeout} until a message of {@code length} bytes fits. Flush first.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return {@code true} if the message fits now; {@code false} if the time ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws PeerGoneException if the reader died, or closed its side, while there is no room
     * @throws IOException if the peer check fails
     * @throws IllegalArgumentException if {@code length} or {@code timeout} is out of range
     * @throws IllegalStateException if messages are unflushed, or the pipe is closed (also while waiting)
     * @throws NullPointerException if {@code unit} is null
     */
    public boolean awaitSpace(int length, long timeout, TimeUnit unit)
            throws InterruptedException, IOException {
        return awaitRoom(length, Waits.timeoutNanos(timeout, unit));
    }

    /**
     * Closes the writer side: flushes its complete messages (incomplete parts are dropped), marks
     * the side closed and wakes the reader. A wait for space in another thread ends with
     * {@link IllegalStateException}. If an operation of this writer is running in another thread
     * (a {@code write}, or a claim opened there and not committed yet), that thread does the
     * flush, the mark and the wake-up on its way out, so every message whose write returned
     * before the close is delivered; the message of a claim still open is discarded (its
     * {@link #commit(boolean)} throws). A close from the thread that holds an open claim discards
     * the claim at once and flushes what was written before it. The file is unmapped and the
     * lock's descriptor closed as soon as no operation is inside (at once if none is). The file
     * stays. Idempotent; never throws, even when the file was truncated. (A writer that is never
     * closed gives its side back when it is garbage-collected, without the clean close's flush
     * and mark: the reader sees it as dead.)
     */
    @Override
    public void close() {
        super.close();
    }

    /** Our own open claim: the side is entered by this thread; drop the claim. */
    @Override
    boolean dropOwnHold() {
        if (claimStart >= 0 && claimThread == Thread.currentThread()) {
            claimStart = -1;
            claimThread = null;
            return true;
        }
        return false;
    }

    /** The writer's last act: flush its complete messages (incomplete parts never are). */
    @Override
    void lastAct() {
        tail = f;
        flushPositions();
    }

    // ------------------------------------------------------------------------------------------
    // Protocol
    // ------------------------------------------------------------------------------------------

    /** Writer: true if a message of {@code length} fits at tail, re-reading head if it must. */
    private boolean hasRoom(int length) {
        long need = tail + ring.footprint(tail, length) - capacity;
        if (need <= headCache) {
            return true;
        }
        // Acquire: pairs with the reader's volatile store of head, so the reader's reads of the
        // bytes before head happen-before our overwriting them.
        headCache = newHead(SharedWords.position(shared, HEAD_AT));
        return need <= headCache;
    }

    /**
     * Writer: checks a head it read against what it has written, and before the caller caches
     * it moves the counters' anchor to the last flush if head moved: the bytes this writer may
     * overwrite from now on are those before the new head, and a snapshot's walk reads none of
     * them unless it sees the anchor change (see {@link SharedPipeCounters}). A ring lap apart
     * at most, and only on the path that found the ring full by the old head. The check and the
     * anchor are one call, as the check alone was: with the anchor in a call of its own, the
     * JIT's code for a write that fits took 2 to 5 more instructions (callgrind,
     * {@code instructions.sh shared}).
     *
     * @return {@code head}
     */
    private long newHead(long head) {
        if (head < 0 || head > w || tail - head > capacity || (head & 7) != 0) {
            throw corrupt("head " + head + " with the writer at " + w + " in a ring of " + capacity);
        }
        if (head != headCache) {
            anchor();
        }
        return head;
    }

    /** Writer: anchors the count at the last flush, w (the complete messages in [w, f) are unflushed). */
    private void anchor() {
        counters.anchor(messages - ring.lastPartsIn(w, f), w);
    }

    /** Writer: enters, finds room at tail (writing a padding record if needed), or leaves. */
    private long beginWrite(int length) {
        ring.checkLength(length);
        enter();
        try {
            if (!hasRoom(length)) {
                exit();
                return -1;
            }
            return ring.start(tail, length); // a padding record: the flush's volatile store publishes it
        } catch (InternalError e) {
            exit();
            throw fault(e);
        }
    }

    private void append(long start, int length, boolean incomplete) {
        tail = ring.seal(start, length, incomplete); // plain, as above
        if (!incomplete) {
            f = tail;
            messages++; // the counters' cost per message: an add on this writer's own field
        }
    }

    /**
     * Writer, inside its side: publishes [w, f). The ring's bytes were written with plain stores;
     * the volatile store of c orders them before it (the reader's acquire load that sees c sees
     * them) and is followed by a full fence, so the load of readerSleep cannot pass it (Dekker
     * with the reader's arm, see {@link SharedWords}). The message count costs nothing here: a
     * snapshot counts the records up to c (see {@link SharedPipeCounters}); a wake-up, already
     * a slow path, moves the anchor to keep that walk short on a quiet pipe.
     */
    private boolean flushPositions() {
        if (w == f) {
            return true;
        }
        SharedWords.publish(shared, C_AT, f);
        w = f;
        if (wake.ifAsleep()) {
            return true;
        }
        anchor();
        counters.wokeReader();
        WakeupEvent.emit("SharedPipeWriter flush", eventName);
        return false;
    }

    /** Writer: waits for room; {@code timeoutNanos < 0}: no limit. */
    private boolean awaitRoom(int length, long timeoutNanos) throws InterruptedException, IOException {
        ring.checkLength(length);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = Waits.deadline(Math.max(0, timeoutNanos));
        enter();
        try {
            if (w != f) {
                throw new IllegalStateException("flush() before awaiting space: " + (f - w)
                        + " unflushed bytes would never be consumed");
            }
            long held = tail - f; // incomplete parts: the reader cannot consume them yet
            if (held + ring.footprint(tail, length) > capacity) {
                throw new IllegalArgumentException("length " + length + " can never fit: " + held
                        + " bytes of incomplete parts are held in a ring of " + capacity + " bytes");
            }
            boolean room = hasRoom(length);
            if (room || timeoutNanos == 0) {
                return room;
            }
            counters.writerWaited();
            return blockedWait.blocked(eventName, length, timeoutNanos > 0, deadline);
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /** {@link #waitForRoom} in the byte pipes' {@link RoomWait} (its flight-recorder event). */
    private final class Blocked extends RoomWait<IOException> {
        Blocked() {
            super("SharedPipeWriter");
        }

        @Override
        protected boolean waitForRoom(int length, boolean timed, long deadline) throws InterruptedException, IOException {
            return SharedPipeWriter.this.waitForRoom(length, timed, deadline);
        }
    }

    /** {@link #awaitRoom} inside the side, once the ring was found full: spin, then sleep. */
    private boolean waitForRoom(int length, boolean timed, long deadline)
            throws InterruptedException, IOException {
        roomSpin.length = length;
        if (roomSpin.spin(writerPolicy)) {
            return true;
        }
        ParkEvent event = null;
        String outcome = Outcome.CLOSE;
        try {
            for (;;) {
                // Arm (writerWake read, a new odd writerSleep stored), then head with a volatile
                // load: the reader's volatile store of head either comes before it (room) or
                // its following look sees our odd counter (and bumps writerWake).
                sleep.arm();
                headCache = newHead(SharedWords.positionAfterArm(shared, HEAD_AT));
                if (hasRoom(length)) {
                    sleep.disarm();
                    outcome = Outcome.SIGNAL;
                    return true;
                }
                // After the arm's read of writerWake: a reader's close is seen here, or bumps
                // the word after we read it (FUTEX_WAIT then returns at once).
                if (peerState() == CLOSED) {
                    sleep.disarm();
                    peerGone("the reader closed its side");
                    throw new PeerGoneException(file.peerName() + " closed " + path + ": no space will come");
                }
                long slice = peerCheckNanos;
                if (timed) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        sleep.disarm();
                        outcome = Outcome.TIMEOUT;
                        return false;
                    }
                    slice = Math.min(slice, left);
                }
                if (event == null) {
                    event = ParkEvent.begin("SharedPipeWriter", eventName);
                }
                boolean woken = sleep(sleep.seq(), slice);
                if (Thread.interrupted()) {
                    sleep.disarm();
                    outcome = Outcome.INTERRUPT;
                    throw new InterruptedException();
                }
                if (!woken && !hasRoom(length) && peerState() == OPEN && file.peerDied()) {
                    peerGone("the reader died");
                    throw new PeerGoneException(file.peerName() + " died: no space will come in " + path);
                }
            }
        } finally {
            ParkEvent.end(event, outcome);
        }
    }
}
