package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpInteropTest.WAIT_MILLIS;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/**
 * The engine against libzmq 4.3 (pyzmq) beyond PUSH/PULL: a DEALER's identity and a reply, a SUB's
 * subscriptions reaching our PUB, our XSUB's subscription reaching a libzmq PUB, and heartbeats that keep
 * a quiet connection up and drop a peer that stopped.
 */
class ZmtpInteropPatternsTest {

    private EventLoopGroup group;
    private final List<PythonPeer> peers = new ArrayList<>();
    private final List<Channel> channels = new ArrayList<>();

    @BeforeEach
    void setUp() throws InterruptedException {
        Assertions.assertNotNull(PythonPeer.python(),
                "no python3 with pyzmq to play libzmq's side: install it with bash .ci/zmq.sh (Debian's python3-zmq)");
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PythonPeer p : peers) {
            p.close();
        }
        for (Channel c : channels) {
            c.close().syncUninterruptibly();
        }
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private PythonPeer python(List<String> script, String... args) throws Exception {
        PythonPeer p = PythonPeer.start(script, args);
        peers.add(p);
        return p;
    }

    private int bind(ZmtpOptions options, ZmtpListener listener) throws InterruptedException {
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ZmtpEngine.install(ch, options, listener);
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        channels.add(server);
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    private Channel connect(int port, ZmtpOptions options, ZmtpListener listener, AtomicLong bytesIn)
            throws InterruptedException {
        Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                bytesIn.addAndGet(((ByteBuf) msg).readableBytes());
                                ctx.fireChannelRead(msg);
                            }
                        });
                        ZmtpEngine.install(c, options, listener);
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        channels.add(ch);
        return ch;
    }

    private static void onLoop(ZmtpConnection c, Runnable r) throws Exception {
        c.channel().eventLoop().submit(r).get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private static ByteBuf text(ZmtpConnection c, String s) {
        return c.channel().alloc().buffer().writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void libzmqDealerIdentityAndReplyThroughOurRouter() throws Exception {
        RecordingListener listener = new RecordingListener();
        int port = bind(ZmtpOptions.defaults(SocketType.ROUTER), listener);
        PythonPeer p = python(List.of(
                "import sys, zmq",
                "ctx = zmq.Context()",
                "s = ctx.socket(zmq.DEALER)",
                "s.setsockopt(zmq.IDENTITY, b'dlr')",
                "s.setsockopt(zmq.LINGER, 0)",
                "s.setsockopt(zmq.RCVTIMEO, 30000)",
                "s.connect(sys.argv[1])",
                "s.send_multipart([b'', b'req'])",
                "print('|'.join(x.decode() for x in s.recv_multipart()), flush=True)",
                "s.close()",
                "ctx.term()"), "tcp://127.0.0.1:" + port);
        listener.await(() -> listener.frames().size() >= 2 || !listener.closedReasons().isEmpty(), WAIT_MILLIS, "request");
        assertEquals(List.of("+", "req"), listener.frameTexts());
        assertEquals(SocketType.DEALER, listener.peer().socketType());
        assertArrayEquals("dlr".getBytes(StandardCharsets.US_ASCII), listener.peer().identity());
        ZmtpConnection c = listener.connection();
        onLoop(c, () -> {
            c.writeFrame(text(c, ""), true);
            c.writeFrame(text(c, "rep"), false);
            c.flush();
        });
        assertEquals("|rep", p.line());
        assertTrue(p.exitsCleanly(WAIT_MILLIS));
    }

    @Test
    void libzmqSubscriberSubscribesAndCancelsAtOurPub() throws Exception {
        RecordingListener listener = new RecordingListener();
        int port = bind(ZmtpOptions.defaults(SocketType.PUB), listener);
        PythonPeer p = python(List.of(
                "import sys, zmq",
                "ctx = zmq.Context()",
                "s = ctx.socket(zmq.SUB)",
                "s.setsockopt(zmq.LINGER, 20000)",
                "s.setsockopt(zmq.RCVTIMEO, 30000)",
                "s.connect(sys.argv[1])",
                "s.subscribe(b'news')",
                "print(s.recv().decode(), flush=True)",
                "s.unsubscribe(b'news')",
                "s.close()",
                "ctx.term()"), "tcp://127.0.0.1:" + port);
        listener.await(() -> listener.subscriptions().contains("+news") || !listener.closedReasons().isEmpty(),
                WAIT_MILLIS, "the subscription");
        ZmtpConnection c = listener.connection();
        onLoop(c, () -> {
            c.writeFrame(text(c, "news flash"), false);
            c.flush();
        });
        assertEquals("news flash", p.line());
        listener.await(() -> listener.subscriptions().contains("-news"), WAIT_MILLIS, "the cancellation");
        assertEquals(List.of("+news", "-news"), listener.subscriptions());
        assertTrue(listener.frames().isEmpty(), "subscriptions are not messages");
    }

    @Test
    void ourXsubSubscriptionReachesALibzmqPub() throws Exception {
        PythonPeer p = python(List.of(
                "import sys, zmq, time",
                "ctx = zmq.Context()",
                "s = ctx.socket(zmq.XPUB)",
                "s.setsockopt(zmq.LINGER, 20000)",
                "s.setsockopt(zmq.RCVTIMEO, 30000)",
                "port = s.bind_to_random_port('tcp://127.0.0.1')",
                "print(port, flush=True)",
                "sub = s.recv()",
                "print(sub[0], sub[1:].decode(), flush=True)",
                "s.send(b'other topic')",
                "s.send(b'abc: for you')",
                "s.close()",
                "ctx.term()"));
        int port = Integer.parseInt(p.line().trim());
        RecordingListener listener = new RecordingListener();
        connect(port, ZmtpOptions.defaults(SocketType.XSUB), listener, new AtomicLong());
        listener.await(() -> listener.readyCount() == 1 || !listener.closedReasons().isEmpty(), WAIT_MILLIS, "ready");
        ZmtpConnection c = listener.connection();
        onLoop(c, () -> {
            c.writeSubscription(text(c, "abc"), true);
            c.flush();
        });
        assertEquals("1 abc", p.line());
        listener.await(() -> !listener.frames().isEmpty(), WAIT_MILLIS, "the message");
        assertEquals(List.of("abc: for you"), listener.frameTexts(), "libzmq's PUB filtered by our subscription");
    }

    @Test
    void heartbeatsKeepAQuietLibzmqPeerAndDropAStoppedOne() throws Exception {
        PythonPeer p = python(List.of(
                "import sys, zmq",
                "ctx = zmq.Context()",
                "s = ctx.socket(zmq.PULL)",
                "s.setsockopt(zmq.LINGER, 0)",
                "port = s.bind_to_random_port('tcp://127.0.0.1')",
                "print(port, flush=True)",
                "s.recv()"));
        int port = Integer.parseInt(p.line().trim());
        RecordingListener listener = new RecordingListener();
        AtomicLong bytesIn = new AtomicLong();
        ZmtpOptions options = new ZmtpOptions(SocketType.PUSH, new byte[0], -1, 50, 5000, 0, 10_000, false);
        connect(port, options, listener, bytesIn);
        listener.await(() -> listener.readyCount() == 1 || !listener.closedReasons().isEmpty(), WAIT_MILLIS, "ready");
        long afterHandshake = bytesIn.get();
        // 20 PONGs (7 bytes each) answer 20 PINGs: the quiet connection stays up meanwhile
        long pongs = 20;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        synchronized (listener) {
            while (bytesIn.get() - afterHandshake < 7 * pongs && listener.closedReasons().isEmpty()
                    && System.nanoTime() < deadline) {
                listener.wait(10);
            }
        }
        assertTrue(listener.closedReasons().isEmpty(), () -> "dropped: " + listener.closedReasons());
        assertTrue(bytesIn.get() - afterHandshake >= 7 * pongs, "libzmq answered our PINGs");
        p.signal("STOP");
        try {
            listener.await(() -> !listener.closedReasons().isEmpty(), WAIT_MILLIS, "the heartbeat timeout");
            assertEquals("heartbeat timeout: nothing from the peer for 5000 ms after a PING", listener.closedReason());
        } finally {
            p.signal("CONT");
        }
    }
}
