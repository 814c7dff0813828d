package org.ysuite.zmq.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.ysuite.zmq.ZmqError;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.ZmqException;

/**
 * A context's {@code inproc://} registry: bound names, and the connects that wait for a name to be bound
 * (libzmq 4.x lets either come first). Two sockets are joined by two {@link Lane}s, one each way, with no
 * I/O thread between them; a lane's mark is the sender's send mark plus the receiver's receive mark, as
 * libzmq adds them for inproc.
 */
public final class Inproc {

    private final Map<String, SocketBridge> bound = new HashMap<>();
    private final Map<String, List<Connecting>> waiting = new HashMap<>();

    /** A connect waiting for its name, and the peer it made once joined. */
    private final class Connecting implements AutoCloseable {
        final SocketBridge socket;
        final String name;
        Peer peer;
        boolean closed;

        Connecting(SocketBridge socket, String name) {
            this.socket = socket;
            this.name = name;
        }

        @Override
        public void close() {
            Peer p;
            synchronized (Inproc.this) {
                closed = true;
                List<Connecting> l = waiting.get(name);
                if (l != null) {
                    l.remove(this);
                }
                p = peer;
            }
            if (p != null) {
                p.close();
            }
        }
    }

    /**
     * Binds {@code name} to {@code socket} and joins the connects that wait for it.
     *
     * @return closes the binding (connections made stay)
     * @throws ZmqException EADDRINUSE if the name is bound
     */
    public AutoCloseable bind(SocketBridge socket, String name) {
        List<Connecting> join;
        synchronized (this) {
            if (bound.containsKey(name)) {
                throw new ZmqException(ZmqError.EADDRINUSE, "inproc://" + name + " is already bound");
            }
            bound.put(name, socket);
            join = waiting.remove(name);
            if (join != null) {
                for (Connecting c : join) {
                    c.peer = join(c.socket, socket, name);
                }
            }
        }
        return () -> {
            synchronized (Inproc.this) {
                bound.remove(name, socket);
            }
        };
    }

    /** Whether {@code name} is bound now. */
    public synchronized boolean isBound(String name) {
        return bound.containsKey(name);
    }

    /** Connects {@code socket} to {@code name}, now if it is bound, else when it is. */
    public AutoCloseable connect(SocketBridge socket, String name) {
        Connecting c = new Connecting(socket, name);
        synchronized (this) {
            SocketBridge b = bound.get(name);
            if (b != null) {
                c.peer = join(socket, b, name);
            } else {
                waiting.computeIfAbsent(name, k -> new ArrayList<>()).add(c);
            }
        }
        return c;
    }

    private static int sum(int a, int b) {
        return a == 0 || b == 0 ? 0 : a + b;
    }

    /** Makes the two lanes and attaches a peer to each socket; returns the connecting side's peer. */
    private static Peer join(SocketBridge connecting, SocketBridge binding, String name) {
        if (!connecting.type().isCompatible(binding.type())) {
            String reason = "incompatible socket type " + binding.type() + " for " + connecting.type();
            connecting.event(new ZmqEvent(ZmqEvent.Kind.HANDSHAKE_FAILED, "inproc://" + name, reason));
            binding.event(new ZmqEvent(ZmqEvent.Kind.HANDSHAKE_FAILED, "inproc://" + name, reason));
            return null;
        }
        SocketOptions a = connecting.options();
        SocketOptions b = binding.options();
        Lane toBinder = new Lane(sum(a.sendHwm, b.receiveHwm), binding::wake, connecting::wake);
        Lane toConnector = new Lane(sum(b.sendHwm, a.receiveHwm), connecting::wake, binding::wake);
        Peer[] pair = new Peer[2];
        Runnable close = () -> {
            for (int i = 0; i < 2; i++) {
                Peer p = pair[i];
                if (!p.gone) {
                    p.gone = true;
                    (i == 0 ? connecting : binding).detach(p);
                }
            }
        };
        String ep = "inproc://" + name;
        pair[0] = new Peer(toBinder, toConnector, ep, b.identity, close);
        pair[1] = new Peer(toConnector, toBinder, ep, a.identity, close);
        pair[0].inproc = true;
        pair[1].inproc = true;
        connecting.attach(pair[0]);
        binding.attach(pair[1]);
        connecting.event(new ZmqEvent(ZmqEvent.Kind.CONNECTED, ep, ""));
        binding.event(new ZmqEvent(ZmqEvent.Kind.CONNECTED, ep, ""));
        return pair[0];
    }
}
