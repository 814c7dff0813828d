package org.ysuite.bench.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import org.ysuite.netty.LoopHandler;
import org.ysuite.netty.MessageStream;
import org.ysuite.netty.MessageStreamBuilder;
import org.ysuite.netty.MessageWriter;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqSocket;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The server side of the network runs, one process per connection:
 * {@code NetServer <peer> <sink|echo|sum> <host> <bufferSize>}. It binds an ephemeral port,
 * prints {@code READY <port>}, serves one client and exits when the client closes. Modes:
 * {@code sink} counts the messages and answers nothing, except that an empty message makes it
 * print {@code END <count>} (the end of a one-way run); {@code echo} sends every message back;
 * {@code sum} answers each request of two ints with their sum (seed 002's two-way test).
 */
public final class NetServer {

    /** Largest message the servers accept (seed 003 goes to 64 KiB). */
    static final int MAX = 1 << 16;

    private final Peer peer;
    private final String mode;
    private final PrintStream out;
    private long count;

    private NetServer(Peer peer, String mode, PrintStream out) {
        this.peer = peer;
        this.mode = mode;
        this.out = out;
    }

    /**
     * Runs one server.
     *
     * @param args {@code <peer> <sink|echo|sum> <host> <bufferSize>}
     * @throws Exception if serving fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: NetServer <ysuite|ysuite_loop|ysuite_zmq|tcp|jeromq|netty_flush|netty_periodic> <sink|echo|sum> <host> <bufferSize>");
            System.exit(2);
        }
        NetServer s = new NetServer(Peer.of(args[0]), args[1], System.out);
        s.serve(args[2], Integer.parseInt(args[3]));
        System.exit(0);
    }

    private void ready(int port) {
        out.println("READY " + port);
        out.flush();
    }

    /** Called per message; returns the reply length (0: none), written into {@code reply}. */
    private int handle(byte[] msg, int length, byte[] reply) {
        if (length == 0 && !"echo".equals(mode)) {
            out.println("END " + count);
            out.flush();
            return "sink".equals(mode) ? 0 : -1;
        }
        count++;
        switch (mode) {
            case "echo":
                System.arraycopy(msg, 0, reply, 0, length);
                return length;
            case "sum":
                int sum = ByteBuffer.wrap(msg, 0, 8).getInt() + ByteBuffer.wrap(msg, 4, 4).getInt();
                ByteBuffer.wrap(reply).putInt(sum);
                return 4;
            default:
                return 0;
        }
    }

    private void serve(String host, int bufferSize) throws Exception {
        switch (peer) {
            case YSUITE:
                serveYsuite(host, bufferSize);
                break;
            case YSUITE_LOOP:
                serveYsuiteOnLoop(host, bufferSize);
                break;
            case TCP:
                serveTcp(host);
                break;
            case YSUITE_ZMQ:
                serveYsuiteZmq(host);
                break;
            case JEROMQ:
                serveJeromq(host);
                break;
            default:
                serveNetty(host);
                break;
        }
    }

    private void serveYsuite(String host, int bufferSize) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            try (MessageStream s = acceptOne(group, host, MessageStream.builder().bufferSize(bufferSize))) {
                MessageWriter w = s.newWriter();
                byte[] in = new byte[MAX];
                byte[] reply = new byte[MAX];
                if ("sink".equals(mode)) {
                    // consumer-side batching: every message that has arrived, as views
                    long[] ended = {0};
                    while (s.receiveBatch((buf, off, len) -> {
                        if (len == 0) {
                            ended[0]++;
                        } else {
                            count++;
                        }
                    }) >= 0) {
                        for (; ended[0] > 0; ended[0]--) {
                            out.println("END " + count);
                            out.flush();
                        }
                    }
                    return;
                }
                int n;
                while ((n = s.receive(in)) >= 0) {
                    int r = handle(in, n, reply);
                    if (r >= 0) {
                        w.send(reply, 0, r);
                    }
                }
            } catch (IOException e) {
                // the client went away
            }
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    /**
     * Listens on {@code host} (any port), reports the port, and returns the stream {@code builder}
     * attaches to the first connection; the listening channel is closed then.
     */
    private MessageStream acceptOne(MultiThreadIoEventLoopGroup group, String host, MessageStreamBuilder builder)
            throws Exception {
        CompletableFuture<MessageStream> accepted = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.complete(builder.attach(ch));
                    }
                }).bind(new InetSocketAddress(host, 0)).sync().channel();
        ready(((InetSocketAddress) server.localAddress()).getPort());
        try {
            return accepted.get();
        } finally {
            server.close();
        }
    }

    /** The ysuite server whose handler runs on the event loop: no hand-off to an application thread. */
    private void serveYsuiteOnLoop(String host, int bufferSize) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        byte[] sum = new byte[4];
        LoopHandler handler = (buf, off, len, reply) -> {
            if (len == 0 && !"echo".equals(mode)) {
                out.println("END " + count);
                out.flush();
                return;
            }
            count++; // on the loop only
            if ("echo".equals(mode)) {
                reply.send(buf, off, len);
            } else if ("sum".equals(mode)) {
                ByteBuffer.wrap(sum).putInt(0, buf.getInt(off) + buf.getInt(off + 4));
                reply.send(sum, 0, 4);
            }
        };
        try {
            try (MessageStream s = acceptOne(group, host,
                    MessageStream.builder().bufferSize(bufferSize).inboundWindow(1 << 12).onLoop(handler))) {
                byte[] none = new byte[1];
                while (s.receive(none) >= 0) {
                    // an on-loop stream's receive only waits for the end
                }
            } catch (IOException e) {
                // the client went away
            }
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    private void serveTcp(String host) throws IOException {
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(host, 0));
            ready(((InetSocketAddress) ss.getLocalAddress()).getPort());
            try (SocketChannel ch = ss.accept()) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer in = ByteBuffer.allocateDirect(2 * MAX + 8);
                ByteBuffer outBuf = ByteBuffer.allocateDirect(MAX + 4);
                byte[] msg = new byte[MAX];
                byte[] reply = new byte[MAX];
                for (;;) {
                    // parse every whole frame in the buffer, then read more
                    in.flip();
                    while (in.remaining() >= 4 && in.remaining() >= 4 + in.getInt(in.position())) {
                        int len = in.getInt();
                        in.get(msg, 0, len);
                        int r = handle(msg, len, reply);
                        if (r > 0 || (r == 0 && !"sink".equals(mode))) {
                            outBuf.clear();
                            outBuf.putInt(r).put(reply, 0, r).flip();
                            while (outBuf.hasRemaining()) {
                                ch.write(outBuf);
                            }
                        }
                    }
                    in.compact();
                    if (ch.read(in) < 0) {
                        return;
                    }
                }
            } catch (IOException e) {
                // the client went away
            }
        }
    }

    private void serveYsuiteZmq(String host) {
        try (ZmqContext ctx = ZmqContext.create(1);
                ZmqSocket s = ctx.socket("sink".equals(mode) ? org.ysuite.zmq.SocketType.PULL : org.ysuite.zmq.SocketType.REP)) {
            s.setLinger(0);
            s.bind("tcp://" + host + ":0");
            String ep = s.lastEndpoint();
            ready(Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1)));
            byte[] msg = new byte[MAX];
            byte[] reply = new byte[MAX];
            for (;;) {
                int n = s.receive(msg, 0, MAX, 0);
                int r = handle(msg, n, reply);
                if (!"sink".equals(mode)) {
                    s.send(reply, 0, Math.max(r, 0), 0);
                }
            }
        } catch (RuntimeException e) {
            // the context was closed or the client went away
        }
    }

    private void serveJeromq(String host) {
        try (ZContext ctx = new ZContext(1)) {
            ZMQ.Socket s = ctx.createSocket("sink".equals(mode) ? SocketType.PULL : SocketType.REP);
            int port = s.bindToRandomPort("tcp://" + host);
            ready(port);
            byte[] msg = new byte[MAX];
            byte[] reply = new byte[MAX];
            for (;;) {
                int n = s.recv(msg, 0, MAX, 0);
                if (n < 0) {
                    return;
                }
                int r = handle(msg, n, reply);
                if (!"sink".equals(mode)) {
                    s.send(reply, 0, Math.max(r, 0), 0);
                }
                if (n == 0 && "sink".equals(mode)) {
                    continue;
                }
            }
        } catch (RuntimeException e) {
            // the context was closed or the client went away
        }
    }

    private void serveNetty(String host) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            byte[] msg = new byte[MAX];
            byte[] reply = new byte[MAX];
            Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new FrameDecoder(MAX), new ChannelInboundHandlerAdapter() {
                                        @Override
                                        public void channelRead(ChannelHandlerContext ctx, Object m) {
                                            ByteBuf b = (ByteBuf) m;
                                            int n = b.readableBytes();
                                            b.readBytes(msg, 0, n);
                                            b.release();
                                            int r = handle(msg, n, reply);
                                            if (!"sink".equals(mode)) {
                                                int len = Math.max(r, 0);
                                                ctx.write(ctx.alloc().buffer(4 + len).writeInt(len)
                                                        .writeBytes(reply, 0, len), ctx.voidPromise());
                                            }
                                        }

                                        @Override
                                        public void channelReadComplete(ChannelHandlerContext ctx) {
                                            ctx.flush();
                                        }

                                        @Override
                                        public void channelInactive(ChannelHandlerContext ctx) {
                                            accepted.complete(ctx.channel());
                                        }

                                        @Override
                                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                            ctx.close();
                                        }
                                    });
                        }
                    }).bind(new InetSocketAddress(host, 0)).sync().channel();
            ready(((InetSocketAddress) server.localAddress()).getPort());
            accepted.get(); // until the client has gone
            server.close();
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("the peer closed the connection");
            }
        }
    }
}
