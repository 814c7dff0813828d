// Over 600 lines, one concept: the socket's public API as libzmq users know it, each call with its javadoc
// (about a third of the lines) and argument checks, and a setter per libzmq option (PLAIN, CURVE and TLS
// included) that stores it in SocketOptions. The work is in SocketPeers, OutgoingMessage, IncomingMessage,
// the per-type SocketRules, and for security in the wire package.
package org.ysuite.zmq;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.ysuite.Signaler;
import org.ysuite.zmq.internal.Endpoint;
import org.ysuite.zmq.internal.SocketOptions;

/**
 * A ZeroMQ socket with libzmq 4.3's semantics for its {@link SocketType}, over {@code tcp://},
 * {@code ipc://} and {@code inproc://}. Made by {@link ZmqContext#socket(SocketType)}.
 *
 * <p><b>Threads.</b> Not thread-safe, like libzmq's sockets: one thread at a time calls it (hand it over
 * with a happens-before edge of your own). Its I/O runs on the context's I/O threads; an inproc peer is
 * another socket, joined by ysuite pipes directly.
 *
 * <p><b>Messages.</b> A message is one or more frames; {@link #SNDMORE} marks a frame that more frames
 * follow, and a message travels whole or not at all. {@link #receive(int)} returns one frame; after it,
 * {@link #hasReceiveMore()} says whether the message has more.
 *
 * <p><b>High-water marks.</b> Each peer has an outbound and an inbound queue bounded in messages
 * ({@link #setSendHwm}, {@link #setReceiveHwm}, default 1000). At the send mark PUSH, DEALER, REQ and PAIR
 * block (or return false with {@link #DONTWAIT}, or throw EAGAIN after the send timeout); PUB and XPUB
 * drop the message for that subscriber; ROUTER drops it (with {@code routerMandatory}: blocks / EAGAIN).
 * At the receive mark the socket stops reading that connection until the application drains it.
 *
 * <p><b>A dropped peer.</b> When a connection ends, the messages queued for it and not yet written to
 * the network are dropped (as libzmq drops a terminated pipe's messages); messages it sent that arrived
 * are still received. A message half-written when the connection broke is lost. A connecting socket
 * reconnects (see {@link #setReconnectInterval}); nothing is resent.
 *
 */
public final class ZmqSocket implements AutoCloseable {

    /** Don't block: return false/null/-1 where the call would wait (libzmq ZMQ_DONTWAIT). */
    public static final int DONTWAIT = 1;
    /** More frames of the same message follow (libzmq ZMQ_SNDMORE). */
    public static final int SNDMORE = 2;

    private final ZmqContext context;
    private final SocketType type;
    private final SocketOptions options = new SocketOptions();
    private final SocketSignals signals = new SocketSignals();
    private final SocketPeers peers;
    /** The type's send and receive rules (socket thread). */
    private final SocketRules rules;
    private final OutgoingMessage outgoing;
    private final IncomingMessage incoming = new IncomingMessage();

    private final SocketEndpoints endpoints = new SocketEndpoints();
    private String lastEndpoint = "";
    /**
     * Set by close() on whatever thread closes (the application's, or the context's): volatile, so an I/O
     * thread attaching a peer after it sees it and closes the peer, and isClosed() answers any thread.
     */
    private volatile boolean closed;

    ZmqSocket(ZmqContext context, SocketType type) {
        this.context = context;
        this.type = type;
        this.peers = new SocketPeers(type, options, signals, this::isClosed);
        this.rules = peers.rules;
        this.outgoing = new OutgoingMessage(rules.out);
        this.options.authenticator = context.zap();
    }

    /** The socket's type. */
    public SocketType type() {
        return type;
    }

    // ---------------------------------------------------------------- endpoints

