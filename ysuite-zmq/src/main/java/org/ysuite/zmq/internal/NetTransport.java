package org.ysuite.zmq.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.ysuite.zmq.ZmqError;
import org.ysuite.zmq.ZmqException;

/**
 * The context's I/O threads and the {@code tcp://} and {@code ipc://} transports: Netty event loops (epoll
 * where {@link Epoll#isAvailable()}, else NIO), a listener per bind, a {@link Connector} per connect. A
 * socket's TLS setting ({@link SocketOptions#tls}) as it is at the bind or connect applies to that
 * endpoint's tcp connections ({@link TlsSupport}); ipc connections never leave the host and take none.
 */
public final class NetTransport {

    /** The prefix of the I/O threads' names. */
    public static final String THREAD_PREFIX = "ysuite-zmq-io";

    private final boolean epoll;
    private final EventLoopGroup group;

    /**
     * Starts {@code ioThreads} event loops.
     *
     * @throws ZmqException EINVAL if {@code ioThreads} is below 1
     */
    public NetTransport(int ioThreads) {
        if (ioThreads < 1) {
            throw new ZmqException(ZmqError.EINVAL, "ioThreads: " + ioThreads + ", at least 1");
        }
        this.epoll = Epoll.isAvailable();
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory(THREAD_PREFIX, true), factory);
    }

    /** One of the event loops, for short tasks of the context's own (ZAP replies). */
    public Executor executor() {
        return group.next();
    }

    /**
     * Binds {@code socket} at {@code ep} (tcp or ipc).
     *
     * @param resolved receives the bound endpoint, port resolved
     * @return closes the listener and the connections it accepted (and unlinks an ipc path)
     */
    public AutoCloseable bind(SocketBridge socket, Endpoint ep, String[] resolved) {
        boolean ipc = ep.transport().equals("ipc");
        SocketAddress address;
        Path path = null;
        if (ipc) {
            path = Path.of(ep.address());
            removeStaleSocket(path, ep);
            address = epoll ? new DomainSocketAddress(ep.address()) : UnixDomainSocketAddress.of(path);
        } else {
            address = ep.host().equals("*") ? new InetSocketAddress(ep.port()) : new InetSocketAddress(ep.host(), ep.port());
        }
        Set<Channel> children = ConcurrentHashMap.newKeySet();
        Class<? extends ServerChannel> type = ipc
                ? (epoll ? EpollServerDomainSocketChannel.class : NioServerDomainSocketChannel.class)
                : (epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
        String[] endpointName = new String[1];
        TlsSupport.Settings tls = ipc ? null : socket.options().tls; // as at the bind: ipc stays in the host
        ServerBootstrap b = new ServerBootstrap().group(group).channel(type)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add(ch);
                        ch.closeFuture().addListener(f -> children.remove(ch));
                        if (tls != null) {
                            TlsSupport.accepted(ch, tls);
                        }
                        new Connection(socket, endpointName[0], ch, true, null);
                    }
                });
        if (!ipc) {
            b.childOption(ChannelOption.TCP_NODELAY, true);
        }
        Channel server;
        try {
            server = b.bind(address).sync().channel();
        } catch (Exception e) {
            if (e instanceof BindException || String.valueOf(e.getMessage()).contains("in use")) {
                throw new ZmqException(ZmqError.EADDRINUSE, "bind " + ep + ": address in use", e);
            }
            throw new ZmqException(ZmqError.EINVAL, "bind " + ep + ": " + e.getMessage(), e);
        }
        if (ipc) {
            endpointName[0] = "ipc://" + ep.address();
        } else {
            InetSocketAddress local = (InetSocketAddress) server.localAddress();
            String host = ep.host().equals("*") ? "0.0.0.0" : local.getAddress().getHostAddress();
            if (host.indexOf(':') >= 0) {
                host = "[" + host + "]";
            }
            endpointName[0] = "tcp://" + host + ":" + local.getPort();
        }
        resolved[0] = endpointName[0];
        Path unlink = path;
        return new EndpointHandle() {
            @Override
            public void stop() {
                server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
                if (unlink != null) {
                    try {
                        Files.deleteIfExists(unlink);
                    } catch (IOException ignored) {
                        // someone else's file now, or a directory we may not write: nothing to undo
                    }
                }
            }

            @Override
            public void close() {
                stop();
                for (Channel c : children) {
                    c.close();
                }
            }
        };
    }

    /** libzmq removes whatever is at an ipc path before it binds there (a stale socket file). */
    private static void removeStaleSocket(Path path, Endpoint ep) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new ZmqException(ZmqError.EADDRINUSE, "bind " + ep + ": cannot remove " + path + ": " + e.getMessage(), e);
        }
    }

    /** Connects {@code socket} to {@code ep} (tcp or ipc) in the background; returns the connect's handle. */
    public AutoCloseable connect(SocketBridge socket, Endpoint ep) {
        boolean ipc = ep.transport().equals("ipc");
        SocketAddress address;
        if (ipc) {
            address = epoll ? new DomainSocketAddress(ep.address()) : UnixDomainSocketAddress.of(ep.address());
        } else {
            if (ep.host().equals("*") || ep.port() == 0) {
                throw new ZmqException(ZmqError.EINVAL, "connect " + ep + ": a host and a port are needed");
            }
            address = InetSocketAddress.createUnresolved(ep.host(), ep.port());
        }
        Bootstrap b = new Bootstrap().channel(ipc
                ? (epoll ? EpollDomainSocketChannel.class : NioDomainSocketChannel.class)
                : (epoll ? EpollSocketChannel.class : NioSocketChannel.class));
        if (!ipc) {
            b.option(ChannelOption.TCP_NODELAY, true);
        }
        TlsSupport.Settings tls = ipc ? null : socket.options().tls; // as at the connect, for every reconnect
        java.util.function.Consumer<Channel> secure = tls == null ? null
                : ch -> TlsSupport.connecting(ch, tls, ep.host(), ep.port());
        Connector c = new Connector(socket, ep.toString(), address, b, group.next(), secure);
        c.start();
        return c;
    }

    /** Stops the event loops and waits (up to 10 s) until their threads are gone. */
    public void shutdown() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
}
