package org.ysuite.netty;

import java.nio.ByteBuffer;

/**
 * A message handler that runs on the channel's event loop: the server side of a request/response
 * without a thread hand-off, as a plain Netty handler would be. Set it with
 * {@link MessageStreamBuilder#onLoop(LoopHandler)}; the stream then hands each inbound message to
 * it, on the loop, instead of to {@link MessageStream#receive(byte[])}.
 *
 * <p>A reply goes through {@link LoopReply}: it is framed straight into the stream's outbound
 * batch and the batch is flushed to the socket once, when the loop has handled everything it read
 * (Netty's {@code channelReadComplete}). Messages that application threads send through
 * {@link MessageWriter}s on the same stream interleave with the replies whole.
 *
 * <p>The handler must not block: it holds up every channel of its loop while it runs. If it
 * throws, the stream fails: the connection is reset (so the peer gets an {@code IOException}),
 * and {@link MessageStream#receive(byte[])} and the writers on this side throw an
 * {@code IOException} that names the handler's exception as its cause.
 */
@FunctionalInterface
public interface LoopHandler {

    /**
     * Handles one inbound message: bytes {@code [offset, offset + length)} of {@code buffer}.
     * Read them with absolute gets, or move the buffer's position and limit as needed. The view,
     * like {@code reply}, is valid only until this method returns.
     *
     * @param buffer the bytes as they arrived: a view of Netty's read buffer for a message of
     *     at least 4 KiB that lies whole in one read, else a copy in a buffer of the stream's own;
     *     read it, do not write to it
     * @param offset index of the message's first byte in {@code buffer}
     * @param length the message's length in bytes, at most the stream's {@code maxMessageLength}
     * @param reply where the answers go, any number of them, in order
     * @throws Exception to fail the stream (see above; an {@link Error} other than a
     *     {@link VirtualMachineError} does the same)
     */
    void onMessage(ByteBuffer buffer, int offset, int length, LoopReply reply) throws Exception;
}
