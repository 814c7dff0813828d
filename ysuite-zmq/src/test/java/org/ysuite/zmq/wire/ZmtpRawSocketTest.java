package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.concat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/**
 * Hostile peers over a real TCP connection: after each, that connection is closed with its reason and
 * the listening socket keeps accepting (the next, well-behaved peer completes its handshake).
 */
class ZmtpRawSocketTest {

    private EventLoopGroup group;
    private Channel server;
    private final List<RecordingListener> listeners = new ArrayList<>();

    @BeforeEach
    void setUp() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        RecordingListener l = new RecordingListener();
                        synchronized (listeners) {
                            listeners.add(l);
                            listeners.notifyAll();
                        }
                        ZmtpEngine.install(ch, new ZmtpOptions(SocketType.PULL, new byte[0], 1 << 20, 0, 0, 0,
                                10_000, true), l);
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    @AfterEach
    void tearDown() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private RecordingListener listener(int index) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        synchronized (listeners) {
            while (listeners.size() <= index) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("connection " + index + " never accepted");
                }
                listeners.wait(left);
            }
            return listeners.get(index);
        }
    }

    /** Sends {@code bytes}, then reads until the server closes; returns what it sent. */
    private byte[] exchange(byte[] bytes) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(server.localAddress(), 10_000);
            s.setSoTimeout(30_000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            for (int n; (n = in.read(buf)) >= 0; ) {
                got.write(buf, 0, n);
            }
            return got.toByteArray();
        }
    }

    @Test
    void eachHostilePeerIsDroppedWithItsReasonAndTheServerKeepsServing() throws Exception {
        byte[] g = ZmtpWire.greeting(1);
        byte[] ready = ZmtpWire.readyOf("PUSH");
        Object[][] cases = {
            {ZmtpWire.greeting(3, 1, "CURVE", false), "protocol error: mechanism mismatch"},
            {concat(g, ready, ZmtpWire.longHeader(0, Long.MIN_VALUE)), "protocol error: long frame announcing 9223372036854775808"},
            {concat(g, ready, ZmtpWire.longHeader(0, 1L << 40)), "protocol error: frame of 1099511627776 B over maxMessageSize 1048576"},
            {concat(g, ready, ZmtpWire.longHeader(0x04, 1L << 40)), "protocol error: command of 1099511627776 B"},
            {concat(g, ZmtpWire.readyOf("PUB")), "protocol error: incompatible socket type PUB for PULL"},
        };
        for (int i = 0; i < cases.length; i++) {
            byte[] sent = exchange((byte[]) cases[i][0]);
            RecordingListener l = listener(i);
            l.await(() -> !l.closedReasons().isEmpty(), 30_000, "the drop");
            String reason = l.closedReason();
            assertTrue(reason.startsWith((String) cases[i][1]), reason);
            assertTrue(sent.length >= 64, "our greeting went out first");
            if (reason.contains("incompatible")) {
                byte[] text = ZmtpWire.ascii("incompatible socket type PUB for PULL");
                byte[] error = ZmtpWire.command("ERROR", concat(new byte[] {(byte) text.length}, text));
                assertEquals(java.util.HexFormat.of().formatHex(error), java.util.HexFormat.of().formatHex(
                        java.util.Arrays.copyOfRange(sent, sent.length - error.length, sent.length)),
                        "the peer is told why before the close");
            }
        }
        try (Socket s = new Socket()) {
            s.connect(server.localAddress(), 10_000);
            s.getOutputStream().write(concat(g, ready, ZmtpWire.message(ZmtpWire.ascii("fine"), false)));
            RecordingListener l = listener(cases.length);
            l.await(() -> !l.frames().isEmpty() || !l.closedReasons().isEmpty(), 30_000, "the good peer's message");
            assertEquals(List.of("fine"), l.frameTexts());
        }
        assertTrue(((InetSocketAddress) server.localAddress()).getPort() > 0);
    }
}
