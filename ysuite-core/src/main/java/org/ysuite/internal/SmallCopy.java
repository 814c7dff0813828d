package org.ysuite.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Copies of a payload between an array and a ring, a word at a time when it is short. JDK 17's
 * absolute bulk {@code ByteBuffer.put}/{@code get} copies up to 6 bytes one checked byte at a time
 * and calls a checked memory copy above; for a payload of a few bytes either costs more than the
 * rest of the message's write (measured with JFR: half of the writing thread's time for 4-byte
 * messages). Both sides are accessed in native order, so the bytes land in the order they were;
 * the array accesses check the index as the bulk copy would.
 */
public final class SmallCopy {

    /** Payloads up to this many bytes take the word copy; longer ones the bulk copy. */
    public static final int MAX_BYTES = 16;

    private static final VarHandle ARRAY_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle ARRAY_INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle BUFFER_LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle BUFFER_INT =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private SmallCopy() {
    }

    /** Copies {@code src[offset, offset + length)} into {@code dst} from index {@code at}. */
    public static void put(byte[] src, int offset, int length, ByteBuffer dst, int at) {
        if (length > MAX_BYTES) {
            dst.put(at, src, offset, length);
            return;
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            BUFFER_LONG.set(dst, at + i, (long) ARRAY_LONG.get(src, offset + i));
        }
        if (i + Integer.BYTES <= length) {
            BUFFER_INT.set(dst, at + i, (int) ARRAY_INT.get(src, offset + i));
            i += Integer.BYTES;
        }
        for (; i < length; i++) {
            dst.put(at + i, src[offset + i]);
        }
    }

    /** Copies {@code length} bytes of {@code src} from index {@code at} into {@code dst} from index 0. */
    public static void get(ByteBuffer src, int at, byte[] dst, int length) {
        if (length > MAX_BYTES) {
            src.get(at, dst, 0, length);
            return;
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            ARRAY_LONG.set(dst, i, (long) BUFFER_LONG.get(src, at + i));
        }
        if (i + Integer.BYTES <= length) {
            ARRAY_INT.set(dst, i, (int) BUFFER_INT.get(src, at + i));
            i += Integer.BYTES;
        }
        for (; i < length; i++) {
            dst[i] = src.get(at + i);
        }
    }
}
