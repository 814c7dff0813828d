package org.ysuite.bench.net;

import java.util.Locale;

/**
 * The transports of the network runs, each with its own client ({@link Client}) and server
 * ({@link NetServer}) written the way a user of that transport would write them. Frames are the
 * same on every TCP peer: a 4-byte big-endian length, then the bytes (ZMTP's peers, ysuite-zmq and
 * JeroMQ, frame their own).
 */
public enum Peer {
    /** ysuite: {@code MessageStream} over Netty (application thread, pipes, event loop). */
    YSUITE("ysuite MessageStream (Netty epoll)"),
    /**
     * ysuite with the server's handler on the event loop ({@code MessageStreamBuilder.onLoop}); the
     * client as {@link #YSUITE} (an application thread with a {@code MessageWriter} and {@code receive}).
     */
    YSUITE_LOOP("ysuite MessageStream, server handler on the loop"),
    /**
     * ysuite-zmq: ZMTP 3.1 over tcp (PUSH/PULL for one-way traffic, REQ/REP for request/reply), the same
     * engine as {@link #YSUITE} with ZeroMQ's framing instead of the 4-byte length.
     */
    YSUITE_ZMQ("ysuite-zmq ZMTP (PUSH/PULL, REQ/REP)"),
    /** Raw blocking TCP: a {@code SocketChannel} write per message (seed 003's "black curve"). */
    TCP("raw blocking TCP SocketChannel"),
    /** JeroMQ over tcp: PUSH/PULL for one-way traffic, REQ/REP for request/reply. */
    JEROMQ("JeroMQ tcp (PUSH/PULL, REQ/REP)"),
    /** Netty the usual way: the application thread calls {@code writeAndFlush} per message. */
    NETTY_FLUSH("Netty writeAndFlush per message"),
    /** Netty with {@code write} per message and a {@code flush} every {@value #PERIODIC_FLUSH} messages. */
    NETTY_PERIODIC("Netty write + flush every 64");

    /** Messages between two flushes of {@link #NETTY_PERIODIC}. */
    public static final int PERIODIC_FLUSH = 64;

    private final String label;

    Peer(String label) {
        this.label = label;
    }

    /**
     * Returns the row label of the report.
     *
     * @return the label
     */
    public String label() {
        return label;
    }

    /**
     * Returns the JMH parameter value of this peer.
     *
     * @return e.g. {@code ysuite}, {@code netty_flush}
     */
    public String param() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Returns the peers that answer requests (every one but {@link #NETTY_PERIODIC}, whose
     * flush every 64 messages means nothing for one message at a time).
     *
     * @return the peers, in declaration order
     */
    public static java.util.List<Peer> requestReply() {
        java.util.List<Peer> out = new java.util.ArrayList<>(java.util.List.of(values()));
        out.remove(NETTY_PERIODIC);
        return out;
    }

    /**
     * Parses a JMH parameter value.
     *
     * @param param e.g. {@code ysuite}
     * @return the peer
     * @throws IllegalArgumentException if no peer has that name
     */
    public static Peer of(String param) {
        return valueOf(param.toUpperCase(Locale.ROOT));
    }
}
