package org.ysuite.zmq.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import org.ysuite.zmq.ZmqEvent;

/**
 * A socket's connect to one endpoint: connects, and when the connect fails or the connection drops,
 * connects again after {@code reconnectInterval} ms, doubling up to {@code reconnectIntervalMax} when that is
 * above 0 (libzmq's ZMQ_RECONNECT_IVL and _MAX); a completed handshake resets the wait. All on one loop.
 */
final class Connector implements EndpointHandle {

    private final SocketBridge socket;
    private final String endpoint;
    private final SocketAddress address;
    private final Bootstrap bootstrap;
    private final EventLoop loop;
    private volatile boolean closed;
    private volatile Channel channel;
    private int wait;

    /**
     * @param prepare adds handlers ahead of the connection's ({@link TlsSupport}) on each new channel; null for none
     */
    Connector(SocketBridge socket, String endpoint, SocketAddress address, Bootstrap template, EventLoop loop,
              java.util.function.Consumer<Channel> prepare) {
        this.socket = socket;
        this.endpoint = endpoint;
        this.address = address;
        this.loop = loop;
        this.wait = socket.options().reconnectInterval;
        Connector self = this;
        this.bootstrap = template.clone().group(loop).handler(new io.netty.channel.ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                if (prepare != null) {
                    prepare.accept(ch);
                }
                new Connection(socket, endpoint, ch, false, self);
            }
        });
    }

    /** Starts the first attempt. */
    void start() {
        loop.execute(this::attempt);
    }

    private void attempt() {
        if (closed) {
            return;
        }
        ChannelFuture f = bootstrap.connect(address);
        channel = f.channel();
        f.addListener(done -> {
            if (!done.isSuccess()) {
                socket.event(new ZmqEvent(ZmqEvent.Kind.CONNECT_FAILED, endpoint,
                        String.valueOf(done.cause() == null ? "connect failed" : done.cause().getMessage())));
                retry(f.channel());
            } else if (closed) {
                f.channel().close();
            }
        });
    }

    /** The handshake completed: the next drop waits the base interval again. Loop thread. */
    void connected() {
        wait = socket.options().reconnectInterval;
    }

    /** The connection on {@code ch} dropped (or its attempt failed): reconnect later. Loop thread. */
    void lost(Channel ch) {
        retry(ch);
    }

    /**
     * Schedules the next attempt once per attempt: a refused connect is reported both by its future and
     * by its channel's pipeline going away, and only the first report of the current channel counts (two
     * retries per attempt would double the attempts at each refusal). Loop thread.
     */
    private void retry(Channel ch) {
        if (ch != channel) {
            return; // an attempt already retried
        }
        channel = null;
        schedule();
    }

    private void schedule() {
        if (closed || loop.isShuttingDown()) {
            return;
        }
        SocketOptions o = socket.options();
        if (o.reconnectInterval < 0) {
            return;
        }
        int now = Math.max(wait, 0);
        if (o.reconnectIntervalMax > 0) {
            wait = (int) Math.min((long) Math.max(now, 1) * 2, o.reconnectIntervalMax);
        } else {
            wait = o.reconnectInterval;
        }
        try {
            loop.schedule(this::attempt, now, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
            // the context is closing: no reconnect
        }
    }

    /** Stops reconnecting; the connection stays. */
    @Override
    public void stop() {
        closed = true;
    }

    /** Stops reconnecting and closes the connection. */
    @Override
    public void close() {
        closed = true;
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }
}
