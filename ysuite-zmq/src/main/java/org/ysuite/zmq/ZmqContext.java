package org.ysuite.zmq;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.ysuite.zmq.internal.Endpoint;
import org.ysuite.zmq.internal.Inproc;
import org.ysuite.zmq.internal.NetTransport;
import org.ysuite.zmq.internal.SocketBridge;

/**
 * A ZeroMQ context: the I/O threads (Netty event loops, epoll where available, else NIO) that carry the
 * sockets' {@code tcp://} and {@code ipc://} connections, and the registry of {@code inproc://} names.
 * Thread-safe. libzmq's {@code zmq_ctx_new}/{@code zmq_ctx_term}; JeroMQ's {@code ZContext}.
 *
 * <p>{@link #close()} closes every socket still open (each honouring its linger), makes calls blocked in
 * them throw {@link ZmqError#ETERM}, and stops the I/O threads: no thread of the context is left.
 */
public final class ZmqContext implements AutoCloseable {

    private final NetTransport net;
    private final Inproc inproc = new Inproc();
    private final Set<ZmqSocket> sockets = ConcurrentHashMap.newKeySet();
    private final ZapClient zap = new ZapClient(this);
    private volatile boolean closed;

    private ZmqContext(int ioThreads) {
        this.net = new NetTransport(ioThreads);
    }

    /** A context with one I/O thread (libzmq's default). */
    public static ZmqContext create() {
        return new ZmqContext(1);
    }

    /**
     * A context with {@code ioThreads} I/O threads; a socket's connections are spread over them.
     *
     * @throws ZmqException EINVAL if {@code ioThreads} is below 1
     */
    public static ZmqContext create(int ioThreads) {
        return new ZmqContext(ioThreads);
    }

    /** The prefix of the I/O threads' names ({@code ysuite-zmq-io-...}). */
    public static String ioThreadNamePrefix() {
        return NetTransport.THREAD_PREFIX;
    }

    /**
     * A new socket of {@code type}.
     *
     * @throws ZmqException ETERM if the context is closed
     */
    public ZmqSocket socket(SocketType type) {
        if (type == null) {
            throw new ZmqException(ZmqError.EINVAL, "type: null");
        }
        if (closed) {
            throw new ZmqException(ZmqError.ETERM, "socket: the context is closed");
        }
        ZmqSocket s = new ZmqSocket(this, type);
        sockets.add(s);
        if (closed) {
            sockets.remove(s);
            throw new ZmqException(ZmqError.ETERM, "socket: the context is closed");
        }
        return s;
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    AutoCloseable bind(SocketBridge socket, Endpoint ep, String[] resolved) {
        if (ep.transport().equals("inproc")) {
            resolved[0] = ep.toString();
            return inproc.bind(socket, ep.address());
        }
        return net.bind(socket, ep, resolved);
    }

    AutoCloseable connect(SocketBridge socket, Endpoint ep) {
        if (ep.transport().equals("inproc")) {
            return inproc.connect(socket, ep.address());
        }
        return net.connect(socket, ep);
    }

    /** The context's ZAP client, which its PLAIN servers ask. */
    ZapClient zap() {
        return zap;
    }

    /** Whether {@code inproc://name} is bound now. */
    boolean inprocBound(String name) {
        return inproc.isBound(name);
    }

    /** One of the I/O threads, for work that must not run on the application's thread. */
    Executor ioExecutor() {
        return net.executor();
    }

    void closed(ZmqSocket socket) {
        sockets.remove(socket);
    }

    /**
     * Closes every open socket (each waits up to its linger for its queued messages), then stops the I/O
     * threads and waits for them to end. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        zap.close();
        List<ZmqSocket> open = new ArrayList<>(sockets);
        for (ZmqSocket s : open) {
            s.terminate();
        }
        for (ZmqSocket s : open) {
            s.close();
        }
        net.shutdown();
    }
}