    /**
     * Binds to an endpoint: {@code tcp://host:port} ({@code *} for every interface, port 0 for one the
     * system picks), {@code ipc:///path} or {@code inproc://name}. Peers that connect become this socket's
     * peers. {@link #lastEndpoint()} then gives the bound address, port resolved.
     *
     * @throws ZmqException EINVAL for a malformed endpoint, EPROTONOSUPPORT for an unknown transport,
     *     EADDRINUSE if the address is taken
     */
    public void bind(String endpoint) {
        checkOpen();
        options.curve.check();
        Endpoint ep = Endpoint.parse(endpoint);
        String[] resolved = new String[1];
        AutoCloseable handle = context.bind(peers, ep, resolved);
        endpoints.bound(endpoint, resolved[0], handle);
        lastEndpoint = resolved[0];
    }

    /**
     * Connects to an endpoint; the connection is made in the background and remade with back-off when it
     * fails or drops ({@link #setReconnectInterval}). An inproc endpoint may be bound later.
     *
     * @throws ZmqException EINVAL for a malformed endpoint, EPROTONOSUPPORT for an unknown transport
     */
    public void connect(String endpoint) {
        checkOpen();
        options.curve.check();
        Endpoint ep = Endpoint.parse(endpoint);
        AutoCloseable handle = context.connect(peers, ep);
        endpoints.connected(endpoint, handle);
        lastEndpoint = endpoint;
    }

    /**
     * Stops listening on an endpoint given to (or returned by {@link #lastEndpoint()} after) {@link #bind},
     * and closes the connections accepted there.
     *
     * @throws ZmqException ENOENT if the socket is not bound there
     */
    public void unbind(String endpoint) {
        checkOpen();
        endpoints.unbind(endpoint);
    }

    /**
     * Stops connecting to an endpoint given to {@link #connect} and closes that connection.
     *
     * @throws ZmqException ENOENT if the socket is not connected there
     */
    public void disconnect(String endpoint) {
        checkOpen();
        endpoints.disconnect(endpoint);
    }

    /** The last endpoint bound (port resolved) or connected, libzmq's ZMQ_LAST_ENDPOINT; "" if none. */
    public String lastEndpoint() {
        return lastEndpoint;
    }

    // ---------------------------------------------------------------- send

    /** Sends one frame; see {@link #send(byte[], int, int, int)}. */
    public boolean send(byte[] data, int flags) {
        return send(data, 0, data.length, flags);
    }

    /** Sends the UTF-8 bytes of {@code utf8} as one frame; see {@link #send(byte[], int, int, int)}. */
    public boolean send(String utf8, int flags) {
        byte[] b = utf8.getBytes(StandardCharsets.UTF_8);
        return sendOwned(b, flags);
    }

    /** Sends {@code data}'s remaining bytes as one frame (copied; its position is unchanged). */
    public boolean send(ByteBuffer data, int flags) {
        byte[] b = new byte[data.remaining()];
        data.get(data.position(), b);
        return sendOwned(b, flags);
    }

    /**
     * Sends one frame (the bytes are copied). With {@link #SNDMORE} the frame is held until the message's
     * last frame, and the message then goes out whole.
     *
     * @param flags {@link #DONTWAIT} and/or {@link #SNDMORE}
     * @return true if sent (or queued, or dropped as the type's rules say, e.g. PUB without subscribers);
     *     false only with {@link #DONTWAIT} when the send would block (libzmq EAGAIN); the frames of the
     *     message sent so far are kept, so the caller may retry this last frame
     * @throws ZmqException EAGAIN when the send timeout passed, EFSM where the type forbids a send now (REQ
     *     awaiting its reply, REP without a request), EHOSTUNREACH (ROUTER, routerMandatory, unknown id),
     *     ENOTSUP for PULL and SUB, ETERM once closed
     */
    public boolean send(byte[] data, int offset, int length, int flags) {
        checkRange("send", data, offset, length);
        byte[] copy = outgoing.buffer(length);
        System.arraycopy(data, offset, copy, 0, length);
        return sendOwned(copy, flags);
    }

