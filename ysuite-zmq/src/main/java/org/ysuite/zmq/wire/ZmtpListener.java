package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;

/**
 * What the ZMTP engine of one connection tells the socket above it. Every method is called on the
 * connection's event loop, one at a time.
 */
public interface ZmtpListener {

    /** The handshake completed: from now on frames flow both ways. */
    void ready(ZmtpConnection connection, ZmtpPeer peer);

    /**
     * One frame of a message from the peer.
     *
     * @param data the frame's bytes, readable from its reader index; valid only during this call (copy or
     *             {@code retainedSlice} what is kept)
     * @param more whether more frames of the same message follow (ZMTP's MORE flag)
     */
    void frame(ByteBuf data, boolean more);

    /**
     * One frame of a message from the peer, as {@code length} bytes at {@code offset} of {@code in}: what
     * the engine calls. By default it hands a slice to {@link #frame(ByteBuf, boolean)}; a listener that
     * copies each frame out overrides it and saves the slice (an object per frame).
     *
     * @param in the buffer that holds the frame; valid only during this call, its indices must not change
     * @param offset where the frame starts in {@code in}
     * @param length the frame's size in bytes
     * @param more whether more frames of the same message follow (ZMTP's MORE flag)
     */
    default void frame(ByteBuf in, int offset, int length, boolean more) {
        frame(in.slice(offset, length), more);
    }

    /**
     * The frames told since the last call end one batch of input (one read from the network, or the frames
     * kept while input was suspended): a listener that queues messages may publish them now, once per
     * batch rather than once per frame. It is not necessarily told before {@link #closed}: a listener
     * publishes what it queued there as well.
     */
    default void readComplete() {
    }

    /**
     * A subscription ({@code subscribe}) or its cancellation: a SUBSCRIBE/CANCEL command from a ZMTP 3.1
     * peer, or a subscription message ({@code 1} or {@code 0} then the topic) from a 3.0 peer; told only
     * to PUB and XPUB sockets.
     *
     * @param topic the prefix, valid only during this call
     */
    void subscription(ByteBuf topic, boolean subscribe);

    /**
     * The connection has ended: after {@link #ready} or instead of it.
     *
     * @param reason why, in words a user can act on (e.g. "peer closed", "protocol error: frame of 1048577 B
     *               over maxMessageSize 1048576", "heartbeat timeout", "handshake timeout",
     *               "incompatible socket type PUSH for PUB")
     * @param cause the exception behind it, or null
     */
    void closed(String reason, Throwable cause);
}
