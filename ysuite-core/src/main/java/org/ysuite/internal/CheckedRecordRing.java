package org.ysuite.internal;

import static org.ysuite.internal.RecordDescriptor.PADDING;
import static org.ysuite.internal.RecordDescriptor.recordSize;

import java.nio.ByteBuffer;

/**
 * A {@link RecordRing} over memory another process can write (the shared pipe's mapped file):
 * every record it walks is checked before its length is used. The caller reads each header once
 * ({@link #headerAt}) and passes that value on, so a peer changing the file meanwhile cannot make
 * the check and the use see different lengths. A bad record is an {@link IllegalStateException}
 * naming the file, never an access outside the ring.
 */
public final class CheckedRecordRing extends RecordRing {

    private final String name;

    /**
     * A checked ring over all of {@code buffer}.
     *
     * @param name the file, for the messages
     */
    public CheckedRecordRing(ByteBuffer buffer, String name) {
        super(buffer);
        this.name = name;
    }

    /**
     * The end of the record at {@code position}, checked: a padding record, or a record of at
     * most {@link #maxMessageLength} bytes that does not pass the ring's end, and in either case
     * ends by {@code limit} (what was flushed, or written).
     */
    @Override
    public long recordEnd(long position, int header, long limit) {
        int at = index(position);
        long end;
        if (header == PADDING) {
            end = position + (capacity - at);
        } else {
            int length = RecordDescriptor.length(header);
            if (header < 0 || length > maxMessageLength || recordSize(length) > capacity - at) {
                throw corrupt("record header 0x" + Integer.toHexString(header) + " at position " + position);
            }
            end = position + recordSize(length);
        }
        if (end > limit) {
            throw corrupt("record at position " + position + " ends at " + end + ", past " + limit);
        }
        return end;
    }

    /** The corruption of the file, named. */
    public IllegalStateException corrupt(String what) {
        return new IllegalStateException("pipe file " + name + " is corrupt: " + what);
    }
}
