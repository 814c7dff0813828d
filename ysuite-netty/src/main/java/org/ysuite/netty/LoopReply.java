package org.ysuite.netty;

import java.nio.ByteBuffer;

/**
 * The way a {@link LoopHandler} answers: each {@code send} frames one message into the stream's
 * outbound batch on the event loop (no pipe, no wake-up); the batch goes to the socket when full
 * and, for the rest, once at the end of the loop's read. Use it only on the loop, during
 * {@link LoopHandler#onMessage}. No allocation per message.
 */
public interface LoopReply {

    /**
     * Sends bytes {@code [offset, offset + length)} of {@code src} as one message.
     *
     * @param src the bytes
     * @param offset where the message starts
     * @param length its length, {@code 0 <= length <= maxMessageLength}
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
     * @throws IllegalArgumentException if {@code length} is over the stream's {@code maxMessageLength}
     */
    void send(byte[] src, int offset, int length);

    /**
     * Sends bytes {@code [offset, offset + length)} of {@code src} as one message (absolute
     * indices: the buffer's position and limit are left as they were). An inbound view handed to
     * {@link LoopHandler#onMessage} may be sent back this way (an echo).
     *
     * @param src the bytes
     * @param offset index of the message's first byte in {@code src}
     * @param length its length, {@code 0 <= length <= maxMessageLength}
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}'s capacity
     * @throws IllegalArgumentException if {@code length} is over the stream's {@code maxMessageLength}
     */
    void send(ByteBuffer src, int offset, int length);
}
