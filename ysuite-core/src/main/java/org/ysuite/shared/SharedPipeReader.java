package org.ysuite.shared;

import static org.ysuite.internal.RecordDescriptor.PADDING;
import static org.ysuite.internal.RecordDescriptor.recordSize;
import static org.ysuite.internal.SharedPipeDescriptor.CLOSED;
import static org.ysuite.internal.SharedPipeDescriptor.C_AT;
import static org.ysuite.internal.SharedPipeDescriptor.HEAD_AT;
import static org.ysuite.internal.SharedPipeDescriptor.OPEN;

import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.ysuite.MessageHandler;
import org.ysuite.WaitPolicy;
import org.ysuite.internal.Futex;
import org.ysuite.internal.RecordRing;
import org.ysuite.internal.SharedPipeCounters;
import org.ysuite.internal.SharedPipeDescriptor;
import org.ysuite.internal.SpinWait;
import org.ysuite.internal.Waits;
import org.ysuite.internal.event.Outcome;
import org.ysuite.internal.event.ParkEvent;

/**
 * The reader side of a shared pipe ({@link SharedYPipe}): reads the messages the writer flushed,
 * copying or as views into the mapped ring, and sleeps on a futex when there are none. Opened by
 * {@link SharedYPipe#openReader} or {@link SharedYPipe.Builder#openReader()}: it reads from the
 * last head published, so a restarted reader resumes where the last one left off.
 *
 * <p>Every record header is read once from the file and checked before its length is used.
 * Exactly one thread at a time uses a reader; {@link #close()} may come from any thread at any
 * time. See {@link SharedYPipe} for the file, the protocol, the peer checks and what a corrupt or
 * truncated file does.
 */
public final class SharedPipeReader extends SharedPipeEnd {

    private final WaitPolicy readerPolicy;
    /** The spin phase of a reader that found nothing (see {@link SpinWait}). */
    private final FlushSpin flushSpin = new FlushSpin();
    /** {@link #readBatch}'s hand-back of each consumed record. */
    private final RecordRing.Reader consumed = new RecordRing.Reader() {
        @Override
        public boolean consumedTo(long next) {
            front = next;
            return closing(); // the handler closed the pipe
        }
    };

    /** Reader: next record to read; end of what it has prefetched. */
    private long front;
    private long r;
    /** Reader: the header of the record at front, read once from the file and checked. */
    private int frontHeader;
    /** The wake-up FIFO of a pollable reader ({@link SharedYPipe.Builder#pollable()}), or null. */
    private final SharedPipeWakeFifo fifo;
    /** Reader: the way of waiting last stored in the file (READER_POLLS_AT). */
    private int waitsBy;

    /** One look of the spin phase: has the writer flushed past front? */
    private final class FlushSpin extends SpinWait {
        /** The c it saw; reader thread only. */
        long seen;

        @Override
        protected boolean ready() {
            seen = SharedWords.position(shared, C_AT);
            return seen != front;
        }
    }

    SharedPipeReader(SharedPipeFile file, WaitPolicy readerPolicy, long peerCheckNanos, SharedPipeWakeFifo fifo) {
        super(file, peerCheckNanos);
        this.readerPolicy = readerPolicy;
        this.fifo = fifo;
        this.waitsBy = -1;
        waitBy(fifo == null ? SharedPipeWakeFifo.NOT_POLLABLE : SharedPipeWakeFifo.IN_FUTEX);
        front = r = SharedWords.positionAfterArm(shared, HEAD_AT); // the last published head
    }

    /**
     * Tells whether a message can be read, prefetching every message flushed so far. A
     * {@code false} answer has marked the reader asleep (the writer's next flush will wake the
     * futex); use {@link #awaitMessage()} to sleep.
     *
     * @return {@code true} if {@link #read(byte[])} will return a message
     * @throws IllegalStateException if the pipe is closed, another thread is
     *     reading, or the file is corrupt
     */
    public boolean checkRead() {
        enter();
        long from = front;
        try {
            return nextMessage();
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            leaveReader(from);
        }
    }

