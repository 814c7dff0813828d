package org.ysuite.internal;

import static org.ysuite.internal.RecordDescriptor.HEADER_BYTES;
import static org.ysuite.internal.RecordDescriptor.PADDING;
import static org.ysuite.internal.RecordDescriptor.recordSize;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.ysuite.MessageHandler;

/**
 * The record ring both byte pipes run: {@link org.ysuite.OffHeapYPipe} over direct memory, the shared pipe
 * over a mapped file. It holds no position: the pipes keep theirs (OffHeapYPipe in its padded
 * heap fields) and pass them in, so the ring is the algorithm over the buffer, written once, and
 * adds no shared state. Records are {@link RecordDescriptor}'s; positions count bytes and never
 * wrap, {@link #index} maps them into the buffer.
 *
 * <p>This class trusts the records it reads: {@link org.ysuite.OffHeapYPipe}'s ring is written only by its
 * own writer. {@link CheckedRecordRing} checks every record against the ring and a limit, for a
 * file another process can write.
 *
 * <p>Memory ordering is the caller's: every access here is plain, and the pipes publish records
 * by the release (or volatile) store of their flush position and reuse bytes only after the
 * acquire of the reader's head.
 */
public class RecordRing {

    /** Smallest ring capacity in bytes. */
    public static final int MIN_CAPACITY = 256;
    /** Largest ring capacity in bytes. */
    public static final int MAX_CAPACITY = 1 << 30;

    private static final VarHandle HEADER =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    /** The ring's bytes; accessed with absolute indexes only. */
    public final ByteBuffer buffer;
    public final int capacity;
    public final int maxMessageLength;
    private final int mask;
    /** The claim buffer handed to the writer. */
    private final ByteBuffer writerView;
    /** The read-only view handed to handlers. */
    private final ByteBuffer readerView;

    /**
     * A ring over all of {@code buffer}, whose capacity must be a power of two in
     * [{@value #MIN_CAPACITY}, {@value #MAX_CAPACITY}] (checked by the callers' own checks).
     */
    public RecordRing(ByteBuffer buffer) {
        this.capacity = checkCapacity(buffer.capacity());
        this.buffer = buffer.order(ByteOrder.nativeOrder());
        this.mask = capacity - 1;
        this.maxMessageLength = RecordDescriptor.maxLength(capacity);
        this.writerView = buffer.duplicate().order(ByteOrder.nativeOrder());
        this.readerView = buffer.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
    }

    /** Checks a ring capacity: a power of two in [MIN_CAPACITY, MAX_CAPACITY]. */
    public static int checkCapacity(int capacityBytes) {
        if (capacityBytes < MIN_CAPACITY || capacityBytes > MAX_CAPACITY
                || Integer.bitCount(capacityBytes) != 1) {
            throw new IllegalArgumentException("capacityBytes must be a power of two in ["
                    + MIN_CAPACITY + ", " + MAX_CAPACITY + "]: " + capacityBytes);
        }
        return capacityBytes;
    }

    /** Throws unless a message of {@code length} bytes can ever go through this ring. */
    public final void checkLength(int length) {
        checkLength(length, maxMessageLength, capacity);
    }

    /** {@link #checkLength(int)} for a ring of {@code capacity} that carries {@code max} bytes. */
    public static void checkLength(int length, int max, int capacity) {
        if ((length | (max - length)) < 0) { // length < 0 || length > max, in one test (max >= 0)
            throw lengthOutOfRange(length, max, capacity); // out of line: keeps callers small
        }
    }

    private static IllegalArgumentException lengthOutOfRange(int length, int max, int capacity) {
        return new IllegalArgumentException("length must be in [0, " + max
                + "] for a ring of " + capacity + " bytes: " + length);
    }

    /** The buffer index of {@code position}. */
    public final int index(long position) {
        return (int) position & mask;
    }

    /** The index of {@code position} in a ring of {@code capacity} bytes (a power of two). */
    public static int index(long position, int capacity) {
        return (int) position & (capacity - 1);
    }

    /** Bytes a message of {@code length} takes at {@code position}, with the padding it needs. */
    public final long footprint(long position, int length) {
        return footprint(capacity, position, length);
    }

    /** {@link #footprint(long, int)} in a ring of {@code capacity} bytes. */
    public static long footprint(int capacity, long position, int length) {
        int size = recordSize(length);
        int toEnd = capacity - index(position, capacity);
        return size <= toEnd ? size : (long) toEnd + size;
    }

