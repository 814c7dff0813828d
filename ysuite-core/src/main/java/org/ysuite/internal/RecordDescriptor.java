package org.ysuite.internal;

import java.nio.ByteBuffer;

/**
 * The record format of {@link org.ysuite.OffHeapYPipe}'s ring: where each message sits and what its header
 * says. Every ring offset here is a byte index into the ring; positions (which never wrap) are
 * the pipe's business.
 *
 * <pre>
 * A record: a 4-byte header, then the payload, padded so the next record starts on 8 bytes.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-----------------------------------------------------------+
 *  |P|M|                   length (30 bits)                        |  header, native order
 *  +-+-+-----------------------------------------------------------+
 *  |                 payload: length bytes ...                     |
 *  |                 ... then 0-7 bytes of padding to 8            |
 *  +---------------------------------------------------------------+
 *
 *  P (bit 31): sign bit; set only in PADDING (header -1): the rest of the ring up to its end is
 *              filler, and the next record starts at ring offset 0
 *  M (bit 30): MORE_FLAG: more parts of the same message follow this one
 *  length:     the payload's size in bytes, at most capacity / 2 - 4
 * </pre>
 *
 * A record never wraps around the ring's end (so every message is one contiguous view): a record
 * that does not fit before the end is preceded by a padding record that fills the end.
 */
public final class RecordDescriptor {

    /** Bytes of the header in front of each record. */
    public static final int HEADER_BYTES = 4;
    /** Records start on this boundary. */
    public static final int ALIGNMENT_BYTES = 8;
    /** Header flag: more parts of the same message follow. */
    public static final int MORE_FLAG = 1 << 30;
    /** Header value of the padding record that fills the ring's end. */
    public static final int PADDING = -1;

    private RecordDescriptor() {
    }

    /** Bytes a record with a payload of {@code length} takes: header, payload, padding to 8. */
    public static int recordSize(int length) {
        return (HEADER_BYTES + length + ALIGNMENT_BYTES - 1) & -ALIGNMENT_BYTES;
    }

    /** The header of a record of {@code length} bytes, flagged if more parts follow. */
    public static int header(int length, boolean more) {
        return more ? length | MORE_FLAG : length;
    }

    /** The payload length a (non-padding) header announces. */
    public static int length(int header) {
        return header & ~MORE_FLAG;
    }

    /** True if the (non-padding) header closes its message: no more parts follow. */
    public static boolean isLastPart(int header) {
        return (header & MORE_FLAG) == 0;
    }

    /**
     * Copies the payload of the record at ring offset {@code at}, whose header is {@code header},
     * into {@code dst} from index 0.
     *
     * @return the payload's length
     * @throws IllegalArgumentException if {@code dst} is shorter than the payload
     */
    public static int copyPayload(ByteBuffer ring, int at, int header, byte[] dst) {
        int length = length(header);
        if (length > dst.length) {
            throw new IllegalArgumentException("dst.length " + dst.length
                    + " is shorter than the next message: " + length + " bytes");
        }
        SmallCopy.get(ring, at + HEADER_BYTES, dst, length);
        return length;
    }

    /** The largest payload a ring of {@code capacity} bytes carries: a record of half the ring. */
    public static int maxLength(int capacity) {
        // A record of capacity/2 bytes fits an empty ring wherever its head is: either before
        // the ring's end or, after padding, before the head.
        return capacity / 2 - HEADER_BYTES;
    }
}
