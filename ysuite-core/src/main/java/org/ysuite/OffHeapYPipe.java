// Over 600 lines, one concept: this is the off-heap pipe's public API, each method with its javadoc
// and argument checks (about 380 of its lines are javadoc); the ring's machinery is in
// OffHeapRing and the field layout in OffHeapYPipeFields.
package org.ysuite;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.internal.RecordDescriptor;
import org.ysuite.internal.RecordRing;
import org.ysuite.internal.SideGuard;
import org.ysuite.internal.Waits;
import org.ysuite.internal.event.WakeupEvent;

/**
 * ØMQ's ypipe protocol (see {@link YPipe}) over a bounded ring of variable-length byte messages in
 * off-heap memory, from one writer thread to one reader thread.
 *
 * <h2>Ring</h2>
 * The ring is a direct, 64-byte-aligned buffer of {@link #capacity()} bytes (a power of two).
 * Each message is a record: a 4-byte header (its length, and a flag for a part followed by more
 * parts) and the payload, padded to 8 bytes. A record never wraps: when it does not fit before the
 * ring's end, a padding record fills the end and the message starts at the beginning. So every
 * message is one contiguous view, and a message of up to {@link #maxMessageLength()} bytes
 * ({@code capacity / 2 - 4}) always fits once the reader has caught up.
 *
 * <h2>Protocol</h2>
 * Positions count bytes and never wrap; the pipe's flush and check-read are {@link YPipe}'s:
 * {@link #flush()} returns {@code false} when the reader has gone to sleep and must be signalled.
 * In the other direction the reader publishes {@code head}, how far it has consumed; a writer that
 * finds the ring full can {@link #awaitSpace(int) wait for space}: it raises a flag and parks, and
 * the reader that frees space clears the flag and unparks it — passive synchronisation backwards,
 * so neither side spins forever. Head and the flag share one word with the reader side's close
 * guard, so the reader's one atomic exit from each call publishes head and sees the flag: it pays
 * no fence and no extra atomic while no writer waits. Each side waits as its {@link WaitPolicy}
 * says.
 *
 * <h2>Waiting</h2>
 * The reader waits with {@link #awaitMessage()}: a flush that finds it asleep wakes it, so the
 * writer only writes and flushes. A reader that must also wait for other things (a socket, other
 * pipes) may instead wait on a {@link Signaler} of its own, as with {@link YPipe}: the writer
 * then signals it whenever {@code flush()} returns {@code false}.
 * <pre>{@code
 * // writer                                  // reader
 * pipe.write(bytes);                         for (;;) {
 * pipe.flush();                                  if (pipe.readBatch(handler) == 0) {
 *                                                    pipe.awaitMessage();
 *                                                }
 *                                            }
 * }</pre>
 *
 * <h2>Views</h2>
 * {@link #readBatch(MessageHandler)} hands each message to the handler as a view (the ring
 * buffer, an offset, a length) without copying; {@link #claim(int)} / {@link #commit(boolean)} let
 * a writer build a message in place. A view is valid only until the handler returns, a claim only
 * until it is committed: the ring reuses the bytes afterwards. Each handler call, each claim and
 * each {@link #claimBuffer()} call sees its buffer with position {@code 0}, limit its capacity and
 * native byte order, whatever was done with them before, so a handler or writer may move them
 * (e.g. {@code buffer.limit(offset + length).position(offset)} before a channel write).
 *
 * <h2>Byte order</h2>
 * The pipe carries bytes unchanged; byte order matters only to whoever puts numbers into a
 * message and reads them out. The views come in {@link java.nio.ByteOrder#nativeOrder() native
 * order} (little-endian on x86-64 and AArch64), <em>not</em> in the big-endian order a new
 * {@code ByteBuffer} starts with. So a message built with {@code ByteBuffer.allocate(n).putLong(x)}
 * (big-endian) and read with the handler's {@code buffer.getLong(offset)} (native) gives a wrong
 * number and no error. Read numbers in the order they were written: build messages in native
 * order ({@code ByteBuffer.allocate(n).order(ByteOrder.nativeOrder())}, or {@link #claimBuffer()},
 * which is native already), or set the order the writer used in the handler
 * ({@code buffer.order(ByteOrder.BIG_ENDIAN)}; the next call gets native order again).
 *
 * <h2>Close</h2>
 * {@link #close()} may be called from any thread at any time, also from inside a handler. The
 * memory is freed as soon as neither side is inside an operation (at once if neither is), so no
 * operation ever touches freed memory; every operation after {@code close} throws
 * {@link IllegalStateException}, and a writer waiting for space wakes up and throws it. Messages
 * still in the pipe are discarded. On JDK 22 and later even a view kept past its validity throws
 * instead of reading freed memory.
 *
 * <p>Exactly one thread at a time may write and one may read; a second thread entering a side
 * while it is in use gets {@link IllegalStateException} (for {@link #flush()}, which only looks
 * at the writer side, see there what is and is not detected). A handler that calls back into the
 * reader side (read, checkRead, readBatch) gets {@link IllegalStateException} too.
 */