    /**
     * Copies the next message into {@code dst}.
     *
     * @param dst where to copy the message, from index 0
     * @return the message's length, or {@code -1} if the pipe is empty
     * @throws NullPointerException if {@code dst} is null
     * @throws IllegalArgumentException if the message is longer than {@code dst} (it stays)
     * @throws IllegalStateException if the pipe is closed, another thread is
     *     reading, or the file is corrupt
     */
    public int read(byte[] dst) {
        Objects.requireNonNull(dst, "dst");
        enter();
        long from = front;
        try {
            if (!nextMessage()) {
                return -1;
            }
            // frontHeader: read once and checked by nextMessage (another process may change the
            // file's copy meanwhile; what we copy and how far we advance follow the checked one)
            int length = ring.copy(front, frontHeader, dst);
            front += recordSize(length);
            return length;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            leaveReader(from);
        }
    }

    /**
     * Hands every prefetched message, or if there is none every message flushed so far, to
     * {@code handler} as views into the ring (see {@link MessageHandler}); head is
     * published once, when the call returns.
     *
     * @param handler called once per message, in order; an exception from it propagates, and
     *     its message counts as read
     * @return how many messages were handed over; {@code 0} if the pipe is empty
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalStateException if the pipe is closed, another thread is
     *     reading, or the file is corrupt
     */
    public int readBatch(MessageHandler handler) {
        Objects.requireNonNull(handler, "handler");
        enter();
        long from = front;
        try {
            if (!nextMessage()) {
                return 0;
            }
            inCallback = true; // the handler may close this reader: see SharedPipeEnd.close
            return ring.drain(front, r, frontHeader, handler, consumed, Integer.MAX_VALUE); // each header read once
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            inCallback = false;
            leaveReader(from);
        }
    }

    /**
     * Waits until a message can be read.
     *
     * @return {@code true} if a message can be read; {@code false} if the writer closed its side
     *     and every message was read
     * @throws PeerGoneException if the writer died, after every message it flushed was read
     * @throws InterruptedException if interrupted while waiting
     * @throws IOException if the peer check fails
     * @throws IllegalStateException if the pipe is closed (also while
     *     waiting), another thread is reading, or the file is corrupt
     */
    public boolean awaitMessage() throws InterruptedException, IOException {
        return awaitRead(-1L);
    }

    /**
     * Waits at most {@code timeout} until a message can be read.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return {@code true} if a message can be read; {@code false} at the end of the stream or
     *     when the time ran out ({@link #isEndOfStream()} tells which)
     * @throws PeerGoneException if the writer died, after every message it flushed was read
     * @throws InterruptedException if interrupted while waiting
     * @throws IOException if the peer check fails
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if the pipe is closed (also while
     *     waiting), another thread is reading, or the file is corrupt
     */
    public boolean awaitMessage(long timeout, TimeUnit unit) throws InterruptedException, IOException {
        return awaitRead(Waits.timeoutNanos(timeout, unit));
    }

    /**
     * Returns the descriptor a pollable reader waits on in {@code poll}/{@code epoll} (or a Netty
     * epoll loop) for {@code POLLIN}/{@code EPOLLIN}, after {@link #prepareToPoll()} returned
     * {@code true}: the wake-up FIFO beside the pipe file ({@code <file>.wake}), open non-blocking.
     * It stays the same number while the reader is open; {@link #close()} closes it (take it out
     * of an epoll set first). Level- and edge-triggered waits both work: the writer writes one
     * byte per wake-up, after {@code prepareToPoll} emptied the FIFO.
     *
     * @return the descriptor
     * @throws IllegalStateException if the reader was not opened {@link SharedYPipe.Builder#pollable()
     *     pollable}, or is closed
     */
    public int wakeFd() {
        requirePollable();
        checkOpen();
        return fifo.fd();
    }