    /** The header at {@code position}, read once (plain). */
    public final int headerAt(long position) {
        return (int) HEADER.get(buffer, index(position));
    }

    /** {@link #headerAt(long)} in {@code buffer}, a ring of {@code capacity} bytes. */
    public static int headerAt(ByteBuffer buffer, int capacity, long position) {
        return (int) HEADER.get(buffer, index(position, capacity));
    }

    /**
     * The end of the record at {@code position} whose header is {@code header}. This ring trusts
     * the header; {@link CheckedRecordRing} checks it and that the record ends by {@code limit}
     * (what was flushed, or written).
     */
    public long recordEnd(long position, int header, long limit) {
        return end(capacity, position, header);
    }

    /**
     * {@link #recordEnd} in a trusted ring of {@code capacity} bytes: a padding record fills the
     * ring up to its end, any other ends where its header says.
     */
    public static long end(int capacity, long position, int header) {
        return header == PADDING
                ? position + (capacity - index(position, capacity))
                : position + recordSize(RecordDescriptor.length(header));
    }

    // ------------------------------------------------------------------------------------------
    // Writer
    //
    // The writer's steps are static over (buffer, capacity) as well, so that a pipe that keeps
    // those in its own final fields (OffHeapRing) runs them without loading this object's fields
    // again after each atomic of its side guard: the same code, one load fewer per use.
    // ------------------------------------------------------------------------------------------

    /**
     * Writer: where a message of {@code length} starts when the ring's end is at {@code tail}
     * (room checked by the caller): at tail, or, if it does not fit before the buffer's end, at
     * the beginning after a padding record written at tail (plain: published by the flush).
     */
    public final long start(long tail, int length) {
        return start(buffer, capacity, tail, length);
    }

    /** {@link #start(long, int)} in {@code buffer}, a ring of {@code capacity} bytes. */
    public static long start(ByteBuffer buffer, int capacity, long tail, int length) {
        int at = index(tail, capacity);
        int toEnd = capacity - at;
        if (recordSize(length) > toEnd) {
            HEADER.set(buffer, at, PADDING);
            return tail + toEnd;
        }
        return tail;
    }

    /** Writer: copies a payload into the record at {@code start}. */
    public final void put(long start, byte[] src, int offset, int length) {
        put(buffer, capacity, start, src, offset, length);
    }

    /** {@link #put(long, byte[], int, int)} in {@code buffer}, a ring of {@code capacity} bytes. */
    public static void put(ByteBuffer buffer, int capacity, long start, byte[] src, int offset, int length) {
        SmallCopy.put(src, offset, length, buffer, index(start, capacity) + HEADER_BYTES);
    }

    /** Writer: copies {@code src}'s remaining bytes into the record at {@code start}. */
    public final void put(long start, ByteBuffer src, int length) {
        put(buffer, capacity, start, src, length);
    }

    /** {@link #put(long, ByteBuffer, int)} in {@code buffer}, a ring of {@code capacity} bytes. */
    public static void put(ByteBuffer buffer, int capacity, long start, ByteBuffer src, int length) {
        buffer.put(index(start, capacity) + HEADER_BYTES, src, src.position(), length);
    }

    /**
     * Writer: seals the record at {@code start} (plain store of its header: the flush that
     * publishes the record orders it).
     *
     * @return the record's end
     */
    public final long seal(long start, int length, boolean incomplete) {
        return seal(buffer, capacity, start, length, incomplete);
    }

    /** {@link #seal(long, int, boolean)} in {@code buffer}, a ring of {@code capacity} bytes. */
    public static long seal(ByteBuffer buffer, int capacity, long start, int length, boolean incomplete) {
        HEADER.set(buffer, index(start, capacity), RecordDescriptor.header(length, incomplete));
        return start + recordSize(length);
    }

    /** Writer: the index in {@link #claimView()} of the payload of the record at {@code start}. */
    public final int payloadIndex(long start) {
        return index(start) + HEADER_BYTES;
    }

    /** Writer: the claim buffer, reset to the whole ring in native order. */
    public final ByteBuffer claimView() {
        return wholeRing(writerView);
    }

    /**
     * Writer, unwrite: the position of the last message record in [from, to), or -1 if there are
     * only padding records.
     */
    public final long lastMessage(long from, long to) {
        long last = -1;
        for (long pos = from; pos != to; ) {
            int header = headerAt(pos);
            if (header != PADDING) {
                last = pos;
            }
            pos = recordEnd(pos, header, to);
        }
        return last;
    }

