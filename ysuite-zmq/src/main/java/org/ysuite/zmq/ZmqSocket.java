// Over 500 lines: the public socket API with its javadoc (send/receive variants, options by name) and
// the per-type rules of libzmq 4.3 (load balancing, fair queueing, envelopes, routing, subscriptions),
// which share the socket's state and would only be split by exposing it.
package org.ysuite.zmq;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.Signaler;
import org.ysuite.YSemaphore;
import org.ysuite.YSocketPair;
import org.ysuite.zmq.internal.Endpoint;
import org.ysuite.zmq.internal.EndpointHandle;
import org.ysuite.zmq.internal.Lane;
import org.ysuite.zmq.internal.Peer;
import org.ysuite.zmq.internal.SocketBridge;
import org.ysuite.zmq.internal.SocketOptions;
import org.ysuite.zmq.internal.Subscriptions;

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
 */
public final class ZmqSocket implements AutoCloseable {

    /** Don't block: return false/null/-1 where the call would wait (libzmq ZMQ_DONTWAIT). */
    public static final int DONTWAIT = 1;
    /** More frames of the same message follow (libzmq ZMQ_SNDMORE). */
    public static final int SNDMORE = 2;

    private static final byte[] EMPTY = new byte[0];

    private final ZmqContext context;
    private final SocketType type;
    private final SocketOptions options = new SocketOptions();
    private final YSemaphore signal = new YSemaphore();
    private final List<Signaler> extraSignals = new CopyOnWriteArrayList<>();
    private volatile YSocketPair fdSignal;
    private final ConcurrentLinkedQueue<Object[]> commands = new ConcurrentLinkedQueue<>();
    /** Every peer whose transport is up, for close (any thread). */
    private final Set<Peer> live = ConcurrentHashMap.newKeySet();
    /** Peers that take messages (socket thread). */
    private final List<Peer> outPeers = new ArrayList<>();
    /** Peers whose inbound lane may hold messages (socket thread). */
    private final List<Peer> inPeers = new ArrayList<>();
    private final Map<ByteBuffer, Peer> byRoutingId = new HashMap<>();
    private int nextRoutingId = ThreadLocalRandom.current().nextInt();
    private int outIndex;
    private int inIndex;
    private Peer lastInPeer;

    private Object current;
    private int currentIndex;
    private boolean receiveMore;
    private final ArrayList<byte[]> sendParts = new ArrayList<>();

    private boolean requestSent;
    private Peer requestPeer;
    private byte[][] replyEnvelope;
    private Peer replyPeer;

    /**
     * SUB/XSUB: the subscriptions, and the lock under which the peers' out lanes are written (a lane has one
     * writer at a time: the attaching thread writes the subscriptions, then the application thread; the lock
     * orders them).
     */
    private final Subscriptions ownSubscriptions = new Subscriptions();
    private final Object subscriptionLock = new Object();
    private final Subscriptions allSubscriptions = new Subscriptions();
    private final ArrayDeque<byte[]> upstream = new ArrayDeque<>();

    private final Map<String, AutoCloseable> bound = new HashMap<>();
    private final Map<String, AutoCloseable> connected = new HashMap<>();
    private String lastEndpoint = "";
    private volatile ZmqEventListener listener;
    private volatile boolean closed;
    private volatile boolean terminated;