    private boolean sendOwned(byte[] frame, int flags) {
        checkOpen();
        rules.checkSend(!outgoing.started());
        if ((flags & SNDMORE) != 0) {
            outgoing.hold(frame);
            return true;
        }
        Object message = outgoing.complete(frame);
        long deadline = SocketSignals.deadline((flags & DONTWAIT) != 0 ? 0 : options.sendTimeout);
        for (;;) {
            peers.apply();
            if (rules.trySend(message)) {
                outgoing.sent();
                return true;
            }
            if (!signals.await(deadline)) {
                if ((flags & DONTWAIT) != 0) {
                    return false;
                }
                throw new ZmqException(ZmqError.EAGAIN, "send: no peer took the message within sendTimeout "
                        + options.sendTimeout + " ms (high-water mark " + options.sendHwm + " or no peer)");
            }
        }
    }

    // ---------------------------------------------------------------- receive

    /**
     * Receives one frame.
     *
     * @param flags {@link #DONTWAIT} or 0
     * @return the frame's bytes, or null with {@link #DONTWAIT} if none is there, or when the receive
     *     timeout passed
     * @throws ZmqException EFSM where the type forbids a receive now (REQ before its send, REP before its
     *     reply), ENOTSUP for PUSH and PUB, ETERM once closed
     */
    public byte[] receive(int flags) {
        return nextFrame(flags);
    }

    /**
     * Receives one frame into {@code buf}, as {@code zmq_recv}: copies at most {@code length} bytes.
     *
     * @return the frame's size (more than {@code length} if it was truncated), or -1 if none came
     *     ({@link #DONTWAIT}, or the receive timeout)
     */
    public int receive(byte[] buf, int offset, int length, int flags) {
        checkRange("receive", buf, offset, length);
        byte[] f = nextFrame(flags);
        if (f == null) {
            return -1;
        }
        System.arraycopy(f, 0, buf, offset, Math.min(length, f.length));
        return f.length;
    }

    /** Receives one frame as UTF-8 text; null as {@link #receive(int)}. */
    public String receiveString(int flags) {
        byte[] f = nextFrame(flags);
        return f == null ? null : new String(f, StandardCharsets.UTF_8);
    }

    /** Whether the last frame received has more frames after it (libzmq ZMQ_RCVMORE). */
    public boolean hasReceiveMore() {
        return incoming.more();
    }

    private byte[] nextFrame(int flags) {
        checkOpen();
        if (!incoming.pending()) {
            long deadline = SocketSignals.deadline((flags & DONTWAIT) != 0 ? 0 : options.receiveTimeout);
            for (;;) {
                signals.clearFd();
                peers.apply();
                Object m = rules.tryReceive();
                if (m != null) {
                    incoming.start(m);
                    break;
                }
                if (!signals.await(deadline)) {
                    incoming.none();
                    return null;
                }
            }
        }
        return incoming.next();
    }

    // ---------------------------------------------------------------- subscriptions

    /** SUB/XSUB: receives messages whose first frame starts with {@code prefix} (empty: all). */
    public void subscribe(byte[] prefix) {
        subscription(prefix, true);
    }

    /** SUB/XSUB: {@link #subscribe(byte[])} with the UTF-8 bytes of {@code prefix}. */
    public void subscribe(String prefix) {
        subscription(prefix.getBytes(StandardCharsets.UTF_8), true);
    }

    /** SUB/XSUB: cancels one {@link #subscribe} of the same prefix. */
    public void unsubscribe(byte[] prefix) {
        subscription(prefix, false);
    }

    /** SUB/XSUB: {@link #unsubscribe(byte[])} with the UTF-8 bytes of {@code prefix}. */
    public void unsubscribe(String prefix) {
        subscription(prefix.getBytes(StandardCharsets.UTF_8), false);
    }

    private void subscription(byte[] prefix, boolean on) {
        checkOpen();
        rules.subscription(prefix, on);
    }

    // ---------------------------------------------------------------- polling