public final class OffHeapYPipe extends OffHeapRing implements AutoCloseable {

    /** Smallest ring capacity in bytes. */
    public static final int MIN_CAPACITY_BYTES = RecordRing.MIN_CAPACITY;
    /** Largest ring capacity in bytes. */
    public static final int MAX_CAPACITY_BYTES = RecordRing.MAX_CAPACITY;

    /**
     * Creates a pipe whose ring holds {@code capacityBytes} bytes; its reader and a writer
     * waiting for space wait as {@link WaitPolicy#defaultPolicy()} says.
     *
     * @param capacityBytes the ring's size: a power of two from {@value #MIN_CAPACITY_BYTES} to
     *     {@value #MAX_CAPACITY_BYTES}
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range or not a power of two
     */
    public OffHeapYPipe(int capacityBytes) {
        this(capacityBytes, WaitPolicy.defaultPolicy(), WaitPolicy.defaultPolicy());
    }

    /**
     * Creates a pipe whose ring holds {@code capacityBytes} bytes; its reader and a writer
     * waiting for space both wait as {@code policy} says. The reader uses {@code policy}, the
     * writer {@link WaitPolicy#newState() policy.newState()}: an
     * {@link WaitPolicy#adaptive() adaptive} policy adapts to each side's waits on its own.
     *
     * @param capacityBytes the ring's size: a power of two from {@value #MIN_CAPACITY_BYTES} to
     *     {@value #MAX_CAPACITY_BYTES}
     * @param policy how both sides wait
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range or not a power of two
     * @throws NullPointerException if {@code policy} is null
     */
    public OffHeapYPipe(int capacityBytes, WaitPolicy policy) {
        this(capacityBytes, policy, Waits.checkPolicy(policy, "policy").newState());
    }

    /**
     * Creates a pipe whose ring holds {@code capacityBytes} bytes, with each side's waiting
     * policy.
     *
     * <p>The reader's policy says how long a reader that finds the pipe empty spins before it
     * goes to sleep (while it spins it is awake: the writer's flushes need no signal). The
     * writer's says how long {@link #awaitSpace(int)} spins before it parks.
     *
     * @param capacityBytes the ring's size: a power of two from {@value #MIN_CAPACITY_BYTES} to
     *     {@value #MAX_CAPACITY_BYTES}
     * @param readerPolicy how the reader waits before it sleeps
     * @param writerPolicy how a writer waiting for space waits
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range or not a power of two
     * @throws NullPointerException if a policy is null
     */
    public OffHeapYPipe(int capacityBytes, WaitPolicy readerPolicy, WaitPolicy writerPolicy) {
        super(capacityBytes, readerPolicy, writerPolicy);
    }

    /**
     * Returns the largest message a ring of {@code capacityBytes} can carry.
     *
     * @param capacityBytes a ring capacity accepted by {@link #OffHeapYPipe(int)}
     * @return {@code capacityBytes / 2 - 4}
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range or not a power of two
     */
    public static int maxMessageLength(int capacityBytes) {
        return RecordDescriptor.maxLength(checkCapacity(capacityBytes));
    }