    private final SocketBridge bridge = new SocketBridge() {
        @Override
        public SocketType type() {
            return type;
        }

        @Override
        public SocketOptions options() {
            return options;
        }

        @Override
        public void attach(Peer peer) {
            if (type == SocketType.SUB || type == SocketType.XSUB) {
                // the subscriptions go out before anything else, from whichever thread attaches, so that a
                // publisher that connects while the application thread is busy elsewhere gets them
                synchronized (subscriptionLock) {
                    for (byte[] prefix : ownSubscriptions.prefixes()) {
                        peer.out.write(subscriptionMessage(prefix, true));
                    }
                    live.add(peer);
                }
            } else {
                live.add(peer);
            }
            if (closed) {
                // the socket closed while this peer shook hands: close() either saw it in live or did not;
                // closing it here too is harmless (closing twice is a no-op)
                live.remove(peer);
                peer.close();
                return;
            }
            commands.add(new Object[] {Boolean.TRUE, peer});
            wake();
        }

        @Override
        public void detach(Peer peer) {
            live.remove(peer);
            commands.add(new Object[] {Boolean.FALSE, peer});
            wake();
        }

        @Override
        public void wake() {
            signal.signal(0);
            for (Signaler s : extraSignals) {
                s.signal(0);
            }
        }

        @Override
        public void event(ZmqEvent event) {
            ZmqEventListener l = listener;
            if (l != null) {
                try {
                    l.event(event);
                } catch (RuntimeException ignored) {
                    // a listener's failure must not break the I/O thread
                }
            }
        }
    };

    ZmqSocket(ZmqContext context, SocketType type) {
        this.context = context;
        this.type = type;
    }

    /** The socket's type. */
    public SocketType type() {
        return type;
    }

    /** The transports' view of this socket. */
    SocketBridge bridge() {
        return bridge;
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
        Endpoint ep = Endpoint.parse(endpoint);
        String[] resolved = new String[1];
        AutoCloseable handle = context.bind(bridge, ep, resolved);
        bound.put(resolved[0], handle);
        if (!resolved[0].equals(endpoint)) {
            bound.put(endpoint, handle);
        }
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
        Endpoint ep = Endpoint.parse(endpoint);
        AutoCloseable handle = context.connect(bridge, ep);
        AutoCloseable old = connected.put(endpoint, handle);
        if (old != null) {
            closeQuietly(old);
        }
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
        AutoCloseable h = bound.remove(endpoint);
        if (h == null) {
            throw new ZmqException(ZmqError.ENOENT, "unbind: not bound to " + endpoint);
        }
        bound.values().removeIf(v -> v == h);
        closeQuietly(h);
    }

