package org.ysuite.netty;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Copies of a few bytes between a pipe's ring and a Netty buffer, a word at a time. A bulk copy
 * ({@code ByteBuf.writeBytes(ByteBuffer)}, {@code readBytes(ByteBuffer)}) moves the buffers'
 * positions and limits and calls a memory copy; for a frame of a few bytes that costs more than
 * the rest of the message's handling. Words are read and written big-endian on both sides, so
 * the bytes land in the order they were.
 */
final class SmallCopy {

    /** Payloads up to this many bytes take the word copy; longer ones the bulk copy. */
    static final int MAX_BYTES = 16;

    private static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private SmallCopy() {
    }

    /** Appends {@code src[at, at + length)} to {@code dst}, which has room for them. */
    static void toByteBuf(ByteBuffer src, int at, int length, ByteBuf dst) {
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            dst.writeLong((long) LONG.get(src, at + i));
        }
        if (i + Integer.BYTES <= length) {
            dst.writeInt((int) INT.get(src, at + i));
            i += Integer.BYTES;
        }
        for (; i < length; i++) {
            dst.writeByte(src.get(at + i));
        }
    }

    /** Reads {@code length} bytes of {@code src} into {@code dst} from {@code at} on (within its limit). */
    static void fromByteBuf(ByteBuf src, int length, ByteBuffer dst, int at) {
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            LONG.set(dst, at + i, src.readLong());
        }
        if (i + Integer.BYTES <= length) {
            INT.set(dst, at + i, src.readInt());
            i += Integer.BYTES;
        }
        for (; i < length; i++) {
            dst.put(at + i, src.readByte());
        }
    }
}
