package org.ysuite;

import java.nio.ByteBuffer;

/**
 * Receives messages from a byte pipe's {@code readBatch} ({@link OffHeapYPipe#readBatch}, the
 * shared pipe's reader) as views into its ring, without copying.
 */
@FunctionalInterface
public interface MessageHandler {
    /**
     * Handles one message: bytes {@code [offset, offset + length)} of {@code buffer}. The buffer
     * comes with position {@code 0}, limit its capacity and native byte order at every call,
     * whatever an earlier call did: read with absolute gets, or move position and limit (e.g.
     * {@code buffer.limit(offset + length).position(offset)}) and read relatively. The view is
     * valid only until this method returns.
     *
     * @param buffer the ring, read-only, in native byte order (see {@link OffHeapYPipe}'s Byte
     *     order: numbers written in another order read wrong, without an error)
     * @param offset index of the message's first byte in {@code buffer}
     * @param length the message's length in bytes
     */
    void onMessage(ByteBuffer buffer, int offset, int length);
}
