package org.ysuite.zmq.wire;

import java.util.Objects;
import org.ysuite.zmq.SocketType;

/**
 * What one ZMTP connection announces and enforces: the local socket type and identity sent in READY,
 * the largest message accepted, the heartbeats (libzmq's {@code ZMQ_HEARTBEAT_IVL}, {@code _TIMEOUT},
 * {@code _TTL}) and the handshake's time limit ({@code ZMQ_HANDSHAKE_IVL}). Immutable.
 *
 * @param socketType the local socket's type, announced as {@code Socket-Type}
 * @param identity the routing id announced as {@code Identity} (REQ, DEALER and ROUTER only; empty for none), at most 255 bytes
 * @param maxMessageSize the largest message in bytes (all frames of it together) a peer may send; -1 for no limit
 * @param heartbeatIntervalMillis how often a PING is sent on a connection; 0 for none
 * @param heartbeatTimeoutMillis how long without any traffic after a PING before the connection is dropped; 0 for the interval
 * @param heartbeatTtlMillis the time-to-live announced in PING (the peer drops the connection after it without traffic); 0 for none
 * @param handshakeMillis how long the greeting and handshake may take before the connection is dropped; 0 for no limit
 * @param asServer whether this side accepted the connection (announced in a NULL greeting's as-server flag;
 *                 PLAIN announces {@link ZmtpSecurity#server()} instead)
 * @param security the security mechanism and its settings
 */
public record ZmtpOptions(SocketType socketType, byte[] identity, long maxMessageSize,
                          int heartbeatIntervalMillis, int heartbeatTimeoutMillis, int heartbeatTtlMillis,
                          int handshakeMillis, boolean asServer, ZmtpSecurity security) {

    /** libzmq's default handshake limit, 30 s. */
    public static final int DEFAULT_HANDSHAKE_MILLIS = 30_000;

    /**
     * Checks the arguments.
     *
     * @throws NullPointerException if {@code socketType} or {@code identity} is null
     * @throws IllegalArgumentException naming the argument and its limit
     */
    public ZmtpOptions {
        Objects.requireNonNull(socketType, "socketType");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(identity, "identity");
        if (identity.length > 255) {
            throw new IllegalArgumentException("identity: " + identity.length + " bytes, at most 255");
        }
        if (maxMessageSize < -1) {
            throw new IllegalArgumentException("maxMessageSize: " + maxMessageSize + ", -1 (no limit) or at least 0");
        }
        if (heartbeatIntervalMillis < 0 || heartbeatTimeoutMillis < 0 || heartbeatTtlMillis < 0 || handshakeMillis < 0) {
            throw new IllegalArgumentException("heartbeat and handshake times must be at least 0 ms");
        }
        if (heartbeatTtlMillis > 6_553_500) {
            throw new IllegalArgumentException("heartbeatTtlMillis: " + heartbeatTtlMillis
                    + ", at most 6553500 (PING carries it in tenths of a second in 16 bits)");
        }
        identity = identity.clone();
    }

    /** Options with the NULL mechanism; see the canonical constructor for the arguments. */
    public ZmtpOptions(SocketType socketType, byte[] identity, long maxMessageSize, int heartbeatIntervalMillis,
                       int heartbeatTimeoutMillis, int heartbeatTtlMillis, int handshakeMillis, boolean asServer) {
        this(socketType, identity, maxMessageSize, heartbeatIntervalMillis, heartbeatTimeoutMillis,
                heartbeatTtlMillis, handshakeMillis, asServer, ZmtpSecurity.NULL);
    }

    /** These options with {@code security} instead of theirs. */
    public ZmtpOptions withSecurity(ZmtpSecurity security) {
        return new ZmtpOptions(socketType, identity, maxMessageSize, heartbeatIntervalMillis, heartbeatTimeoutMillis,
                heartbeatTtlMillis, handshakeMillis, asServer, security);
    }

    /** Options with libzmq's defaults: no identity, no size limit, no heartbeats, a 30 s handshake, client side. */
    public static ZmtpOptions defaults(SocketType socketType) {
        return new ZmtpOptions(socketType, new byte[0], -1, 0, 0, 0, DEFAULT_HANDSHAKE_MILLIS, false);
    }

    /** The identity (a copy). */
    @Override
    public byte[] identity() {
        return identity.clone();
    }
}