    /**
     * Gets a pollable reader ready to wait on {@link #wakeFd()}: empties the FIFO, then looks for
     * a message exactly as {@link #checkRead()} does, which marks the reader asleep when there is
     * none (after its {@link WaitPolicy}'s spin: {@link WaitPolicy#purePark()} spins none, for
     * an event loop). {@code true}: wait for the descriptor to become readable, then read
     * ({@link #readBatch}, {@link #read}), which marks the reader awake. {@code false}: do not
     * wait; a message can be read, or the writer closed its side ({@link #isEndOfStream()}).
     *
     * <p>No wake-up is lost: the reader announces the poll in the file (while it does, the
     * writer's wake-up is the byte, not {@code FUTEX_WAKE}; {@link #awaitMessage} announces the
     * futex again), then drains, then arms (a volatile store of an odd {@code readerSleep}), then
     * looks at {@code c} a last time; the writer's flush stores {@code c}, then loads
     * {@code readerSleep} and the announcement and, seeing it odd, writes its byte. Either
     * this look sees the flush, or the writer's byte comes after the arm, so after the drain, and
     * stays until the wait. A writer killed without closing writes nothing: wait with a timeout
     * (e.g. the {@link SharedYPipe.Builder#peerCheck peer check}) and then call
     * {@link #awaitMessage(long, TimeUnit)} with a short timeout, which reports a dead writer.
     *
     * @return {@code true} if the caller should wait on {@link #wakeFd()}; {@code false} if a
     *     message is readable or the writer has closed
     * @throws IllegalStateException if the reader was not opened pollable, is closed, another
     *     thread is reading, or the file is corrupt
     */
    public boolean prepareToPoll() {
        requirePollable();
        enter();
        long from = front;
        try {
            waitBy(SharedPipeWakeFifo.IN_POLL); // before the arm's look at c
            fifo.drain();
            if (nextMessage()) {
                return false;
            }
            // Armed, nothing new. A writer's close (CLOSED, then bump and byte) that this misses
            // rings after our drain: the byte keeps the descriptor readable (see SharedWords).
            return peerState() != CLOSED;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            leaveReader(from);
        }
    }

    /**
     * Reader: announces how it will wait ({@link SharedPipeWakeFifo#IN_FUTEX}, {@code IN_POLL}),
     * storing the word only when it changes. A volatile store before the arm's look at {@code c}:
     * a flush this look misses sees it (see {@link SharedPipeWakeFifo.WriterBell}).
     */
    private void waitBy(int mode) {
        if (waitsBy != mode) {
            waitsBy = mode;
            SharedPipeDescriptor.INT.setVolatile(shared, SharedPipeDescriptor.READER_POLLS_AT, mode);
        }
    }

    private void requirePollable() {
        if (fifo == null) {
            throw new IllegalStateException("the reader of " + path + " was not opened pollable"
                    + " (SharedYPipe.builder(file).pollable().openReader())");
        }
    }

