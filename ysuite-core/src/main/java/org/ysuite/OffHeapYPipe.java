package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 * so neither side spins forever and the reader pays nothing while no writer waits.
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
public final class OffHeapYPipe extends OffHeapYPipeShared implements AutoCloseable {

    /** Smallest ring capacity in bytes. */
    public static final int MIN_CAPACITY_BYTES = 256;
    /** Largest ring capacity in bytes. */
    public static final int MAX_CAPACITY_BYTES = 1 << 30;
    /** Bytes of the header in front of each record. */
    static final int HEADER_BYTES = 4;
    /** Records start on this boundary. */
    static final int RECORD_ALIGNMENT_BYTES = 8;
    /** Alignment of the ring in memory: a cache line. */
    static final int CACHE_LINE_BYTES = 64;
    /** Header flag: more parts of the same message follow. */
    static final int MORE_FLAG = 1 << 30;
    /** Header value of the padding record that fills the ring's end. */
    static final int PADDING = -1;

    private static final VarHandle HEADER =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final int capacity;
    private final int mask;
    private final int maxMessageLength;
    private final int spinIterations;
    private final DirectMemory memory;
    private final ByteBuffer ring;       // our accesses: absolute only
    private final ByteBuffer writerView; // the claim buffer handed to the writer
    private final ByteBuffer readerView; // read-only view handed to handlers

    /**
     * Creates a pipe whose ring holds {@code capacityBytes} bytes; a writer waiting for space
     * spins {@link Signaler#DEFAULT_SPIN_ITERATIONS} times before it parks.
     *
     * @param capacityBytes the ring's size: a power of two from {@value #MIN_CAPACITY_BYTES} to
     *     {@value #MAX_CAPACITY_BYTES}
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range or not a power of two
     */
    public OffHeapYPipe(int capacityBytes) {
        this(capacityBytes, Signaler.DEFAULT_SPIN_ITERATIONS);
    }

    /**
     * Creates a pipe whose ring holds {@code capacityBytes} bytes.
     *
     * @param capacityBytes the ring's size: a power of two from {@value #MIN_CAPACITY_BYTES} to
     *     {@value #MAX_CAPACITY_BYTES}
     * @param spinIterations how many times a writer waiting for space spins before it parks;
     *     {@link Signaler#PURE_PARK} parks at once
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range or not a power of
     *     two, or {@code spinIterations} is negative
     */
    public OffHeapYPipe(int capacityBytes, int spinIterations) {
        if (capacityBytes < MIN_CAPACITY_BYTES || capacityBytes > MAX_CAPACITY_BYTES
                || Integer.bitCount(capacityBytes) != 1) {
            throw new IllegalArgumentException("capacityBytes must be a power of two in ["
                    + MIN_CAPACITY_BYTES + ", " + MAX_CAPACITY_BYTES + "]: " + capacityBytes);
        }
        if (spinIterations < 0) {
            throw new IllegalArgumentException("spinIterations must be >= 0: " + spinIterations);
        }
        this.capacity = capacityBytes;
        this.mask = capacityBytes - 1;
        this.maxMessageLength = maxMessageLength(capacityBytes);
        this.spinIterations = spinIterations;
        this.memory = DirectMemory.allocate(capacityBytes, CACHE_LINE_BYTES);
        memory.freeWhenUnreachable(this); // a pipe nobody closed still gives its memory back
        this.ring = memory.buffer();
        this.writerView = ring.duplicate().order(ByteOrder.nativeOrder());
        this.readerView = ring.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
        initC(false);
        // The final fields above are published with the object; the plain position fields start
        // at zero, which every thread sees.
    }

