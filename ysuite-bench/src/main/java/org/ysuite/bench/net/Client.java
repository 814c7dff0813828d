package org.ysuite.bench.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.ysuite.netty.MessageStream;
import org.ysuite.netty.MessageWriter;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqSocket;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The client side of a network run: one connection to a {@link NetServer}, used by one
 * application thread. {@link #send} is one-way traffic; {@link #request} sends and waits for the
 * reply. Each peer is written the way its users write it.
 */
public abstract class Client implements AutoCloseable {

    /**
     * Sends one message (one-way).
     *
     * @param msg the bytes
     * @param length how many
     * @throws Exception if the connection fails
     */
    public abstract void send(byte[] msg, int length) throws Exception;

    /**
     * Sends one message and waits for the reply.
     *
     * @param msg the request
     * @param length its length
     * @param reply where the reply goes
     * @return the reply's length
     * @throws Exception if the connection fails
     */
    public abstract int request(byte[] msg, int length, byte[] reply) throws Exception;

    /**
     * Makes everything sent so far leave (only the periodic-flush peer holds messages back).
     *
     * @throws Exception if the connection fails
     */
    public void flush() throws Exception {
    }

    /**
     * Closes the connection and its threads.
     *
     * @throws Exception if closing fails
     */
    @Override
    public abstract void close() throws Exception;

    /**
     * Connects a client of {@code peer} to a server.
     *
     * @param peer the transport
     * @param requestReply {@code true} for request/reply (JeroMQ REQ), {@code false} for one-way
     *     traffic (JeroMQ PUSH)
     * @param host the server's address
     * @param port its port
     * @param bufferSize the ysuite stream's buffer size (the others ignore it)
     * @return the connected client
     * @throws Exception if the connection fails
     */
    public static Client connect(Peer peer, boolean requestReply, String host, int port, int bufferSize)
            throws Exception {
        switch (peer) {
            case YSUITE:
            case YSUITE_LOOP: // the client is the same; only the server answers on its loop
                return new Ysuite(host, port, bufferSize);
            case TCP:
                return new Tcp(host, port);
            case YSUITE_ZMQ:
                return new YsuiteZmq(host, port, requestReply);
            case JEROMQ:
                return new Jeromq(host, port, requestReply);
            case NETTY_FLUSH:
                return new Netty(host, port, false);
            default:
                return new Netty(host, port, true);
        }
    }

    private static final class Ysuite extends Client {
        private final MultiThreadIoEventLoopGroup group =
                new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        private final MessageStream stream;
        private final MessageWriter writer;

        Ysuite(String host, int port, int bufferSize) throws Exception {
            CompletableFuture<MessageStream> s = new CompletableFuture<>();
            try {
                new Bootstrap().group(group).channel(EpollSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .handler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel ch) {
                                s.complete(MessageStream.builder().bufferSize(bufferSize).attach(ch));
                            }
                        }).connect(host, port).sync();
                stream = s.get(10, TimeUnit.SECONDS);
                writer = stream.newWriter();
            } catch (Exception e) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                throw e;
            }
        }

        @Override
        public void send(byte[] msg, int length) throws Exception {
            writer.send(msg, 0, length);
        }

        @Override
        public int request(byte[] msg, int length, byte[] reply) throws Exception {
            writer.send(msg, 0, length);
            return stream.receive(reply);
        }

        @Override
        public void close() throws Exception {
            try {
                stream.close();
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }

    private static final class Tcp extends Client {
        private final SocketChannel ch;
        private final ByteBuffer out = ByteBuffer.allocateDirect(NetServer.MAX + 4);
        private final ByteBuffer header = ByteBuffer.allocateDirect(4);
        private final ByteBuffer in = ByteBuffer.allocateDirect(NetServer.MAX);

        Tcp(String host, int port) throws IOException {
            ch = SocketChannel.open(new InetSocketAddress(host, port));
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        }

        @Override
        public void send(byte[] msg, int length) throws IOException {
            out.clear();
            out.putInt(length).put(msg, 0, length).flip();
            while (out.hasRemaining()) {
                ch.write(out);
            }
        }

        @Override
        public int request(byte[] msg, int length, byte[] reply) throws IOException {
            send(msg, length);
            header.clear();
            NetServer.readFully(ch, header);
            int n = header.getInt(0);
            in.clear().limit(n);
            NetServer.readFully(ch, in);
            in.flip();
            in.get(reply, 0, n);
            return n;
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    private static final class YsuiteZmq extends Client {
        private final ZmqContext ctx = ZmqContext.create(1);
        private final ZmqSocket socket;

        YsuiteZmq(String host, int port, boolean requestReply) {
            socket = ctx.socket(requestReply ? org.ysuite.zmq.SocketType.REQ : org.ysuite.zmq.SocketType.PUSH);
            socket.connect("tcp://" + host + ":" + port);
        }

        @Override
        public void send(byte[] msg, int length) {
            socket.send(msg, 0, length, 0);
        }

        @Override
        public int request(byte[] msg, int length, byte[] reply) {
            socket.send(msg, 0, length, 0);
            return socket.receive(reply, 0, reply.length, 0);
        }

        @Override
        public void close() {
            try {
                socket.close(); // linger -1: the last message (the sink's end mark) is written first
            } finally {
                ctx.close();
            }
        }
    }

    private static final class Jeromq extends Client {
        private final ZContext ctx = new ZContext(1);
        private final ZMQ.Socket socket;

        Jeromq(String host, int port, boolean requestReply) {
            socket = ctx.createSocket(requestReply ? SocketType.REQ : SocketType.PUSH);
            socket.connect("tcp://" + host + ":" + port);
        }

        @Override
        public void send(byte[] msg, int length) {
            socket.send(msg, 0, length, 0);
        }

        @Override
        public int request(byte[] msg, int length, byte[] reply) {
            socket.send(msg, 0, length, 0);
            return socket.recv(reply, 0, reply.length, 0);
        }

        @Override
        public void close() {
            socket.setLinger(1000);
            ctx.close();
        }
    }

    /** Netty from an application thread, with Netty's own back-pressure (writability). */
    private static final class Netty extends Client {
        private final MultiThreadIoEventLoopGroup group =
                new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        private final Channel ch;
        private final boolean periodic;
        private final Object writable = new Object();
        private final ArrayBlockingQueue<ByteBuf> replies = new ArrayBlockingQueue<>(16);
        private int unflushed;

        Netty(String host, int port, boolean periodic) throws Exception {
            this.periodic = periodic;
            try {
                ch = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .handler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel c) {
                                c.pipeline().addLast(new FrameDecoder(NetServer.MAX),
                                        new ChannelInboundHandlerAdapter() {
                                            @Override
                                            public void channelRead(ChannelHandlerContext ctx, Object m) {
                                                replies.add((ByteBuf) m);
                                            }

                                            @Override
                                            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                                                synchronized (writable) {
                                                    writable.notifyAll();
                                                }
                                            }
                                        });
                            }
                        }).connect(host, port).sync().channel();
            } catch (Exception e) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                throw e;
            }
        }

        @Override
        public void send(byte[] msg, int length) throws InterruptedException {
            if (!ch.isWritable()) {
                ch.flush();
                synchronized (writable) {
                    while (!ch.isWritable() && ch.isActive()) {
                        writable.wait(); // notified by channelWritabilityChanged, under the same lock
                    }
                }
            }
            ByteBuf b = ch.alloc().buffer(4 + length).writeInt(length).writeBytes(msg, 0, length);
            if (periodic) {
                ch.write(b, ch.voidPromise());
                if (++unflushed == Peer.PERIODIC_FLUSH) {
                    unflushed = 0;
                    ch.flush();
                }
            } else {
                ch.writeAndFlush(b, ch.voidPromise());
            }
        }

        @Override
        public void flush() {
            ch.flush();
        }

        @Override
        public int request(byte[] msg, int length, byte[] reply) throws InterruptedException {
            ByteBuf b = ch.alloc().buffer(4 + length).writeInt(length).writeBytes(msg, 0, length);
            ch.writeAndFlush(b, ch.voidPromise());
            ByteBuf r = replies.take();
            int n = r.readableBytes();
            r.readBytes(reply, 0, n);
            r.release();
            return n;
        }

        @Override
        public void close() throws Exception {
            try {
                ch.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).sync();
                ch.close().sync();
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }
}
