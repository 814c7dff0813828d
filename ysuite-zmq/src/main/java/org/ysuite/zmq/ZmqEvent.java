package org.ysuite.zmq;

/**
 * Something that happened to one of a socket's connections (libzmq's {@code zmq_socket_monitor} events,
 * simplified).
 *
 * @param kind what happened
 * @param endpoint the endpoint the connection belongs to, e.g. {@code "tcp://127.0.0.1:5555"}
 * @param reason why, in words (the ZMTP engine's reason for a drop; empty for a plain connect)
 */
public record ZmqEvent(Kind kind, String endpoint, String reason) {

    /** The kinds of event. */
    public enum Kind {
        /** The handshake completed: the peer is attached and messages flow. */
        CONNECTED,
        /** A handshaked connection ended (peer closed, heartbeat timeout, protocol error, ...). */
        DISCONNECTED,
        /** A connection ended before its handshake completed (wrong socket type, bad greeting, timeout). */
        HANDSHAKE_FAILED,
        /** A peer broke ZMTP after the handshake and was dropped; {@link #reason()} names the rule. */
        PROTOCOL_ERROR,
        /** A connect attempt failed; a reconnect is scheduled. */
        CONNECT_FAILED
    }
}