    /**
     * Returns the largest message a ring of {@code capacityBytes} can carry.
     *
     * @param capacityBytes a ring capacity accepted by {@link #OffHeapYPipe(int)}
     * @return {@code capacityBytes / 2 - 4}
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range or not a power of two
     */
    public static int maxMessageLength(int capacityBytes) {
        if (capacityBytes < MIN_CAPACITY_BYTES || capacityBytes > MAX_CAPACITY_BYTES
                || Integer.bitCount(capacityBytes) != 1) {
            throw new IllegalArgumentException("capacityBytes must be a power of two in ["
                    + MIN_CAPACITY_BYTES + ", " + MAX_CAPACITY_BYTES + "]: " + capacityBytes);
        }
        // A record of capacity/2 bytes fits an empty ring wherever its head is: either before
        // the ring's end or, after padding, before the head.
        return capacityBytes / 2 - HEADER_BYTES;
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
            ring.put(index(start) + HEADER_BYTES, src, offset, length);
            append(start, length, incomplete);
        } finally {
            exitWriter();
        }
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
            ring.put(index(start) + HEADER_BYTES, src, src.position(), length);
            src.position(src.position() + length);
            append(start, length, incomplete);
        } finally {
            exitWriter();
        }
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
        wholeRing(writerView); // the writer may have moved its position and limit last time
        return index(start) + HEADER_BYTES; // the writer side stays entered until commit
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
        checkOpen(writerStateOpaque());
        return wholeRing(writerView);
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
            checkOpen(writerStateOpaque());
            throw new IllegalStateException("no open claim: call claim(length) first");
        }
        long start = claimStart;
        claimStart = -1;
        claimThread = null;
        if (writerStateOpaque() == CLOSING) {
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
            long last = -1;
            for (long pos = w; pos != tail; ) {
                int header = headerAt(pos);
                if (header != PADDING) {
                    last = pos;
                }
                pos = recordEnd(pos, header);
            }
            if (last < 0) {
                tail = w; // only padding was unflushed
                return false;
            }
            tail = last;
            // f: end of the last complete record still written (never below w).
            long end = w;
            for (long pos = w; pos != tail; ) {
                int header = headerAt(pos);
                pos = recordEnd(pos, header);
                if (header != PADDING && (header & MORE_FLAG) == 0) {
                    end = pos;
                }
            }
            f = end;
            return true;
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
     * flushing while another begins a write, at the same moment are not detected: the reader may
     * then see a message before it is fully written. The off-heap memory is never at risk:
     * {@code flush} touches only heap fields.
     *
     * @return {@code true} if the reader is awake (or nothing needed flushing); {@code false} if
     *     the reader had gone to sleep and must now be woken by a signal from the caller
     * @throws IllegalStateException if the pipe is closed, or another thread is inside a writer
     *     call or holds an open claim
     */
    public boolean flush() {
        int side = writerStateOpaque();
        if (side != IDLE) {
            checkOpen(side);
            // BUSY: fine only for this thread's own open claim (claim() wrote both fields on
            // this thread, so it sees them; another thread's racy read can only miss a misuse,
            // never reject a correct call, which always sees IDLE or its own claim).
            if (claimStart < 0 || claimThread != Thread.currentThread()) {
                throw new IllegalStateException("the writer side is in use by another thread"
                        + " (a second writer thread): flush() belongs to the writer");
            }
        }
        return flushPositions(); // touches only heap fields: no need to enter the writer side
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
        awaitSpace(length, -1L);
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
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        return awaitSpace(length, unit.toNanos(timeout));
    }

    /** Waits for room; {@code timeoutNanos < 0} means no time limit. */
    private boolean awaitSpace(int length, long timeoutNanos) throws InterruptedException {
        checkLength(length);
        long deadline = timeoutNanos < 0 ? 0 : System.nanoTime() + timeoutNanos;
        int spins = timeoutNanos == 0 ? 0 : spinIterations; // zero timeout: look once, no spin
        boolean raised = false; // did we raise writerWaiting (and may have left it up)?
        for (;;) {
            if (Thread.interrupted()) {
                setWriterWaitingOpaque(0);
                throw new InterruptedException();
            }
            enterWriter();
            try {
                if (w != f) {
                    throw new IllegalStateException("flush() (and signal the reader if it returns"
                            + " false) before awaiting space: " + (f - w)
                            + " unflushed bytes would never be consumed");
                }
                long held = tail - f; // incomplete parts: the reader cannot consume them yet
                if (held + footprint(tail, length) > capacity) {
                    throw new IllegalArgumentException("length " + length + " can never fit: "
                            + held + " bytes of incomplete parts are held in a ring of "
                            + capacity + " bytes");
                }
                if (hasRoom(length)) {
                    if (raised) {
                        // Woken by something else than the reader's wakeWriter() (a spurious or
                        // timed-out park, an interrupt race): lower the flag, or the reader
                        // would later unpark us for nothing. If the reader's CAS took it first,
                        // its unpark is the same harmless stray permit as before.
                        setWriterWaitingOpaque(0);
                    }
                    return true;
                }
                if (timeoutNanos == 0) {
                    return false; // checked once; never raise the flag for a wait we will not do
                }
                if (spins == 0) {
                    // Raise the flag, then look again (Dekker with the reader's wakeWriter()):
                    // the volatile store of the flag and the volatile load of head are ordered,
                    // as are the reader's store of head and its load of the flag (full fence), so
                    // either we see the space it freed or it sees our flag and unparks us.
                    waitingWriter = Thread.currentThread(); // published by the flag's store
                    setWriterWaitingVolatile(1);
                    raised = true;
                    headCache = headVolatile();
                    if (tail + footprint(tail, length) - headCache <= capacity) {
                        setWriterWaitingOpaque(0);
                        return true;
                    }
                }
            } finally {
                exitWriter();
            }
            if (spins > 0) {
                if (timeoutNanos > 0 && deadline - System.nanoTime() <= 0) {
                    return false; // the deadline comes before the spin budget
                }
                spins--;
                Thread.onSpinWait();
                continue;
            }
            // A close() that came while we were inside moved our guard on, and our own exit saw
            // it: do not park on a closed pipe. A close() after this point sees waitingWriter
            // (written before our exit's release) and unparks us.
            checkOpen(writerStateOpaque());
            if (timeoutNanos < 0) {
                LockSupport.park(this);
            } else {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    setWriterWaitingOpaque(0);
                    return false;
                }
                LockSupport.parkNanos(this, left);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Reader
    // ------------------------------------------------------------------------------------------

    /**
     * Tells whether a message can be read, prefetching every message flushed so far.
     *
     * <p>A {@code false} answer puts the reader to sleep: the writer's next flush will ask for a
     * signal, and the reader must wait for it.
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
     *     and must wait for the writer's signal
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
            if (!nextMessage()) {
                return -1;
            }
            int at = index(front);
            int length = headerAt(front) & ~MORE_FLAG;
            if (length > dst.length) {
                throw new IllegalArgumentException("dst.length " + dst.length
                        + " is shorter than the next message: " + length + " bytes");
            }
            ring.get(at + HEADER_BYTES, dst, 0, length);
            consumeTo(front + recordSize(length));
            return length;
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
        Objects.requireNonNull(handler, "handler");
        enterReader();
        int n = 0;
        long consumedFrom = front;
        try {
            if (!nextMessage()) {
                return 0;
            }
            long end = r;
            while (front != end) {
                int header = headerAt(front);
                long next = recordEnd(front, header);
                if (header != PADDING) {
                    try {
                        // Reset per call: the previous handler may have moved position or limit.
                        handler.onMessage(wholeRing(readerView), index(front) + HEADER_BYTES,
                                header & ~MORE_FLAG);
                    } finally {
                        consumeTo(next); // only now may the writer reuse the record's bytes
                    }
                    n++;
                    if (readerStateOpaque() != BUSY) {
                        break; // the handler closed the pipe
                    }
                } else {
                    consumeTo(next);
                }
            }
            return n;
        } finally {
            leaveReader(consumedFrom);
        }
    }

    /**
     * Receives messages from {@link #readBatch(MessageHandler)} as views into the ring.
     */
    @FunctionalInterface
    public interface MessageHandler {
        /**
         * Handles one message: bytes {@code [offset, offset + length)} of {@code buffer}. The
         * buffer comes with position {@code 0}, limit its capacity and native byte order at every
         * call, whatever an earlier call did: read with absolute gets, or move position and limit
         * (e.g. {@code buffer.limit(offset + length).position(offset)}) and read relatively. The
         * view is valid only until this method returns.
         *
         * @param buffer the ring, read-only, in native byte order
         * @param offset index of the message's first byte in {@code buffer}
         * @param length the message's length in bytes
         */
        void onMessage(ByteBuffer buffer, int offset, int length);
    }

    // ------------------------------------------------------------------------------------------
    // Close
    // ------------------------------------------------------------------------------------------

    /**
     * Closes the pipe: every later operation throws {@link IllegalStateException}, a writer
     * waiting for space wakes up and throws it, and the off-heap memory is freed as soon as
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
    }

    /**
     * Tells whether {@link #close()} has been called.
     *
     * @return {@code true} once the pipe is closed
     */
    public boolean isClosed() {
        return writerStateOpaque() >= CLOSING || readerStateOpaque() >= CLOSING;
    }

    @Override
    void freeMemory() {
        memory.free();
    }

    // ------------------------------------------------------------------------------------------
    // Records
    // ------------------------------------------------------------------------------------------

    private void checkLength(int length) {
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("length must be in [0, " + maxMessageLength
                    + "] for a ring of " + capacity + " bytes: " + length);
        }
    }

    /** Puts a view back to the whole ring in native order (no allocation: a few field stores). */
    private static ByteBuffer wholeRing(ByteBuffer view) {
        view.clear();
        return view.order(ByteOrder.nativeOrder());
    }

    private int index(long position) {
        return (int) position & mask;
    }

    private static int recordSize(int length) {
        return (HEADER_BYTES + length + RECORD_ALIGNMENT_BYTES - 1) & -RECORD_ALIGNMENT_BYTES;
    }

    /** Bytes a message of {@code length} takes at {@code position}, with the padding it needs. */
    private long footprint(long position, int length) {
        int size = recordSize(length);
        int toEnd = capacity - index(position);
        return size <= toEnd ? size : (long) toEnd + size;
    }

    private int headerAt(long position) {
        return (int) HEADER.get(ring, index(position));
    }

    private long recordEnd(long position, int header) {
        return header == PADDING
                ? position + (capacity - index(position))
                : position + recordSize(header & ~MORE_FLAG);
    }

    /** Writer: true if a message of {@code length} fits at tail, re-reading head if it must. */
    private boolean hasRoom(int length) {
        long need = tail + footprint(tail, length) - capacity;
        if (need <= headCache) {
            return true;
        }
        headCache = headAcquire(); // acquire: the reader is done with the bytes up to head
        return need <= headCache;
    }

    /**
     * Writer: enters the writer side and finds room for a message at tail, writing the padding
     * record if the message must start at the ring's beginning. The caller exits the side.
     *
     * @return the record's position, or -1 (and the side left) if the ring has no room now
     */
    private long beginWrite(int length) {
        enterWriter(); // fails while a claim is open: claim() keeps the side entered
        if (!hasRoom(length)) {
            exitWriter();
            return -1;
        }
        long start = tail;
        int toEnd = capacity - index(start);
        if (recordSize(length) > toEnd) {
            HEADER.set(ring, index(start), PADDING); // plain: published by the next flush
            start += toEnd;
        }
        return start;
    }

    /** Writer: the record at {@code start} is written; seal its header and advance. */
    private void append(long start, int length, boolean incomplete) {
        // Plain store: the flush that publishes the record (release CAS of c) orders it.
        HEADER.set(ring, index(start), incomplete ? length | MORE_FLAG : length);
        tail = start + recordSize(length);
        if (!incomplete) {
            f = tail;
        }
    }

    /** Reader: skips padding; true if a message is at front, false if the reader went asleep. */
    private boolean nextMessage() {
        while (checkReadPositions()) {
            int header = headerAt(front);
            if (header != PADDING) {
                return true;
            }
            consumeTo(recordEnd(front, header));
        }
        return false;
    }

    /** Reader: done with the bytes before {@code position}; the writer may reuse them. */
    private void consumeTo(long position) {
        front = position;
        setHeadRelease(position); // release: our reads of the record happen-before its reuse
    }

    /** Reader: leaves the reader side, waking the writer if this call freed space. */
    private void leaveReader(long consumedFrom) {
        if (front != consumedFrom) {
            wakeWriter();
        }
        exitReader();
    }

    /** Reader: space was freed; wake the writer if it sleeps waiting for space. */
    private void wakeWriter() {
        // Full fence: orders our release store of head before the load of the flag below, the
        // other half of the Dekker pair in awaitSpace (see there).
        VarHandle.fullFence();
        if (writerWaitingAcquire() != 0 && casWriterWaiting(1, 0)) {
            Thread waiting = waitingWriter; // written before the flag's store we acquired
            if (waiting != null) {
                LockSupport.unpark(waiting);
            }
        }
    }
}

/** Padding after the protocol's positions. */
abstract class OffHeapPad4 extends PipeProtocol {
    long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p4a, p4b, p4c, p4d, p4e, p4f;
}

/** The writer's own fields. */
abstract class OffHeapWriterFields extends OffHeapPad4 {
    /** Writer: the last value of head it read (re-read only when the ring looks full). */
    long headCache;
    /** Writer: position of the open claim's record, or -1. */
    long claimStart = -1;
    /** Writer: length of the open claim. */
    int claimLength;
    /** Writer: the thread holding the open claim (so that it, and only it, may flush meanwhile). */
    Thread claimThread;
    /** Writer guard: IDLE, BUSY, CLOSING or CLOSED (see OffHeapYPipeShared). */
    int writerState;
}

/** Padding between the writer's and the reader's fields. */
abstract class OffHeapPad5 extends OffHeapWriterFields {
    long p50, p51, p52, p53, p54, p55, p56, p57, p58, p59, p5a, p5b, p5c, p5d, p5e, p5f;
}

/** The reader's own fields. */
abstract class OffHeapReaderFields extends OffHeapPad5 {
    /** Reader guard: IDLE, BUSY, CLOSING or CLOSED. */
    int readerState;
}

/** Padding between the reader's fields and head. */
abstract class OffHeapPad6 extends OffHeapReaderFields {
    long p60, p61, p62, p63, p64, p65, p66, p67, p68, p69, p6a, p6b, p6c, p6d, p6e, p6f;
}

/** Shared: how far the reader has consumed. */
abstract class OffHeapHead extends OffHeapPad6 {
    /** Shared, written by the reader: every byte before it is free for the writer. */
    long head;
}

/** Padding between head and the writer-waiting flag. */
abstract class OffHeapPad7 extends OffHeapHead {
    long p70, p71, p72, p73, p74, p75, p76, p77, p78, p79, p7a, p7b, p7c, p7d, p7e, p7f;
}

/** Shared: the writer-waiting flag, the waiting thread, and whether the memory is freed. */
abstract class OffHeapWaiting extends OffHeapPad7 {
    /** Shared: 1 while the writer is (going) asleep waiting for space. */
    int writerWaiting;
    /** Shared: the writer thread that raised the flag; written before the flag's store. */
    Thread waitingWriter;
    /** Shared: 1 once the memory is freed. */
    int freed;
}

/** Padding after the flag, and the accessors and close guards of all the shared words. */
abstract class OffHeapYPipeShared extends OffHeapWaiting {
    long p80, p81, p82, p83, p84, p85, p86, p87, p88, p89, p8a, p8b, p8c, p8d, p8e, p8f;

    /** Side guard: not inside an operation. */
    static final int IDLE = 0;
    /** Side guard: inside an operation that may touch the memory. */
    static final int BUSY = 1;
    /** Side guard: close() came while BUSY; the side frees on its way out. */
    static final int CLOSING = 2;
    /** Side guard: closed and out of the memory for good. */
    static final int CLOSED = 3;

    private static final VarHandle WRITER_STATE;
    private static final VarHandle READER_STATE;
    private static final VarHandle HEAD;
    private static final VarHandle WRITER_WAITING;
    private static final VarHandle FREED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WRITER_STATE = lookup.findVarHandle(OffHeapWriterFields.class, "writerState", int.class);
            READER_STATE = lookup.findVarHandle(OffHeapReaderFields.class, "readerState", int.class);
            HEAD = lookup.findVarHandle(OffHeapHead.class, "head", long.class);
            WRITER_WAITING = lookup.findVarHandle(OffHeapWaiting.class, "writerWaiting", int.class);
            FREED = lookup.findVarHandle(OffHeapWaiting.class, "freed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Frees the off-heap memory; called once, when neither side can touch it. */
    abstract void freeMemory();

    final long headAcquire() {
        return (long) HEAD.getAcquire(this);
    }

    final long headVolatile() {
        return (long) HEAD.getVolatile(this);
    }

    final void setHeadRelease(long value) {
        HEAD.setRelease(this, value);
    }

    final int writerWaitingAcquire() {
        return (int) WRITER_WAITING.getAcquire(this);
    }

    final void setWriterWaitingVolatile(int value) {
        WRITER_WAITING.setVolatile(this, value);
    }

    final void setWriterWaitingOpaque(int value) {
        WRITER_WAITING.setOpaque(this, value);
    }

    final boolean casWriterWaiting(int expected, int value) {
        return WRITER_WAITING.compareAndSet(this, expected, value);
    }

    final int writerStateOpaque() {
        return (int) WRITER_STATE.getOpaque(this);
    }

    final int readerStateOpaque() {
        return (int) READER_STATE.getOpaque(this);
    }

    final void enterWriter() {
        enter(WRITER_STATE, "writer");
    }

    final void exitWriter() {
        exit(WRITER_STATE);
    }

    final void enterReader() {
        enter(READER_STATE, "reader");
    }

    final void exitReader() {
        exit(READER_STATE);
    }

    static void checkOpen(int state) {
        if (state >= CLOSING) {
            throw new IllegalStateException("pipe is closed");
        }
    }

    /**
     * Enters a side before touching the memory. The CAS is the guard's whole cost: close() can
     * free the memory only after moving both guards to CLOSED, and it cannot do that while we
     * hold BUSY, so everything between enter and exit sees live memory.
     */
    private void enter(VarHandle state, String side) {
        int seen = (int) state.compareAndExchange(this, IDLE, BUSY);
        if (seen != IDLE) {
            checkOpen(seen);
            throw new IllegalStateException("the " + side + " side is in use by another call"
                    + " (a second " + side + " thread, a call from inside a handler, or an open"
                    + " claim)");
        }
    }

    /** Leaves a side; if close() came meanwhile, this side is now out and may free the memory. */
    private void exit(VarHandle state) {
        // Release: our accesses to the memory happen-before a close() that sees IDLE.
        if ((int) state.compareAndExchangeRelease(this, BUSY, IDLE) == CLOSING) {
            state.setVolatile(this, CLOSED);
            freeIfBothClosed();
        }
    }

    /** Moves both guards to CLOSED (or CLOSING if busy) and frees the memory if both are out. */
    final void closeSides() {
        closeSide(WRITER_STATE);
        closeSide(READER_STATE);
        freeIfBothClosed();
    }

    private void closeSide(VarHandle state) {
        for (;;) {
            int seen = (int) state.getVolatile(this);
            if (seen >= CLOSING) {
                return;
            }
            int next = seen == IDLE ? CLOSED : CLOSING;
            if (state.compareAndSet(this, seen, next)) {
                return;
            }
        }
    }

    /**
     * Frees the memory exactly once, when both sides are CLOSED. Each side's move to CLOSED is a
     * volatile write followed by this check, so whichever happens last sees both; the CAS on
     * freed makes the last two callers agree on one free.
     */
    private void freeIfBothClosed() {
        if ((int) WRITER_STATE.getVolatile(this) == CLOSED
                && (int) READER_STATE.getVolatile(this) == CLOSED
                && FREED.compareAndSet(this, 0, 1)) {
            freeMemory();
        }
    }
}
