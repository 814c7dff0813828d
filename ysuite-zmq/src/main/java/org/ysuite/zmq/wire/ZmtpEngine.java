package org.ysuite.zmq.wire;

import io.netty.channel.Channel;

/**
 * Puts ZMTP 3.1 on a Netty channel: the greeting, the mechanism's handshake, then frames and commands
 * (ZeroMQ RFC 23/37).
 */
public final class ZmtpEngine {

    private ZmtpEngine() {
    }

    /**
     * Adds the ZMTP handlers to {@code channel}'s pipeline. Call before the channel is active (in a
     * {@code ChannelInitializer}); the greeting goes out when it becomes active.
     *
     * @return the connection's sending side
     */
    public static ZmtpConnection install(Channel channel, ZmtpOptions options, ZmtpListener listener) {
        throw new UnsupportedOperationException("not yet");
    }
}