    /**
     * Returns the largest message this pipe can carry.
     *
     * @return the limit in bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Names this pipe: the name appears in its Flight Recorder events (see
     * docs/observability.md), so that a recording tells pipes apart. Name it before handing it
     * to other threads, or their events may still carry the old name for a while.
     *
     * @param name the name
     * @return this pipe
     * @throws NullPointerException if {@code name} is null
     */
    public OffHeapYPipe named(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * Returns the name given by {@link #named(String)}.
     *
     * @return the name, or {@code null} if the pipe has none
     */
    public String name() {
        return name;
    }

    /**
     * Returns a snapshot of this pipe's counters (see {@link PipeStats}): messages flushed;
     * wake-ups (flushes that found the reader asleep); sleeps and time asleep of a reader in
     * {@link #awaitMessage()}; waits for space of a writer in {@link #awaitSpace(int)} that found
     * the ring full; and the depth, messages flushed and not yet read. A message written in parts
     * counts once: flushed with its last part, read once its last part is read. Any thread may
     * call it, at any time, also after {@link #close()} (which keeps the counts it had); it
     * allocates the snapshot and nothing else.
     *
     * <p>Neither a flush nor a read counts anything: the message counts are derived here from
     * the positions the pipe keeps anyway, by walking the records between the writer's anchor
     * (moved once a ring lap) and the reader's and writer's positions: at most two rings of
     * record headers per call (see docs/observability.md).
     *
     * @return the counters
     */
    public PipeStats stats() {
        return snapshot();
    }

    /**
     * Returns the ring's size.
     *
     * @return the capacity in bytes
     */
    public int capacity() {
        return capacity;
    }

    // ------------------------------------------------------------------------------------------
    // Writer
    // ------------------------------------------------------------------------------------------

    /**
     * Writes {@code src} as one complete message; it becomes visible at the next {@link #flush()}.
     *
     * @param src the message
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IllegalArgumentException if the message is longer than {@link #maxMessageLength()}
     * @throws IllegalStateException if the pipe is closed or another thread is writing
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
     * @param incomplete {@code true} if more parts of the same message follow: the part is held
     *     back from flushing until a complete part is written after it
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
     * @throws IllegalArgumentException if {@code length} is longer than {@link #maxMessageLength()}
     * @throws IllegalStateException if the pipe is closed or another thread is writing
     */
    public boolean write(byte[] src, int offset, int length, boolean incomplete) {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.length);
        checkLength(length);
        long start = beginWrite(length);
        if (start < 0) {
            return false;
        }
        try {
            put(start, src, offset, length);
            append(start, length, incomplete);
        } catch (RuntimeException | Error e) {
            exitWriter(); // out of the hot path: keeps write small enough for the JIT to inline
            throw e;
        }
        exitWriter();
        return true;
    }

    /**
     * Writes the {@linkplain ByteBuffer#remaining() remaining} bytes of {@code src} as one
     * message, advancing its position past them if the message was written.
     *
     * @param src the bytes
     * @param incomplete {@code true} if more parts of the same message follow
     * @return {@code true} if written; {@code false} if the ring has no room now ({@code src} is
     *     then untouched)
     * @throws NullPointerException if {@code src} is null
     * @throws IllegalArgumentException if {@code src.remaining()} is longer than
     *     {@link #maxMessageLength()}
     * @throws IllegalStateException if the pipe is closed or another thread is writing
     */
    public boolean write(ByteBuffer src, boolean incomplete) {
        Objects.requireNonNull(src, "src");
        int length = src.remaining();
        checkLength(length);
        long start = beginWrite(length);
        if (start < 0) {
            return false;
        }
        try {
            put(start, src, length);
            src.position(src.position() + length);
            append(start, length, incomplete);
        } catch (RuntimeException | Error e) {
            exitWriter(); // out of the hot path, as in write(byte[], ...)
            throw e;
        }
        exitWriter();
        return true;
    }

    /**
     * Claims room for a message of {@code length} bytes to be built in place in
     * {@link #claimBuffer()}, at indexes {@code [returned, returned + length)}. The writer side
     * stays claimed (other writer calls but {@link #flush()} fail) until {@link #commit(boolean)}.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @return the index of the message's first byte in {@link #claimBuffer()}, or {@code -1} if
     *     the ring has no room now
     * @throws IllegalArgumentException if {@code length} is negative or longer than
     *     {@link #maxMessageLength()}
     * @throws IllegalStateException if the pipe is closed, another thread is writing, or a claim
     *     is already open
     */
    public int claim(int length) {
        checkLength(length);
        long start = beginWrite(length);
        if (start < 0) {
            return -1;
        }
        claimStart = start;
        claimLength = length;
        claimThread = Thread.currentThread(); // lets this thread flush during its claim
        records.claimView(); // the writer may have moved its position and limit last time
        return records.payloadIndex(start); // the writer side stays entered until commit
    }

    /**
     * Returns the buffer that {@link #claim(int)} indexes: the ring itself. Write only inside a
     * claimed range, and only until the claim is committed. Each successful {@code claim} and
     * each call of this method reset the buffer to position {@code 0}, limit its capacity and
     * native byte order, so the writer may narrow it to the claim and use relative puts. After a
     * {@code close()} this throws; a writer holding a claim should still call
     * {@link #commit(boolean)} (in a {@code finally}), which releases the ring.
     *
     * @return the ring buffer, in native byte order
     * @throws IllegalStateException if the pipe is closed
     */
    public ByteBuffer claimBuffer() {
        checkOpen(getOpaqueWriterWord());
        return records.claimView();
    }

    /**
     * Completes the open claim: the message becomes part of the pipe, visible at the next flush.
     * If the pipe was closed while the claim was open, the claim is discarded, the writer side
     * is released (so the memory can be freed) and {@link IllegalStateException} is thrown.
     *
     * @param incomplete {@code true} if more parts of the same message follow
     * @throws IllegalStateException if no claim is open, or the pipe was closed meanwhile
     */
    public void commit(boolean incomplete) {
        if (claimStart < 0) {
            checkOpen(getOpaqueWriterWord());
            throw new IllegalStateException("no open claim: call claim(length) first");
        }
        long start = claimStart;
        claimStart = -1;
        claimThread = null;
        if ((getOpaqueWriterWord() & SideGuard.CLOSING) != 0) {
            exitWriter(); // the last one out frees the memory
            throw new IllegalStateException("pipe is closed: the claimed message is discarded");
        }
        append(start, claimLength, incomplete);
        exitWriter();
    }

    /**
     * Takes back the message written last, if it has not been flushed yet (complete or not).
     *
     * @return {@code true} if a message was taken back; {@code false} if everything written has
     *     been flushed
     * @throws IllegalStateException if the pipe is closed, another thread is writing, or a claim
     *     is open
     */
    public boolean unwrite() {
        enterWriter();
        try {
            return unwriteLast();
        } finally {
            exitWriter();
        }
    }

    /**
     * Makes every complete message written so far visible to the reader.
     *
     * <p>{@code flush} does not enter the writer side (it must work while this thread's own
     * claim is open, and costs one atomic instruction); it only looks at it, and throws if
     * another thread is inside a writer call or holds an open claim. Two threads flushing, or one
     * flushing while another begins a write, at the same moment are not detected (unless the
     * flush finds the pipe flushed by the other thread: then it throws): the reader may then see
     * a message before it is fully written. The off-heap memory is never at risk:
     * {@code flush} touches only heap fields.
     *
     * <p>A reader waiting in {@link #awaitMessage()} is woken by this call itself. A reader
     * that waits by other means (a {@link Signaler} of yours, as with {@link YPipe}) must be
     * signalled by the caller when this returns {@code false}.
     *
     * @return {@code true} if the reader is awake (or nothing needed flushing); {@code false} if
     *     the reader had gone to sleep: a reader in {@link #awaitMessage()} has been woken, any
     *     other must now be woken by a signal from the caller
     * @throws IllegalStateException if the pipe is closed, or another thread is inside a writer
     *     call or holds an open claim
     */
    public boolean flush() {
        long side = getOpaqueWriterWord();
        if (side != 0) { // the writer word has no payload: IDLE is 0
            checkOpen(side);
            // BUSY: fine only for this thread's own open claim (claim() wrote both fields on
            // this thread, so it sees them; another thread's racy read can only miss a misuse,
            // never reject a correct call, which always sees IDLE or its own claim).
            if (claimStart < 0 || claimThread != Thread.currentThread()) {
                throw new IllegalStateException("the writer side is in use by another thread"
                        + " (a second writer thread): flush() belongs to the writer");
            }
        }
        // Touches only heap fields: no need to enter the writer side.
        if (flushPositions()) {
            return true;
        }
        signalReader(); // the reader is asleep: wake it if it waits in awaitMessage
        wakeupsSent++;
        WakeupEvent.emit("OffHeapYPipe flush", name);
        return false;
    }

    /**
     * Waits until a message of {@code length} bytes fits. Flush first (and signal the reader if
     * the flush asked for it): the reader frees space only by consuming flushed messages.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @throws InterruptedException if the writer is interrupted while waiting
     * @throws IllegalArgumentException if {@code length} is out of range, or can never fit behind
     *     the incomplete parts already written
     * @throws IllegalStateException if complete messages are unflushed, or the pipe is closed
     *     (also while waiting)
     */
    public void awaitSpace(int length) throws InterruptedException {
        awaitRoom(length, -1L);
    }

    /**
     * Waits at most {@code timeout} until a message of {@code length} bytes fits. Flush first (and
     * signal the reader if the flush asked for it).
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return {@code true} if the message fits now; {@code false} if the time ran out
     * @throws InterruptedException if the writer is interrupted while waiting
     * @throws IllegalArgumentException if {@code length} or {@code timeout} is out of range, or the
     *     message can never fit behind the incomplete parts already written
     * @throws IllegalStateException if complete messages are unflushed, or the pipe is closed
     *     (also while waiting)
     * @throws NullPointerException if {@code unit} is null
     */
    public boolean awaitSpace(int length, long timeout, TimeUnit unit) throws InterruptedException {
        return awaitRoom(length, Waits.timeoutNanos(timeout, unit));
    }

    // ------------------------------------------------------------------------------------------
    // Reader
    // ------------------------------------------------------------------------------------------

    /**
     * Tells whether a message can be read, prefetching every message flushed so far.
     *
     * <p>A {@code false} answer puts the reader to sleep: the writer's next flush will wake it,
     * and the reader must wait for that ({@link #awaitMessage()}) before it trusts the pipe to be
     * empty.
     *
     * @return {@code true} if {@link #read(byte[])} will return a message
     * @throws IllegalStateException if the pipe is closed or another thread is reading
     */
    public boolean checkRead() {
        enterReader();
        long consumedFrom = front;
        try {
            return nextMessage();
        } finally {
            leaveReader(consumedFrom);
        }
    }

    /**
     * Copies the next message into {@code dst}.
     *
     * @param dst where to copy the message, from index 0
     * @return the message's length, or {@code -1} if the pipe is empty: the reader is then asleep
     *     and must wait ({@link #awaitMessage()}) for the writer's flush
     * @throws NullPointerException if {@code dst} is null
     * @throws IllegalArgumentException if the message is longer than {@code dst}; the message
     *     stays in the pipe
     * @throws IllegalStateException if the pipe is closed or another thread is reading
     */
    public int read(byte[] dst) {
        Objects.requireNonNull(dst, "dst");
        enterReader();
        long consumedFrom = front;
        try {
            return copyNext(dst);
        } finally {
            leaveReader(consumedFrom);
        }
    }

    /**
     * Hands every prefetched message, or if there is none every message flushed so far, to
     * {@code handler}, each as a view into the ring: consumer-side batching without copying.
     *
     * @param handler called once per message, in order, on the calling (reader) thread; an
     *     exception from it propagates, and the message it was given counts as read
     * @return how many messages were handed over; {@code 0} if the pipe is empty, which puts the
     *     reader to sleep exactly as {@link #read(byte[])} returning {@code -1} does
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalStateException if the pipe is closed or another thread is reading
     */
    public int readBatch(MessageHandler handler) {
        return readBatch(handler, Integer.MAX_VALUE);
    }

    /**
     * {@link #readBatch(MessageHandler)}, stopping after {@code maxMessages} messages: the rest
     * stay in the pipe for the next read. A writer asleep in {@link #awaitSpace} is woken once per
     * call, when it returns (as by {@link #read(byte[])}): a reader that takes {@code k} messages
     * at a time from a full pipe wakes its writer once per {@code k} messages instead of once per
     * message. (A writer that is awake may reuse each record as soon as the handler returns.)
     *
     * @param handler called once per message, in order, on the calling (reader) thread; an
     *     exception from it propagates, and the message it was given counts as read
     * @param maxMessages the most messages to hand over, {@code >= 1}
     * @return how many messages were handed over, at most {@code maxMessages}; {@code 0} if the
     *     pipe is empty, which puts the reader to sleep exactly as {@link #read(byte[])} returning
     *     {@code -1} does
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalArgumentException if {@code maxMessages < 1}
     * @throws IllegalStateException if the pipe is closed or another thread is reading
     */
    public int readBatch(MessageHandler handler, int maxMessages) {
        Objects.requireNonNull(handler, "handler");
        if (maxMessages < 1) {
            throw new IllegalArgumentException("maxMessages must be >= 1: " + maxMessages);
        }
        enterReader();
        long consumedFrom = front;
        try {
            return drain(handler, maxMessages);
        } finally {
            leaveReader(consumedFrom);
        }
    }

    /**
     * Waits until a message can be read: the documented way for the reader to wait. Returns at
     * once if a message is there; otherwise spins as the reader's {@link WaitPolicy} says, then
     * puts the reader to sleep and parks until the writer's {@link #flush()} finds it asleep
     * and wakes it. The messages are then prefetched: read them with
     * {@link #readBatch(MessageHandler)} or {@link #read(byte[])}.
     *
     * <pre>{@code
     * for (;;) {
     *     if (pipe.readBatch(handler) == 0) {   // empty: the reader is now asleep ...
     *         pipe.awaitMessage();              // ... until a flush wakes it
     *     }
     * }
     * }</pre>
     *
     * The writer needs nothing more than {@code write} and {@code flush}: a flush that finds
     * the reader asleep wakes this call (its return value can be ignored when the reader waits
     * here). Only the reader thread may call this, and the reader side stays in use while it
     * waits: another thread's read gets {@link IllegalStateException}.
     *
     * @return {@code true}: a message can be read
     * @throws InterruptedException if the reader is interrupted before or while waiting (its
     *     interrupt status is cleared; nothing is read)
     * @throws IllegalStateException if the pipe is closed (also while waiting: {@link #close()}
     *     wakes this call, which then throws), another thread is reading, or called from inside
     *     a handler
     */
    public boolean awaitMessage() throws InterruptedException {
        return awaitReadable(-1L);
    }

    /**
     * Waits at most {@code timeout} until a message can be read; otherwise as
     * {@link #awaitMessage()}.
     *
     * @param timeout how long to wait, {@code >= 0}; {@code 0} looks (and spins as the reader's
     *     policy says) without parking
     * @param unit the unit of {@code timeout}
     * @return {@code true} if a message can be read; {@code false} if the time ran out
     * @throws InterruptedException if the reader is interrupted before or while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if the pipe is closed (also while waiting), another thread
     *     is reading, or called from inside a handler
     */
    public boolean awaitMessage(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitReadable(Waits.timeoutNanos(timeout, unit));
    }

    // ------------------------------------------------------------------------------------------
    // Close
    // ------------------------------------------------------------------------------------------

    /**
     * Closes the pipe: every later operation throws {@link IllegalStateException}, a writer
     * waiting for space and a reader in {@link #awaitMessage()} wake up and throw it, and the off-heap memory is freed as soon as
     * neither side is inside an operation. Messages still in the pipe are discarded. Calling it
     * again does nothing.
     */
    @Override
    public void close() {
        closeSides();
        Thread waiting = waitingWriter;
        if (waiting != null) {
            LockSupport.unpark(waiting);
        }
        // After the reader word's CAS in closeSides (see OffHeapRing.sleepUntilSignalled).
        Thread sleeping = sleepingReader();
        if (sleeping != null) {
            LockSupport.unpark(sleeping);
        }
    }

    /**
     * Tells whether {@link #close()} has been called.
     *
     * @return {@code true} once the pipe is closed
     */
    public boolean isClosed() {
        return SideGuard.isClosed(getOpaqueWriterWord())
                || SideGuard.isClosed(getOpaqueReaderWord());
    }
}
