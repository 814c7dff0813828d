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