    /**
     * Whether a receive would not block now (ZMQ_POLLIN); a frame of a message already begun counts.
     * Socket thread only.
     */
    boolean canReceive() {
        checkOpen();
        if (incoming.pending()) {
            return true;
        }
        peers.apply();
        Object m = rules.pollIn();
        if (m == null) {
            return false;
        }
        if (m != SocketRules.READY) {
            incoming.start(m); // filters and envelopes need the message itself: keep it
        }
        return true;
    }

    /** Whether a send would not block now (ZMQ_POLLOUT). Socket thread only. */
    boolean canSend() {
        checkOpen();
        peers.apply();
        return rules.canSend();
    }

    /** Adds a signaler fired whenever the socket may have become ready (a poller's). */
    void addSignal(Signaler s) {
        signals.add(s);
    }

    /** Removes a signaler added by {@link #addSignal}. */
    void removeSignal(Signaler s) {
        signals.remove(s);
    }

    /**
     * A descriptor that becomes readable when the socket may have input or room (libzmq's ZMQ_FD): as with
     * libzmq it is edge-like, so after it fires call {@link #receive} with {@link #DONTWAIT} until it returns
     * null (or check {@link ZmqPoller}). Created on first use; closed with the socket.
     */
    public int fd() {
        checkOpen();
        return signals.fd("zmq-" + type + "-fd");
    }

    /** Tells {@code l} of connection events from now on (null: none). See {@link ZmqEventListener}. */
    public void setEventListener(ZmqEventListener l) {
        peers.listener(l);
    }

    // ---------------------------------------------------------------- TLS (ysuite to ysuite only)

    /**
     * Runs this socket's {@code tcp://} connections over TLS (Netty's {@code SslHandler} with
     * {@code context}'s provider: the JDK's by default, OpenSSL/BoringSSL where the application adds
     * {@code netty-tcnative-boringssl-static} and builds the context with {@code SslProvider.OPENSSL}).
     * The ZMTP greeting, the mechanism's handshake (NULL or PLAIN, unchanged) and every message travel
     * inside TLS. A server context ({@code SslContextBuilder.forServer(key, chain)}) authenticates this
     * socket to its peers, and with {@code trustManager(...).clientAuth(ClientAuth.REQUIRE)} demands the
     * peer's certificate too (mutual authentication); a client context
     * ({@code SslContextBuilder.forClient().trustManager(...)}) verifies the server's certificate against
     * its trust and its names against the connect endpoint's host (hostname verification, on unless
     * {@link #setTlsHostnameVerification} turns it off). The TLS roles follow the context, the ZMTP roles
     * bind and connect. {@link #setHandshakeInterval} bounds the TLS handshake too. A failed TLS handshake
     * is a {@link ZmqEvent.Kind#HANDSHAKE_FAILED} event whose reason reads "TLS handshake with
     * &lt;address&gt; failed: &lt;cause&gt;"; a connector then retries as after any failed handshake.
     *
     * <p>Applies to endpoints bound or connected after the call; {@code ipc://} and {@code inproc://}
     * never leave the host and are not encrypted. Only ysuite peers speak it: libzmq has no TLS on
     * {@code tcp://} (its {@code tls://} transport exists only in draft builds with a different wire).
     *
     * @param context a client or server {@code SslContext}; null (the default) for no TLS
     */
    public void setTls(io.netty.handler.ssl.SslContext context) {
        checkOpen();
        org.ysuite.zmq.internal.TlsSupport.Settings s = options.tls;
        options.tls = context == null ? null
                : new org.ysuite.zmq.internal.TlsSupport.Settings(context, s == null || s.verifyHostname());
    }