    /** Writer, unwrite: the end of the last complete message in [from, to), or {@code from}. */
    public final long lastCompleteEnd(long from, long to) {
        long end = from;
        for (long pos = from; pos != to; ) {
            int header = headerAt(pos);
            pos = recordEnd(pos, header, to);
            if (header != PADDING && RecordDescriptor.isLastPart(header)) {
                end = pos;
            }
        }
        return end;
    }

    /** Writer: the complete messages (last parts) of its own records in [from, to). */
    public final long lastPartsIn(long from, long to) {
        long n = 0;
        for (long pos = from; pos != to; ) {
            int header = headerAt(pos);
            if (header != PADDING && RecordDescriptor.isLastPart(header)) {
                n++;
            }
            pos = recordEnd(pos, header, to);
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------
    // Reader
    // ------------------------------------------------------------------------------------------

    /**
     * Reader: copies the payload of the record at {@code position}, whose header (read once) is
     * {@code header}, into {@code dst}.
     *
     * @return the payload's length
     * @throws IllegalArgumentException if {@code dst} is shorter than the payload
     */
    public final int copy(long position, int header, byte[] dst) {
        return RecordDescriptor.copyPayload(buffer, index(position), header, dst);
    }

    /** How a {@link #drain} moves its reader on. */
    public interface Reader {
        /**
         * The record before {@code next} has been consumed (handed over, or padding).
         *
         * @return true to stop the batch (the pipe is closing)
         */
        boolean consumedTo(long next);
    }

    /**
     * Reader: hands the messages in [{@code from}, {@code end}) to {@code handler}, each as a view
     * into the ring, telling {@code reader} after each record (a handler's exception propagates
     * after its record counted as consumed), and stops after {@code max} messages: the records
     * after them stay unread, their headers unread. {@code from != end}; {@code header} is the
     * header at {@code from}, already read; {@code max >= 1}. Each header is read once.
     *
     * @return how many messages were handed over
     */
    public final int drain(long from, long end, int header, MessageHandler handler, Reader reader, int max) {
        // One hot call of the reader (the JIT inlines the loop into the pipe's read call only if
        // its compiled code stays small); a handler's exception takes the cold path.
        int n = 0;
        long pos = from;
        for (;;) {
            long next = recordEnd(pos, header, end);
            if (header != PADDING) {
                try {
                    // Reset per call: the previous handler may have moved position or limit.
                    handler.onMessage(wholeRing(readerView), index(pos) + HEADER_BYTES,
                            RecordDescriptor.length(header));
                } catch (RuntimeException | Error e) {
                    reader.consumedTo(next); // the record counts as consumed
                    throw e;
                }
                n++;
            }
            pos = next;
            if (reader.consumedTo(next) || pos == end || n == max) {
                return n;
            }
            header = headerAt(pos);
        }
    }

    /**
     * Counts the complete messages (last parts) from {@code min(at, head)} to {@code end}: those
     * in [at, end) in the high 32 bits, those in [head, end) in the low ones (two rings hold
     * fewer than 2^28 records). -1 if the walk does not land on all three (records rewritten
     * under it: the caller walks again). Any thread: {@link AnchoredCounts}, the one counted walk
     * of both byte pipes, which reads the positions with the ordering its javadoc argues and
     * checks the records it read against the anchor's sequence afterwards.
     */
    public final long lastPartsAround(long at, long head, long end) {
        long from = Math.min(at, head);
        if (from < 0 || at > end || head > end || end - from > 2L * capacity) {
            return -1;
        }
        long n = 0;
        long atN = -1;
        long headN = -1;
        for (long pos = from; ; ) {
            if (pos == at) {
                atN = n;
            }
            if (pos == head) {
                headN = n;
            }
            if (pos == end) {
                break;
            }
            int header = headerAt(buffer, capacity, pos);
            long next = end(capacity, pos, header);
            if (next <= pos || next > end) {
                return -1; // a header rewritten meanwhile (the sequence has changed too)
            }
            if (header != PADDING && RecordDescriptor.isLastPart(header)) {
                n++;
            }
            pos = next;
        }
        if (atN < 0 || headN < 0) {
            return -1;
        }
        return (n - atN) << 32 | (n - headN);
    }

    /** Puts a view back to the whole ring in native order (no allocation: a few field stores). */
    public static ByteBuffer wholeRing(ByteBuffer view) {
        view.clear();
        return view.order(ByteOrder.nativeOrder());
    }
}
