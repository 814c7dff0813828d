package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * The sending side of one ZMTP connection, for the socket above it. Every method except
 * {@link #close()} is called on the connection's event loop.
 */
public interface ZmtpConnection {

    /** The Netty channel the connection runs on. */
    Channel channel();

    /** The peer, once {@link ZmtpListener#ready} was told; null before. */
    ZmtpPeer peer();

    /**
     * Queues one frame of a message (not flushed).
     *
     * @param data the frame's bytes; the connection takes ownership (releases it)
     * @param more whether more frames of the same message follow
     */
    void writeFrame(ByteBuf data, boolean more);

    /**
     * Queues a subscription or its cancellation in the form the peer speaks: a SUBSCRIBE/CANCEL
     * command to a ZMTP 3.1 peer, a subscription message to a 3.0 peer (not flushed).
     *
     * @param topic the prefix; the connection takes ownership
     */
    void writeSubscription(ByteBuf topic, boolean subscribe);

    /**
     * The number of bytes of ZMTP framing in front of a frame of {@code size} bytes: 2 for a short
     * frame (up to 255 bytes), 9 for a long one.
     */
    static int frameHeaderLength(long size) {
        return size <= 255 ? 2 : 9;
    }

    /**
     * Writes ZMTP's header of a message frame of {@code size} bytes into {@code out} (RFC 23: flags,
     * then a one-byte or an eight-byte network-order size), so that a caller may batch frames into one
     * buffer and hand it to {@link #writeFramed}.
     */
    static void writeFrameHeader(ByteBuf out, long size, boolean more) {
        if (size <= 255) {
            out.writeByte(more ? 0x01 : 0x00);
            out.writeByte((int) size);
        } else {
            out.writeByte(more ? 0x03 : 0x02);
            out.writeLong(size);
        }
    }

    /**
     * Queues bytes already framed with {@link #writeFrameHeader} (whole frames only; not flushed).
     *
     * @param framed the bytes; the connection takes ownership
     */
    void writeFramed(ByteBuf framed);

    /**
     * Stops handing frames to the listener after the one being handed over (call it from
     * {@link ZmtpListener#frame} when the socket's receive queue is full, or any time): the bytes that
     * arrive meanwhile are kept, and reading from the channel stops, so a peer is held back by TCP, as
     * libzmq holds it at the receive high-water mark. Heartbeat limits do not drop the connection while
     * input is suspended. Any thread.
     *
     * <p>This default only stops the channel's reads (frames already read are still handed over); the
     * engine's own connection stops exactly after the current frame.
     */
    default void suspendInput() {
        channel().config().setAutoRead(false);
    }

    /**
     * Resumes handing frames to the listener, starting with those kept while suspended, then reading from
     * the channel again. Any thread.
     */
    default void resumeInput() {
        channel().config().setAutoRead(true);
    }

    /** Flushes what was queued to the socket. */
    void flush();

    /** Closes the connection (any thread); {@link ZmtpListener#closed} follows on the event loop. */
    void close();
}
