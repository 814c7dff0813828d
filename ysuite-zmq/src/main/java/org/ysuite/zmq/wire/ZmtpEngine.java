package org.ysuite.zmq.wire;

import io.netty.channel.Channel;
import java.util.Objects;

/**
 * Puts ZMTP 3.1 on a Netty channel: the greeting, the mechanism's handshake, then frames and commands
 * (ZeroMQ RFC 23/37).
 *
 * <p>What this engine speaks: ZMTP 3.1, and 3.0 with a peer that announces 3.0 (subscriptions then
 * travel as messages); the NULL and PLAIN mechanisms (see {@link ZmtpSecurity}). ZMTP 1.0 and 2.0 peers are refused (see RFC 23 "Backwards
 * Interoperability": downgrading is allowed, not required).
 */
public final class ZmtpEngine {

    /** The name of the handler {@link #install} adds to the pipeline. */
    public static final String HANDLER_NAME = "zmtp";

    private ZmtpEngine() {
    }

    /**
     * Adds the ZMTP handlers to {@code channel}'s pipeline. Call before the channel is active (in a
     * {@code ChannelInitializer}); the greeting goes out when it becomes active (at once, if it already is).
     *
     * @return the connection's sending side
     * @throws NullPointerException if an argument is null
     */
    public static ZmtpConnection install(Channel channel, ZmtpOptions options, ZmtpListener listener) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(listener, "listener");
        ZmtpHandler handler = new ZmtpHandler(channel, options, listener);
        channel.pipeline().addLast(HANDLER_NAME, handler);
        return handler;
    }
}