    /**
     * Turns a TLS client's hostname verification off ({@code false}) or on again (the default): off, the
     * server's certificate is still checked against the client's trust, but a certificate for any host
     * is accepted, so any holder of a certificate of that authority can pose as the server. Call after
     * {@link #setTls}; applies to later connects.
     *
     * @throws ZmqException EINVAL if {@link #setTls} has not set a context
     */
    public void setTlsHostnameVerification(boolean on) {
        checkOpen();
        org.ysuite.zmq.internal.TlsSupport.Settings s = options.tls;
        if (s == null) {
            throw new ZmqException(ZmqError.EINVAL, "setTlsHostnameVerification: no TLS context (call setTls first)");
        }
        options.tls = new org.ysuite.zmq.internal.TlsSupport.Settings(s.context(), on);
    }

    /** The TLS context set by {@link #setTls}, or null. */
    public io.netty.handler.ssl.SslContext getTls() {
        org.ysuite.zmq.internal.TlsSupport.Settings s = options.tls;
        return s == null ? null : s.context();
    }

    // ---------------------------------------------------------------- options

    /** ZMQ_SNDHWM: the most messages queued per peer for sending; 0 for no limit; default 1000. Applies to later connections. */
    public void setSendHwm(int messages) {
        setOption("SNDHWM", messages);
    }

    /** ZMQ_RCVHWM: the most messages queued per peer on receipt; 0 for no limit; default 1000. Applies to later connections. */
    public void setReceiveHwm(int messages) {
        setOption("RCVHWM", messages);
    }

    /** ZMQ_LINGER: how long {@link #close()} waits for queued messages to be written, ms; -1 (the default, as libzmq 4.3) forever, 0 not at all. */
    public void setLinger(int millis) {
        setOption("LINGER", millis);
    }

    /** ZMQ_ROUTING_ID: the Identity this socket announces to its peers (1 to 255 bytes, not starting with 0). */
    public void setIdentity(byte[] id) {
        setOption("ROUTING_ID", id);
    }

    /** ZMQ_ROUTER_MANDATORY: a ROUTER send to an unknown routing id throws EHOSTUNREACH, and at the mark blocks (EAGAIN) instead of dropping. */
    public void setRouterMandatory(boolean on) {
        setOption("ROUTER_MANDATORY", on);
    }

    /** ZMQ_RECONNECT_IVL: the wait before a reconnect, ms; -1 for none; default 100. */
    public void setReconnectInterval(int millis) {
        setOption("RECONNECT_IVL", millis);
    }

    /** ZMQ_RECONNECT_IVL_MAX: when above 0 the reconnect wait doubles after each failure up to this, ms; default 0. */
    public void setReconnectIntervalMax(int millis) {
        setOption("RECONNECT_IVL_MAX", millis);
    }

    /** ZMQ_MAXMSGSIZE: the largest message a peer may send, bytes; -1 (default) for no limit; a larger one drops the peer. */
    public void setMaxMessageSize(long bytes) {
        setOption("MAXMSGSIZE", bytes);
    }

    /** ZMQ_RCVTIMEO: how long a receive waits, ms; -1 (default) forever. */
    public void setReceiveTimeout(int millis) {
        setOption("RCVTIMEO", millis);
    }

    /** ZMQ_SNDTIMEO: how long a send waits before EAGAIN, ms; -1 (default) forever. */
    public void setSendTimeout(int millis) {
        setOption("SNDTIMEO", millis);
    }

    /** ZMQ_HEARTBEAT_IVL: a PING every this many ms on each connection; 0 (default) for none. */
    public void setHeartbeatInterval(int millis) {
        setOption("HEARTBEAT_IVL", millis);
    }

    /** ZMQ_HEARTBEAT_TIMEOUT: drop a connection silent this long after a PING, ms; 0 for the interval. */
    public void setHeartbeatTimeout(int millis) {
        setOption("HEARTBEAT_TIMEOUT", millis);
    }

    /** ZMQ_HEARTBEAT_TTL: the time-to-live announced to the peer in PING, ms (at most 6553500). */
    public void setHeartbeatTtl(int millis) {
        setOption("HEARTBEAT_TTL", millis);
    }

