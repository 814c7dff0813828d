package org.ysuite.examples;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.ysuite.netty.LoopMailbox;

/**
 * An echo-style Netty service whose replies are computed by application threads and published
 * back to the event loop through a ysuite {@link LoopMailbox}.
 *
 * <p>One Netty event loop (epoll, or NIO) accepts TCP clients on 127.0.0.1. Each request is an
 * 8-byte number; the loop hands it to one of the application workers (connection {@code k} always
 * to worker {@code k % workers}, so each connection's replies stay in order); the worker computes
 * the reply ({@code 3 * n + 1}) and sends it, with its connection, through its own
 * {@link LoopMailbox.Sender}; the mailbox's handler, on the loop thread, writes the reply to the
 * connection. The workers never touch a channel and allocate no task per reply: the loop is woken
 * through Netty's own wake-up (a preallocated task per worker's pipe), only when it had found
 * that pipe empty.
 *
 * <pre>
 * java -jar ysuite-examples/target/ysuite-examples.jar netty [requestsPerClient [clients [epoll|nio]]]
 * </pre>
 */
public final class NettyEchoService {

    private static final long POISON = Long.MIN_VALUE;

    private NettyEchoService() {
    }

    /** A request on its way to a worker: the connection and the number. */
    private record Request(Channel channel, long value) { }

    /** A reply on its way to the loop: the connection and the number to write. */
    private record Reply(Channel channel, long value) { }

    /**
     * The reply to a request.
     *
     * @param request the number a client sent
     * @return the number the service answers
     */
    public static long reply(long request) {
        return 3 * request + 1;
    }

    /**
     * Runs the example.
     *
     * @param args optional: requests per client (default 10000), clients (default 4), transport
     *     ({@code epoll} if available, else {@code nio})
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        run(System.out, args);
    }

    /**
     * Runs the example, printing to {@code out}.
     *
     * @param out where the summary goes
     * @param args as for {@link #main}
     * @throws Exception if the example fails or a client does not finish in 60 s
     */
    public static void run(PrintStream out, String[] args) throws Exception {
        int requests = args.length > 0 ? positive(args[0], "requestsPerClient") : 10_000;
        int clients = args.length > 1 ? positive(args[1], "clients") : 4;
        String transport = args.length > 2 ? args[2] : (Epoll.isAvailable() ? "epoll" : "nio");
        IoHandlerFactory factory;
        Class<? extends ServerChannel> serverChannel;
        switch (transport) {
            case "epoll":
                factory = EpollIoHandler.newFactory();
                serverChannel = EpollServerSocketChannel.class;
                break;
            case "nio":
                factory = NioIoHandler.newFactory();
                serverChannel = NioServerSocketChannel.class;
                break;
            default:
                throw new IllegalArgumentException("transport must be epoll or nio: " + transport);
        }
        int workers = 2;
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, factory);
        List<Thread> workerThreads = new ArrayList<>();
        List<BlockingQueue<Request>> inboxes = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            IoEventLoop loop = group.next();
            // The loop's side: each reply is written to its connection, on the loop thread.
            LoopMailbox<Reply> replies = LoopMailbox.register(loop,
                    r -> r.channel().writeAndFlush(r.channel().alloc().buffer(8).writeLong(r.value())));
            for (int w = 0; w < workers; w++) {
                BlockingQueue<Request> inbox = new LinkedBlockingQueue<>();
                LoopMailbox.Sender<Reply> toLoop = replies.newSender();
                inboxes.add(inbox);
                Thread t = new Thread(() -> {
                    try {
                        for (;;) {
                            Request q = inbox.take();
                            if (q.value() == POISON) {
                                return;
                            }
                            toLoop.send(new Reply(q.channel(), reply(q.value()))); // application work done
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        failure.compareAndSet(null, e);
                    }
                }, "worker-" + w);
                t.setDaemon(true);
                t.start();
                workerThreads.add(t);
            }
            Channel server = new ServerBootstrap().group(loop).channel(serverChannel)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        private int connections;

                        @Override
                        protected void initChannel(SocketChannel ch) {
                            BlockingQueue<Request> inbox = inboxes.get(connections++ % workers);
                            ch.pipeline().addLast(new RequestReader(inbox));
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();

            List<Thread> clientThreads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                final long base = 1_000_000L * c;
                Thread t = new Thread(() -> {
                    try {
                        runClient(port, base, requests);
                    } catch (Exception | AssertionError e) {
                        failure.compareAndSet(null, e);
                    }
                }, "client-" + c);
                t.setDaemon(true);
                t.start();
                clientThreads.add(t);
            }
            for (Thread t : clientThreads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                if (t.isAlive()) {
                    throw new IllegalStateException(t.getName() + " did not finish in 60 s");
                }
            }
            if (failure.get() != null) {
                throw new IllegalStateException("the service failed", failure.get());
            }
            for (BlockingQueue<Request> inbox : inboxes) {
                inbox.put(new Request(null, POISON));
            }
            for (Thread t : workerThreads) {
                t.join(TimeUnit.SECONDS.toMillis(10));
            }
            server.close().sync();
            replies.close().get(10, TimeUnit.SECONDS);
            out.println("NettyEchoService: served " + (long) requests * clients + " requests from " + clients
                    + " clients through " + workers + " application threads, every reply in order");
            out.println("NettyEchoService: " + replies.delivered() + " replies through the mailbox, "
                    + replies.wakeups() + " loop wake-ups, transport " + transport);
        } finally {
            if (!group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the event loop did not stop in 10 s");
            }
        }
    }

    /** One blocking client: sends its requests, then checks every reply in order. */
    private static void runClient(int port, long base, int requests) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setTcpNoDelay(true);
            DataOutputStream toServer = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            DataInputStream fromServer = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            for (int i = 0; i < requests; i++) {
                toServer.writeLong(base + i);
            }
            toServer.flush();
            for (int i = 0; i < requests; i++) {
                long got = fromServer.readLong();
                if (got != reply(base + i)) {
                    throw new AssertionError("reply " + i + " is " + got + ", expected " + reply(base + i));
                }
            }
        }
    }

    /** Cuts the request stream into 8-byte numbers and hands them to the connection's worker. */
    private static final class RequestReader extends ChannelInboundHandlerAdapter {
        private final BlockingQueue<Request> inbox;
        private final byte[] partial = new byte[8];
        private int partialLength;

        RequestReader(BlockingQueue<Request> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                while (buf.isReadable()) {
                    int n = Math.min(8 - partialLength, buf.readableBytes());
                    buf.readBytes(partial, partialLength, n);
                    partialLength += n;
                    if (partialLength == 8) {
                        long value = 0;
                        for (byte b : partial) {
                            value = (value << 8) | (b & 0xFF);
                        }
                        partialLength = 0;
                        inbox.add(new Request(ctx.channel(), value));
                    }
                }
            } finally {
                buf.release();
            }
        }
    }

    private static int positive(String arg, String name) {
        int v = Integer.parseInt(arg);
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be >= 1: " + v);
        }
        return v;
    }
}