    /**
     * Stops connecting to an endpoint given to {@link #connect} and closes that connection.
     *
     * @throws ZmqException ENOENT if the socket is not connected there
     */
    public void disconnect(String endpoint) {
        checkOpen();
        AutoCloseable h = connected.remove(endpoint);
        if (h == null) {
            throw new ZmqException(ZmqError.ENOENT, "disconnect: not connected to " + endpoint);
        }
        closeQuietly(h);
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
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new ZmqException(ZmqError.EINVAL, "send: offset " + offset + " and length " + length
                    + " outside the array of " + data.length + " bytes");
        }
        byte[] copy = reusable(length);
        System.arraycopy(data, offset, copy, 0, length);
        return sendOwned(copy, flags);
    }

    /**
     * An array of {@code length} bytes: one the I/O thread handed back after writing it (no allocation for a
     * stream of same-sized messages), else a new one.
     */
    private byte[] reusable(int length) {
        int n = outPeers.size();
        if (n > 0) {
            Lane r = outPeers.get(outIndex < n ? outIndex : 0).recycle;
            if (r != null) {
                Object b = r.read();
                if (b != null && ((byte[]) b).length == length) {
                    return (byte[]) b;
                }
            }
        }
        return new byte[length];
    }

    private boolean sendOwned(byte[] frame, int flags) {
        checkOpen();
        if (type == SocketType.PULL || type == SocketType.SUB) {
            throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not send");
        }
        if (sendParts.isEmpty()) {
            if (type == SocketType.REQ && requestSent) {
                throw new ZmqException(ZmqError.EFSM, "REQ: send after send; receive the reply first");
            }
            if (type == SocketType.REP && replyPeer == null && replyEnvelope == null) {
                throw new ZmqException(ZmqError.EFSM, "REP: send without a request; receive one first");
            }
        }
        if ((flags & SNDMORE) != 0) {
            sendParts.add(frame);
            return true;
        }
        Object message;
        if (sendParts.isEmpty()) {
            message = frame;
        } else {
            byte[][] m = sendParts.toArray(new byte[sendParts.size() + 1][]);
            m[m.length - 1] = frame;
            message = m;
        }
        long deadline = deadline((flags & DONTWAIT) != 0 ? 0 : options.sendTimeout);
        for (;;) {
            processCommands();
            if (trySend(message)) {
                sendParts.clear();
                return true;
            }
            if (!await(deadline)) {
                if ((flags & DONTWAIT) != 0) {
                    return false;
                }
                throw new ZmqException(ZmqError.EAGAIN, "send: no peer took the message within sendTimeout "
                        + options.sendTimeout + " ms (high-water mark " + options.sendHwm + " or no peer)");
            }
        }
    }

    /** One attempt at sending a whole message by the type's rules; false if it must wait. */
    private boolean trySend(Object message) {
        switch (type) {
            case PUSH: case DEALER:
                return loadBalance(message) != null;
            case REQ: {
                Peer p = loadBalance(prepend(EMPTY, message));
                if (p == null) {
                    return false;
                }
                requestSent = true;
                requestPeer = p;
                return true;
            }
            case PAIR: {
                if (outPeers.isEmpty() || !outPeers.get(0).out.tryReserve()) {
                    return false;
                }
                outPeers.get(0).out.write(message);
                return true;
            }
            case PUB: case XPUB: {
                readSubscriptions();
                byte[] first = first(message);
                boolean handedOut = false;
                for (int i = 0, n = outPeers.size(); i < n; i++) {
                    Peer p = outPeers.get(i);
                    if (p.subscriptions.matches(first) && p.out.hasRoom()) {
                        // a network peer's I/O thread only reads the arrays; an inproc peer hands them to its
                        // application, so each inproc subscriber after the first gets its own copy
                        p.out.write(p.inproc && handedOut ? copy(message) : message);
                        handedOut |= p.inproc;
                    }
                }
                return true;
            }
            case ROUTER:
                return routerSend(message);
            case REP: {
                Peer p = replyPeer;
                Object reply = replyEnvelope == null ? message : concat(replyEnvelope, message);
                if (p != null && p.attached && p.out.hasRoom()) {
                    p.out.write(reply);
                }
                replyPeer = null;
                replyEnvelope = null;
                return true;
            }
            case XSUB: {
                byte[] first = first(message);
                synchronized (subscriptionLock) {
                    if (!(message instanceof byte[][]) && first.length > 0 && (first[0] == 0 || first[0] == 1)) {
                        byte[] topic = java.util.Arrays.copyOfRange(first, 1, first.length);
                        if (first[0] == 1) {
                            ownSubscriptions.add(topic);
                        } else {
                            ownSubscriptions.remove(topic);
                        }
                    }
                    for (Peer p : live) {
                        if (p.out.hasRoom()) {
                            p.out.write(message);
                        }
                    }
                }
                return true;
            }
            default:
                throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not send");
        }
    }

    private Peer loadBalance(Object message) {
        int n = outPeers.size();
        for (int k = 0; k < n; k++) {
            int i = (outIndex + k) % n;
            Peer p = outPeers.get(i);
            if (p.out.tryReserve()) {
                p.out.write(message);
                outIndex = (i + 1) % n;
                return p;
            }
        }
        return null;
    }

    private boolean routerSend(Object message) {
        if (!(message instanceof byte[][] m)) {
            return true; // a routing id alone: nothing to send, as libzmq drops it
        }
        Peer p = byRoutingId.get(ByteBuffer.wrap(m[0]));
        if (p == null) {
            if (options.routerMandatory) {
                throw new ZmqException(ZmqError.EHOSTUNREACH, "ROUTER: no peer with routing id "
                        + hex(m[0]) + " (routerMandatory)");
            }
            return true;
        }
        if (!(options.routerMandatory ? p.out.tryReserve() : p.out.hasRoom())) {
            return !options.routerMandatory; // dropped at the mark unless mandatory, which waits
        }
        p.out.write(m.length == 2 ? m[1] : java.util.Arrays.copyOfRange(m, 1, m.length));
        return true;
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
        if (offset < 0 || length < 0 || offset > buf.length - length) {
            throw new ZmqException(ZmqError.EINVAL, "receive: offset " + offset + " and length " + length
                    + " outside the array of " + buf.length + " bytes");
        }
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
        return receiveMore;
    }

    private byte[] nextFrame(int flags) {
        checkOpen();
        if (current == null) {
            long deadline = deadline((flags & DONTWAIT) != 0 ? 0 : options.receiveTimeout);
            for (;;) {
                YSocketPair fdp = fdSignal;
                if (fdp != null) {
                    fdp.check(id -> { });
                }
                processCommands();
                Object m = tryReceive();
                if (m != null) {
                    current = m;
                    currentIndex = 0;
                    break;
                }
                if (!await(deadline)) {
                    receiveMore = false;
                    return null;
                }
            }
        }
        byte[] f;
        if (current instanceof byte[] single) {
            f = single;
            current = null;
            receiveMore = false;
        } else {
            byte[][] m = (byte[][]) current;
            f = m[currentIndex++];
            receiveMore = currentIndex < m.length;
            if (!receiveMore) {
                current = null;
            }
        }
        return f;
    }

    /** One attempt at receiving a whole message by the type's rules; null if none is there. */
    private Object tryReceive() {
        switch (type) {
            case PUSH: case PUB:
                throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not receive");
            case XPUB:
                readSubscriptions();
                return upstream.poll();
            case REQ: {
                if (!requestSent) {
                    throw new ZmqException(ZmqError.EFSM, "REQ: receive before send; send a request first");
                }
                for (;;) {
                    Object m = requestPeer.in.read();
                    if (m == null) {
                        return null;
                    }
                    if (m instanceof byte[][] parts && parts[0].length == 0) {
                        requestSent = false;
                        requestPeer = null;
                        return parts.length == 2 ? parts[1] : java.util.Arrays.copyOfRange(parts, 1, parts.length);
                    }
                    // not a reply with the delimiter: dropped, as libzmq's REQ does
                }
            }
            case REP: {
                if (replyPeer != null || replyEnvelope != null) {
                    throw new ZmqException(ZmqError.EFSM, "REP: receive before the reply to the last request");
                }
                for (;;) {
                    Object m = fairQueue();
                    if (m == null) {
                        return null;
                    }
                    if (!(m instanceof byte[][] parts)) {
                        continue; // no envelope: malformed, dropped
                    }
                    int d = 0;
                    while (d < parts.length && parts[d].length != 0) {
                        d++;
                    }
                    if (d >= parts.length - 1) {
                        continue; // no delimiter or no body: dropped
                    }
                    replyEnvelope = java.util.Arrays.copyOfRange(parts, 0, d + 1);
                    replyPeer = lastInPeer;
                    return d + 2 == parts.length ? parts[d + 1] : java.util.Arrays.copyOfRange(parts, d + 1, parts.length);
                }
            }
            case ROUTER: {
                Object m = fairQueue();
                return m == null ? null : prepend(lastInPeer.routingId, m);
            }
            case SUB: case XSUB:
                for (;;) {
                    Object m = fairQueue();
                    if (m == null || ownSubscriptions.matches(first(m))) {
                        return m;
                    }
                }
            default:
                return fairQueue();
        }
    }

    /** The next message from the peers in turn; drops peers that are gone and drained. */
    private Object fairQueue() {
        int n = inPeers.size();
        for (int k = 0; k < n; k++) {
            int i = (inIndex + k) % n;
            Peer p = inPeers.get(i);
            boolean gone = p.gone;
            Object m = p.in.read();
            if (m != null) {
                inIndex = (i + 1) % n;
                lastInPeer = p;
                return m;
            }
            if (gone && !p.attached) {
                inPeers.remove(i);
                n--;
                k--;
                if (inIndex > i) {
                    inIndex--;
                }
                if (n > 0) {
                    inIndex %= n;
                } else {
                    inIndex = 0;
                }
            }
        }
        return null;
    }

    /** PUB/XPUB: applies the subscriptions the peers sent; XPUB queues the new ones for the application. */
    private void readSubscriptions() {
        for (int i = 0; i < inPeers.size(); i++) {
            Peer p = inPeers.get(i);
            Object m;
            while ((m = p.in.read()) != null) {
                if (m instanceof byte[] b && b.length > 0 && (b[0] == 1 || b[0] == 0)) {
                    byte[] topic = java.util.Arrays.copyOfRange(b, 1, b.length);
                    if (b[0] == 1) {
                        p.subscriptions.add(topic);
                        if (allSubscriptions.add(topic) && type == SocketType.XPUB) {
                            upstream.add(b);
                        }
                    } else if (p.subscriptions.contains(topic)) {
                        p.subscriptions.remove(topic);
                        if (allSubscriptions.remove(topic) && type == SocketType.XPUB) {
                            upstream.add(b);
                        }
                    }
                }
            }
            if (p.gone && !p.attached) {
                inPeers.remove(i--);
            }
        }
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
        if (type != SocketType.SUB && type != SocketType.XSUB) {
            throw new ZmqException(ZmqError.ENOTSUP, (on ? "subscribe" : "unsubscribe")
                    + " is for SUB and XSUB sockets, not " + type);
        }
        synchronized (subscriptionLock) {
            boolean changed = on ? ownSubscriptions.add(prefix) : ownSubscriptions.remove(prefix);
            if (changed || on) {
                byte[] m = subscriptionMessage(prefix, on);
                for (Peer p : live) {
                    p.out.write(m);
                }
            }
        }
    }

    private static byte[] subscriptionMessage(byte[] prefix, boolean on) {
        byte[] m = new byte[prefix.length + 1];
        m[0] = (byte) (on ? 1 : 0);
        System.arraycopy(prefix, 0, m, 1, prefix.length);
        return m;
    }

    // ---------------------------------------------------------------- peers

    /** Applies the transports' attach/detach requests (socket thread). */
    private void processCommands() {
        Object[] c;
        while ((c = commands.poll()) != null) {
            Peer p = (Peer) c[1];
            if (c[0] == Boolean.TRUE) {
                attachPeer(p);
            } else {
                detachPeer(p);
            }
        }
    }

    private void attachPeer(Peer p) {
        if (p.gone || closed) {
            return;
        }
        if (type == SocketType.PAIR && !outPeers.isEmpty()) {
            p.close(); // PAIR talks to one peer; a second is refused, as libzmq does
            return;
        }
        p.attached = true;
        outPeers.add(p);
        inPeers.add(p);
        if (type == SocketType.ROUTER) {
            byte[] id = p.identity;
            if (id.length == 0 || byRoutingId.containsKey(ByteBuffer.wrap(id))) {
                int n = nextRoutingId++;
                id = new byte[] {0, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
            }
            p.routingId = id;
            byRoutingId.put(ByteBuffer.wrap(id), p);
        }
    }

    private void detachPeer(Peer p) {
        if (!p.attached) {
            return;
        }
        p.attached = false;
        outPeers.remove(p);
        outIndex = outPeers.isEmpty() ? 0 : outIndex % outPeers.size();
        if (p.routingId != null) {
            byRoutingId.remove(ByteBuffer.wrap(p.routingId), p);
        }
        if (type == SocketType.PUB || type == SocketType.XPUB) {
            List<byte[]> prefixes = p.subscriptions.prefixes();
            for (int i = 0; i < prefixes.size(); i++) {
                for (int k = p.subscriptions.count(i); k > 0; k--) {
                    if (allSubscriptions.remove(prefixes.get(i)) && type == SocketType.XPUB) {
                        upstream.add(subscriptionMessage(prefixes.get(i), false));
                    }
                }
            }
        }
        if (type == SocketType.PUSH || type == SocketType.PUB || (type == SocketType.REQ && p != requestPeer)) {
            // nothing of use comes in (a REQ reads only the peer it asked; libzmq's REQ waits for a reply
            // from a peer that left, and so does this one, until the application's timeout ends it)
            inPeers.remove(p);
        }
    }

    // ---------------------------------------------------------------- waiting

    private static long deadline(int timeoutMillis) {
        if (timeoutMillis < 0) {
            return Long.MAX_VALUE;
        }
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** Waits for a wake-up until {@code deadline}; false once it has passed. */
    private boolean await(long deadline) {
        if (terminated) {
            throw new ZmqException(ZmqError.ETERM, "the socket's context was closed");
        }
        try {
            if (deadline == Long.MAX_VALUE) {
                signal.await();
            } else {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                signal.await(left, TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZmqException(ZmqError.EINTR, "interrupted while waiting", e);
        }
        if (terminated) {
            throw new ZmqException(ZmqError.ETERM, "the socket's context was closed");
        }
        return true;
    }

    // ---------------------------------------------------------------- polling

    /**
     * Whether a receive would not block now (ZMQ_POLLIN); a frame of a message already begun counts.
     * Socket thread only.
     */
    boolean canReceive() {
        checkOpen();
        if (current != null) {
            return true;
        }
        processCommands();
        switch (type) {
            case PUSH: case PUB:
                return false;
            case XPUB:
                readSubscriptions();
                return !upstream.isEmpty();
            case REQ:
                return requestSent && requestPeer.in.checkRead();
            case REP:
                if (replyPeer != null || replyEnvelope != null) {
                    return false;
                }
                break;
            default:
                break;
        }
        if (type == SocketType.SUB || type == SocketType.XSUB || type == SocketType.REP) {
            Object m = tryReceive(); // filters and envelopes need the message itself: keep it
            if (m != null) {
                current = m;
                currentIndex = 0;
                return true;
            }
            return false;
        }
        boolean any = false;
        for (int i = 0; i < inPeers.size() && !any; i++) {
            any = inPeers.get(i).in.checkRead();
        }
        return any;
    }

    /** Whether a send would not block now (ZMQ_POLLOUT). Socket thread only. */
    boolean canSend() {
        checkOpen();
        processCommands();
        switch (type) {
            case PULL: case SUB:
                return false;
            case PUB: case XPUB: case XSUB: case ROUTER:
                return true;
            case REQ:
                if (requestSent) {
                    return false;
                }
                break;
            case REP:
                return replyPeer != null || replyEnvelope != null;
            case PAIR:
                return !outPeers.isEmpty() && outPeers.get(0).out.tryReserve();
            default:
                break;
        }
        for (Peer p : outPeers) {
            if (p.out.tryReserve()) {
                return true;
            }
        }
        return false;
    }

    /** Adds a signaler fired whenever the socket may have become ready (a poller's). */
    void addSignal(Signaler s) {
        extraSignals.add(s);
    }

    /** Removes a signaler added by {@link #addSignal}. */
    void removeSignal(Signaler s) {
        extraSignals.remove(s);
    }

    /**
     * A descriptor that becomes readable when the socket may have input or room (libzmq's ZMQ_FD): as with
     * libzmq it is edge-like, so after it fires call {@link #receive} with {@link #DONTWAIT} until it returns
     * null (or check {@link ZmqPoller}). Created on first use; closed with the socket.
     */
    public int fd() {
        checkOpen();
        YSocketPair p = fdSignal;
        if (p == null) {
            p = new YSocketPair().named("zmq-" + type + "-fd");
            fdSignal = p;
            extraSignals.add(p);
        }
        return p.fd();
    }

    /** Tells {@code l} of connection events from now on (null: none). See {@link ZmqEventListener}. */
    public void setEventListener(ZmqEventListener l) {
        this.listener = l;
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
     * IMMEDIATE, SUBSCRIBE, UNSUBSCRIBE.
     *
     * @throws ZmqException EINVAL naming the option for an unknown name or a bad value
     */
    public void setOption(String name, Object value) {
        checkOpen();
        String k = SocketOptions.key(name);
        if (k.equals("SUBSCRIBE") || k.equals("UNSUBSCRIBE")) {
            byte[] b = value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) value;
            subscription(b, k.equals("SUBSCRIBE"));
            return;
        }
        if (!options.set(name, value)) {
            throw new ZmqException(ZmqError.EINVAL, "setOption: unknown option " + name);
        }
    }

    /**
     * Reads an option by libzmq's name: those of {@link #setOption} plus TYPE, RCVMORE, LAST_ENDPOINT and FD.
     *
     * @throws ZmqException EINVAL naming the option for an unknown name
     */
    public Object getOption(String name) {
        checkOpen();
        switch (SocketOptions.key(name)) {
            case "TYPE": return type;
            case "RCVMORE": return receiveMore;
            case "LAST_ENDPOINT": return lastEndpoint;
            case "FD": return fd();
            default:
                Object v = options.get(name);
                if (v == null) {
                    throw new ZmqException(ZmqError.EINVAL, "getOption: unknown option " + name);
                }
                return v;
        }
    }

    // ---------------------------------------------------------------- close

    /** Whether {@link #close()} was called (or the context closed). */
    public boolean isClosed() {
        return closed;
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
        for (AutoCloseable h : bound.values()) {
            stopQuietly(h);
        }
        for (AutoCloseable h : connected.values()) {
            stopQuietly(h);
        }
        bound.clear();
        connected.clear();
        long deadline = lingerMillis < 0 ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lingerMillis);
        for (Peer p : live) {
            while (!p.drained() && System.nanoTime() - deadline < 0 && !p.gone) {
                LockSupport.parkNanos(200_000L); // close's bounded wait for the I/O thread to write
            }
        }
        for (Peer p : live) {
            p.close();
        }
        live.clear();
        for (AutoCloseable h : stopped) {
            closeQuietly(h);
        }
        stopped.clear();
        YSocketPair f = fdSignal;
        if (f != null) {
            f.close();
        }
        context.closed(this);
    }

    /** Marks the socket terminated by its context: a blocked call throws ETERM. */
    void terminate() {
        terminated = true;
        bridge.wake();
    }

    private final List<AutoCloseable> stopped = new ArrayList<>();

    private void stopQuietly(AutoCloseable c) {
        if (c instanceof EndpointHandle h) {
            h.stop();
            stopped.add(c);
        } else {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing a listener or connector does not fail in a way the caller could act on
        }
    }

    // ---------------------------------------------------------------- messages

    private static byte[] first(Object message) {
        return message instanceof byte[] b ? b : ((byte[][]) message)[0];
    }

    private static Object copy(Object message) {
        if (message instanceof byte[] b) {
            return b.clone();
        }
        byte[][] m = ((byte[][]) message).clone();
        for (int i = 0; i < m.length; i++) {
            m[i] = m[i].clone();
        }
        return m;
    }

    private static byte[][] prepend(byte[] frame, Object message) {
        if (message instanceof byte[] b) {
            return new byte[][] {frame, b};
        }
        byte[][] m = (byte[][]) message;
        byte[][] r = new byte[m.length + 1][];
        r[0] = frame;
        System.arraycopy(m, 0, r, 1, m.length);
        return r;
    }

    private static byte[][] concat(byte[][] head, Object message) {
        byte[][] tail = message instanceof byte[] b ? new byte[][] {b} : (byte[][]) message;
        byte[][] r = new byte[head.length + tail.length][];
        System.arraycopy(head, 0, r, 0, head.length);
        System.arraycopy(tail, 0, r, head.length, tail.length);
        return r;
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder("0x");
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "ZmqSocket[" + type + (closed ? ", closed" : "") + ", " + lastEndpoint + "]";
    }
}
