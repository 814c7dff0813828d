package org.ysuite.zmq;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The ZeroMQ socket types, with the name each announces in ZMTP's {@code Socket-Type} property and
 * the peers it may talk to (ZeroMQ RFC 23/37, "The Socket-Type property"; libzmq
 * {@code mechanism_t::check_socket_type}). A connection whose peer announces an incompatible type is
 * dropped during the handshake.
 */
public enum SocketType {
    /** Exclusive pair: one peer, both directions. */
    PAIR,
    /** Publisher: sends to every subscriber whose subscription prefixes the message. */
    PUB,
    /** Subscriber: receives what it subscribed to. */
    SUB,
    /** Requester: send, receive, send, ... over an empty delimiter frame. */
    REQ,
    /** Replier: receive, send, receive, ... back to the requester the request came from. */
    REP,
    /** Asynchronous requester: round-robin out, fair-queued in, no envelope rules. */
    DEALER,
    /** Asynchronous replier: prefixes each received message with the peer's routing id and routes sends by it. */
    ROUTER,
    /** Receives from pushers, fair-queued. */
    PULL,
    /** Sends to pullers, round-robin. */
    PUSH,
    /** A publisher that receives its subscribers' subscriptions as messages. */
    XPUB,
    /** A subscriber that sends subscriptions as messages. */
    XSUB;

    private final byte[] zmtpName = name().getBytes(StandardCharsets.US_ASCII);

    /** The name sent as the {@code Socket-Type} property: the upper-case type name, as ASCII bytes (a copy). */
    public byte[] zmtpName() {
        return zmtpName.clone();
    }

    /**
     * The type a peer announced, matched as RFC 23 asks (case-sensitive, upper case).
     *
     * @param name the property's value
     * @return the type, or {@code null} if the name is none of them
     */
    public static SocketType fromZmtpName(byte[] name) {
        if (name == null || name.length < 3 || name.length > 6) {
            return null;
        }
        String s = new String(name, StandardCharsets.US_ASCII);
        if (!s.equals(s.toUpperCase(Locale.ROOT))) {
            return null;
        }
        for (SocketType t : values()) {
            if (t.name().equals(s)) {
                return t;
            }
        }
        return null;
    }

    /**
     * Whether a socket of this type may talk to a peer of {@code peer}'s type (RFC 23's table, as libzmq
     * applies it).
     */
    public boolean isCompatible(SocketType peer) {
        switch (this) {
            case PAIR: return peer == PAIR;
            case PUB: case XPUB: return peer == SUB || peer == XSUB;
            case SUB: case XSUB: return peer == PUB || peer == XPUB;
            case REQ: return peer == REP || peer == ROUTER;
            case REP: return peer == REQ || peer == DEALER;
            case DEALER: return peer == REP || peer == DEALER || peer == ROUTER;
            case ROUTER: return peer == REQ || peer == DEALER || peer == ROUTER;
            case PULL: return peer == PUSH;
            case PUSH: return peer == PULL;
            default: return false;
        }
    }
}