    /**
     * Tells whether the writer closed its side and every message it flushed has been read.
     *
     * @return {@code true} at the clean end of the stream
     * @throws IllegalStateException if the pipe is closed or another thread
     *     is reading
     */
    public boolean isEndOfStream() {
        enter();
        try {
            return front == r && peerState() == CLOSED && SharedWords.positionAfterArm(shared, C_AT) == front;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * Closes the reader side: marks it closed and wakes a writer waiting for space (which then
     * gets {@link PeerGoneException}). A wait of this reader in another thread ends with
     * {@link IllegalStateException}. The file is unmapped and the lock's descriptor closed as
     * soon as no operation is inside (at once if none is). The file stays. Idempotent; never
     * throws, even when the file was truncated. (A reader that is never closed gives its side
     * back when it is garbage-collected, without the clean close's mark: the writer sees it as
     * dead.)
     */
    @Override
    public void close() {
        super.close();
    }

    // ------------------------------------------------------------------------------------------
    // Protocol
    // ------------------------------------------------------------------------------------------

    /**
     * Reader: true if [front, r) is not empty, prefetching everything flushed if it is. When
     * nothing new was flushed the reader spins on acquire loads of c, then arms its sleep
     * (readerWake read, then a new odd readerSleep stored) and looks at c once more with a
     * volatile load: a flush racing it either lands before that look (we see its end) or sees
     * the odd counter (and wakes us). False: armed, nothing new.
     */
    private boolean checkReadPositions() {
        if (front != r) {
            return true;
        }
        long seen = SharedWords.position(shared, C_AT);
        if (seen == front) {
            // An armed reader has spun already (a check that found nothing): it does not again.
            if (!sleep.isArmed() && flushSpin.spin(readerPolicy)) {
                seen = flushSpin.seen;
            } else {
                sleep.arm();
                seen = SharedWords.positionAfterArm(shared, C_AT);
                if (seen == front) {
                    return false; // armed: the writer's next flush wakes us
                }
            }
        }
        sleep.disarm(); // awake: the writer need not wake us (nothing if not armed)
        if (seen < front || seen - front > capacity || (seen & 7) != 0) {
            throw corrupt("c is " + seen + " with the reader at " + front);
        }
        r = seen;
        return true;
    }

    /**
     * Reader: skips padding; true if a message is at front (its header, read once and checked,
     * in frontHeader), false if the reader is armed to sleep.
     */
    private boolean nextMessage() {
        while (checkReadPositions()) {
            int header = ring.headerAt(front);
            long end = ring.recordEnd(front, header, r); // checks it before anyone uses its length
            if (header != PADDING) {
                frontHeader = header;
                return true;
            }
            front = end;
        }
        return false;
    }

    /**
     * Reader: leaves its side, first publishing head if this call consumed anything: a volatile
     * store (its release orders our reads of the records before it; the writer's acquire of head
     * may then reuse their bytes), then the look at writerSleep (Dekker with the writer's arm).
     * The count consumed is head itself: a snapshot counts the records before it (see
     * SharedPipeCounters).
     */
    private void leaveReader(long from) {
        try {
            if (front != from) {
                SharedWords.publish(shared, HEAD_AT, front);
                wake.ifAsleep();
            }
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /** Reader: waits for a message; {@code timeoutNanos < 0}: no limit. */
    private boolean awaitRead(long timeoutNanos) throws InterruptedException, IOException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = Waits.deadline(Math.max(0, timeoutNanos));
        enter();
        long from = front;
        ParkEvent event = null;
        boolean slept = false;
        String outcome = Outcome.CLOSE;
        try {
            if (fifo != null) {
                waitBy(SharedPipeWakeFifo.IN_FUTEX); // before the looks at c below
            }
            for (;;) {
                if (nextMessage()) {
                    outcome = Outcome.SIGNAL;
                    return true;
                }
                // Armed, nothing past front. The writer's CLOSED (acquire) comes after its last
                // flush; read after the arm's read of readerWake, so a close we miss here bumps
                // the word after that read and FUTEX_WAIT returns at once.
                if (peerState() == CLOSED) {
                    return nextMessage();
                }
                long slice = peerCheckNanos;
                if (timeoutNanos >= 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        outcome = Outcome.TIMEOUT;
                        return false;
                    }
                    slice = Math.min(slice, left);
                }
                if (!slept) {
                    slept = true;
                    counters.slept(); // once per wait, however many slices
                    event = ParkEvent.begin("SharedPipeReader", eventName);
                }
                long asleepFrom = System.nanoTime(); // the slow path only: around the futex
                boolean woken = sleep(sleep.seq(), slice);
                counters.asleep(System.nanoTime() - asleepFrom);
                if (Thread.interrupted()) {
                    outcome = Outcome.INTERRUPT;
                    throw new InterruptedException();
                }
                if (!woken && peerState() == OPEN && file.peerDied()) {
                    if (nextMessage()) {
                        return true; // flushed before it died
                    }
                    peerGone("the writer died");
                    throw new PeerGoneException(file.peerName() + " died; every message it flushed to "
                            + path + " has been read");
                }
            }
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            ParkEvent.end(event, outcome);
            leaveReader(from);
        }
    }
}