    /** ZMQ_HANDSHAKE_IVL: how long a connection's handshake may take, ms; 0 for no limit; default 30000. */
    public void setHandshakeInterval(int millis) {
        setOption("HANDSHAKE_IVL", millis);
    }

    /** ZMQ_IMMEDIATE: accepted for compatibility; peers are used once their handshake completes either way. */
    public void setImmediate(boolean on) {
        setOption("IMMEDIATE", on);
    }

    /**
     * ZMQ_PLAIN_SERVER: with {@code true} this socket is a PLAIN server (ZeroMQ RFC 24): each client's
     * username and password are checked by the ZAP handler bound at {@code inproc://zeromq.zap.01} in this
     * socket's context; with no handler bound, every client is refused (as libzmq 4.3 does). {@code false}
     * returns to the NULL mechanism. Applies to later connections. PLAIN sends the password in clear.
     */
    public void setPlainServer(boolean on) {
        setOption("PLAIN_SERVER", on);
    }

    /** ZMQ_PLAIN_USERNAME: makes this socket a PLAIN client sending {@code username} (at most 255 UTF-8 bytes; empty: back to NULL). */
    public void setPlainUsername(String username) {
        setOption("PLAIN_USERNAME", username);
    }

    /** ZMQ_PLAIN_PASSWORD: makes this socket a PLAIN client sending {@code password} (at most 255 UTF-8 bytes). */
    public void setPlainPassword(String password) {
        setOption("PLAIN_PASSWORD", password);
    }

    // ---- CURVE (ZeroMQ RFC 25/26), libzmq's ZMQ_CURVE_* options ----

    /**
     * ZMQ_CURVE_SERVER: with {@code true} this socket is a CURVE server (it also needs
     * {@link #setCurveSecretKey}); {@code false} returns it to the NULL mechanism. A client's key is checked
     * by the ZAP handler bound at {@code inproc://zeromq.zap.01} when there is one; without one, every
     * client that completes the handshake is in (as libzmq 4.3 does). Applies to later connections.
     */
    public void setCurveServer(boolean on) {
        setOption("CURVE_SERVER", on);
    }

    /**
     * ZMQ_CURVE_PUBLICKEY: this socket's public key, 32 bytes or 40 {@link Z85} characters (as bytes).
     * Optional: it is derived from the secret key when not set.
     */
    public void setCurvePublicKey(byte[] key) {
        setOption("CURVE_PUBLICKEY", key);
    }

    /** ZMQ_CURVE_SECRETKEY: this socket's secret key, 32 bytes or 40 {@link Z85} characters (as bytes). */
    public void setCurveSecretKey(byte[] key) {
        setOption("CURVE_SECRETKEY", key);
    }

    /**
     * ZMQ_CURVE_SERVERKEY: makes this socket a CURVE client that trusts only the server holding this public
     * key (32 bytes or 40 {@link Z85} characters as bytes); it also needs its own key pair
     * ({@link #setCurveKeyPair}).
     */
    public void setCurveServerKey(byte[] key) {
        setOption("CURVE_SERVERKEY", key);
    }

    /** Sets ZMQ_CURVE_PUBLICKEY and ZMQ_CURVE_SECRETKEY from {@code pair} (see {@link ZmqCurve#keyPair()}). */
    public void setCurveKeyPair(ZmqCurve.KeyPair pair) {
        setOption("CURVE_PUBLICKEY", pair.publicKey());
        setOption("CURVE_SECRETKEY", pair.secretKey());
    }

    /** ZMQ_ZAP_DOMAIN: the domain a PLAIN or CURVE server names in its ZAP requests; default empty. Set on
     * a NULL socket, it makes that socket ask ZAP about each peer (by address), as libzmq 4.3 does. */
    public void setZapDomain(String domain) {
        setOption("ZAP_DOMAIN", domain);
    }

