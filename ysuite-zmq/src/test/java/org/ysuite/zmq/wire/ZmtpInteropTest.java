package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/**
 * The engine against libzmq 4.3 through pyzmq (Debian's {@code python3-zmq}), over loopback TCP, both
 * directions. Fails, naming the way out, where no python3 with pyzmq is installed: {@code .ci/zmq.sh}
 * installs it (CI runs it), and a skipped interop test would let a green build hide a broken wire.
 */
class ZmtpInteropTest {

    static final long WAIT_MILLIS = 30_000;

    private EventLoopGroup group;
    private final List<PythonPeer> peers = new ArrayList<>();

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
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private PythonPeer python(String script, String... args) throws IOException, InterruptedException {
        PythonPeer p = PythonPeer.start(List.of(script), args);
        peers.add(p);
        return p;
    }

    private static final String PUSH_SCRIPT = String.join("\n",
            "import sys, zmq",
            "ctx = zmq.Context()",
            "s = ctx.socket(zmq.PUSH)",
            "s.setsockopt(zmq.LINGER, 20000)",
            "s.connect(sys.argv[1])",
            "s.send_multipart([b'a', b'bb'])",
            "s.send(b'')",
            "s.send(b'x' * 300)",
            "s.send_multipart([b'y' * 70000, b'', b'z'])",
            "s.send(b'end')",
            "s.close()",
            "ctx.term()",
            "");

    @Test
    void libzmqPushesToOurPull() throws Exception {
        RecordingListener listener = new RecordingListener();
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ZmtpEngine.install(ch, new ZmtpOptions(SocketType.PULL, new byte[0], -1, 0, 0, 0,
                                10_000, true), listener);
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            PythonPeer p = python(PUSH_SCRIPT, "tcp://127.0.0.1:" + port);
            listener.await(() -> listener.frames().size() >= 8 || !listener.closedReasons().isEmpty(),
                    WAIT_MILLIS, "libzmq's 8 frames");
            List<String> texts = listener.frameTexts();
            assertEquals(List.of("a+", "bb", "", "x".repeat(300), "y".repeat(70000) + "+", "+", "z", "end"), texts);
            assertEquals(SocketType.PUSH, listener.peer().socketType());
            assertEquals(1, listener.peer().minorVersion(), "libzmq 4.3 speaks ZMTP 3.1");
            assertTrue(p.exitsCleanly(WAIT_MILLIS), "python PUSH exits");
            listener.await(() -> !listener.closedReasons().isEmpty(), WAIT_MILLIS, "libzmq's close");
            assertEquals("peer closed", listener.closedReason());
        } finally {
            server.close().sync();
        }
    }

    private static final String PULL_SCRIPT = String.join("\n",
            "import sys, zmq",
            "ctx = zmq.Context()",
            "s = ctx.socket(zmq.PULL)",
            "s.setsockopt(zmq.LINGER, 0)",
            "s.setsockopt(zmq.RCVTIMEO, 30000)",
            "port = s.bind_to_random_port('tcp://127.0.0.1')",
            "print(port, flush=True)",
            "for i in range(int(sys.argv[1])):",
            "    parts = s.recv_multipart()",
            "    print('|'.join(p.decode() if len(p) < 64 else 'len%d:%s' % (len(p), p[:1].decode()) for p in parts), flush=True)",
            "s.close()",
            "ctx.term()",
            "");

    @Test
    void ourPushWritesToLibzmqPull() throws Exception {
        PythonPeer p = python(PULL_SCRIPT, "4");
        int port = Integer.parseInt(p.line().trim());
        RecordingListener listener = new RecordingListener();
        Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        ZmtpEngine.install(c, ZmtpOptions.defaults(SocketType.PUSH), listener);
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        try {
            listener.await(() -> listener.readyCount() == 1 || !listener.closedReasons().isEmpty(), WAIT_MILLIS, "ready");
            ZmtpConnection c = listener.connection();
            assertNotNull(c, () -> "closed: " + listener.closedReasons());
            assertEquals(SocketType.PULL, c.peer().socketType());
            ch.eventLoop().submit(() -> {
                c.writeFrame(text(ch, "hello"), true);
                c.writeFrame(text(ch, "world"), false);
                c.writeFrame(ch.alloc().buffer(0), false);
                ByteBuf big = ch.alloc().buffer(100_000);
                big.writeBytes("q".repeat(100_000).getBytes(StandardCharsets.US_ASCII));
                c.writeFrame(big, true);
                c.writeFrame(text(ch, "tail"), false);
                ByteBuf framed = ch.alloc().buffer();
                ZmtpConnection.writeFrameHeader(framed, 3, true);
                framed.writeBytes("pre".getBytes(StandardCharsets.US_ASCII));
                ZmtpConnection.writeFrameHeader(framed, 6, false);
                framed.writeBytes("framed".getBytes(StandardCharsets.US_ASCII));
                c.writeFramed(framed);
                c.flush();
            }).sync();
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                lines.add(p.line());
            }
            assertEquals(List.of("hello|world", "", "len100000:q|tail", "pre|framed"), lines);
            assertTrue(p.exitsCleanly(WAIT_MILLIS), "python PULL exits");
        } finally {
            ch.close().sync();
        }
    }

    private static ByteBuf text(Channel ch, String s) {
        return ch.alloc().buffer().writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }
}