    /**
     * How many connections this socket dropped before their handshake completed: peers refused by ZAP or
     * by the security mechanism (a CURVE box that did not open, a wrong server key), a wrong socket type,
     * a handshake timeout. Each is also told to the event listener as {@link ZmqEvent.Kind#HANDSHAKE_FAILED}
     * with its reason. Any thread.
     */
    public long handshakeFailures() {
        return peers.handshakeFailures.sum();
    }

    /** The send high-water mark. */
    public int getSendHwm() {
        return options.sendHwm;
    }

    /** The receive high-water mark. */
    public int getReceiveHwm() {
        return options.receiveHwm;
    }

    /** The linger, ms. */
    public int getLinger() {
        return options.linger;
    }

    /** The identity (a copy; empty if none). */
    public byte[] getIdentity() {
        return options.identity.clone();
    }

    /** The receive timeout, ms. */
    public int getReceiveTimeout() {
        return options.receiveTimeout;
    }

    /** The send timeout, ms. */
    public int getSendTimeout() {
        return options.sendTimeout;
    }

    /**
     * Sets an option by libzmq's name without (or with) the {@code ZMQ_} prefix, case-insensitive:
     * SNDHWM, RCVHWM, LINGER, ROUTING_ID (IDENTITY), ROUTER_MANDATORY, RECONNECT_IVL, RECONNECT_IVL_MAX,
     * MAXMSGSIZE, RCVTIMEO, SNDTIMEO, HEARTBEAT_IVL, HEARTBEAT_TIMEOUT, HEARTBEAT_TTL, HANDSHAKE_IVL,
     * IMMEDIATE, PLAIN_SERVER, PLAIN_USERNAME, PLAIN_PASSWORD, ZAP_DOMAIN, SUBSCRIBE, UNSUBSCRIBE,
     * CURVE_SERVER, CURVE_PUBLICKEY, CURVE_SECRETKEY, CURVE_SERVERKEY (keys: 32 bytes, or 40 Z85
     * characters as a String or bytes; read back as 32 bytes).
     *
     * @throws ZmqException EINVAL naming the option for an unknown name or a bad value
     */
    public void setOption(String name, Object value) {
        checkOpen();
        SocketOptionNames.set(this, options, name, value);
    }

    /**
     * Reads an option by libzmq's name: those of {@link #setOption} plus TYPE, RCVMORE, LAST_ENDPOINT, FD
     * and MECHANISM ({@code "NULL"}, {@code "PLAIN"} or {@code "CURVE"}).
     *
     * @throws ZmqException EINVAL naming the option for an unknown name
     */
    public Object getOption(String name) {
        checkOpen();
        return SocketOptionNames.get(this, options, name);
    }

    // ---------------------------------------------------------------- close

    /** Whether {@link #close()} was called (or the context closed). */
    public boolean isClosed() {
        return closed;
    }

    private static void checkRange(String op, byte[] array, int offset, int length) {
        if (offset < 0 || length < 0 || offset > array.length - length) {
            throw new ZmqException(ZmqError.EINVAL, op + ": offset " + offset + " and length " + length
                    + " outside the array of " + array.length + " bytes");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new ZmqException(ZmqError.ETERM, type + " socket used after close");
        }
    }

    /**
     * Closes the socket: stops listening and connecting, waits up to {@link #setLinger linger} ms for the
     * messages queued to TCP/IPC peers to be written, then closes the connections (what is still queued is
     * dropped). Inproc peers keep what was sent to them. Idempotent.
     */
    @Override
    public void close() {
        close(options.linger);
    }

    void close(int lingerMillis) {
        if (closed) {
            return;
        }
        closed = true;
        // stop accepting and reconnecting; the connections themselves stay up for the linger
        endpoints.stop();
        peers.close(lingerMillis);
        endpoints.closeStopped();
        signals.close();
        context.closed(this);
    }

    /** Marks the socket terminated by its context: a blocked call throws ETERM. */
    void terminate() {
        signals.terminate();
    }

    @Override
    public String toString() {
        return "ZmqSocket[" + type + (closed ? ", closed" : "") + ", " + lastEndpoint + "]";
    }
}
