package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(300)
class MessageStreamTest {

    /** Socket buffers for the tests that fill the whole path: small, fixed, not autotuned. */
    static final int SMALL_SOCKET_BUFFER = 16 * 1024;

    /** A client stream and the server's stream of the same connection, over loopback. */
    static final class Pair implements AutoCloseable {
        final MultiThreadIoEventLoopGroup group;
        final Channel server;
        final MessageStream client;
        final MessageStream accepted;

        Pair(Transport transport, Consumer<MessageStreamBuilder> settings) throws Exception {
            this(transport, settings, 0);
        }

        /**
         * A pair whose sockets' send and receive buffers are set to {@code socketBuffer} bytes (0:
         * the kernel's sizes, autotuned). The options are set before listen and before connect: a
         * socket whose SO_RCVBUF is set is not autotuned (Linux), and the window scale a
         * connection agrees on depends on the receive buffer at that moment.
         */
        Pair(Transport transport, Consumer<MessageStreamBuilder> settings, int socketBuffer) throws Exception {
            this(transport, settings, settings, socketBuffer);
        }

        /** A pair whose client and server streams have settings of their own. */
        Pair(Transport transport, Consumer<MessageStreamBuilder> clientSettings,
             Consumer<MessageStreamBuilder> serverSettings, int socketBuffer) throws Exception {
            group = transport.newGroup();
            CompletableFuture<MessageStream> child = new CompletableFuture<>();
            try {
                ServerBootstrap sb = new ServerBootstrap().group(group).channel(transport.serverChannel());
                Bootstrap cb = new Bootstrap().group(group).channel(transport.clientChannel());
                if (socketBuffer > 0) {
                    sb.option(ChannelOption.SO_RCVBUF, socketBuffer) // inherited by the accepted socket
                            .childOption(ChannelOption.SO_RCVBUF, socketBuffer)
                            .childOption(ChannelOption.SO_SNDBUF, socketBuffer);
                    cb.option(ChannelOption.SO_RCVBUF, socketBuffer).option(ChannelOption.SO_SNDBUF, socketBuffer);
                }
                server = sb.childHandler(attaching(serverSettings, child)).bind(new InetSocketAddress("127.0.0.1", 0))
                        .sync().channel();
                CompletableFuture<MessageStream> mine = new CompletableFuture<>();
                cb.handler(attaching(clientSettings, mine)).connect(server.localAddress()).sync();
                client = mine.get(10, TimeUnit.SECONDS);
                accepted = child.get(10, TimeUnit.SECONDS);
            } catch (Exception | Error e) {
                Transport.shutdown(group);
                throw e;
            }
        }

        /** Attaches a stream with {@code settings} to each channel it initializes, into {@code into}. */
        private static ChannelInitializer<Channel> attaching(Consumer<MessageStreamBuilder> settings,
                                                             CompletableFuture<MessageStream> into) {
            return new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    MessageStreamBuilder b = MessageStream.builder();
                    settings.accept(b);
                    into.complete(b.attach(ch));
                }
            };
        }

        @Override
        public void close() throws Exception {
            try {
                client.close();
                accepted.close();
                server.close().sync();
            } finally {
                Transport.shutdown(group);
            }
        }
    }

    /** Message {@code seq}: 4 bytes seq, then bytes derived from it; its length is random. */
    static int fill(byte[] buf, int seq, int maxLength) {
        SplittableRandom r = new SplittableRandom(seq * 0x9E3779B97F4A7C15L);
        int length = r.nextInt(10) == 0 ? 4 + r.nextInt(maxLength - 3) : 4 + r.nextInt(60);
        buf[0] = (byte) (seq >>> 24);
        buf[1] = (byte) (seq >>> 16);
        buf[2] = (byte) (seq >>> 8);
        buf[3] = (byte) seq;
        for (int i = 4; i < length; i++) {
            buf[i] = (byte) r.nextInt();
        }
        return length;
    }

    /** Checks that {@code buf[0, length)} is message {@code seq}; returns a failure or null. */
    static String check(byte[] buf, int length, int seq, int maxLength) {
        byte[] expected = new byte[maxLength];
        int l = fill(expected, seq, maxLength);
        if (l != length) {
            return "message " + seq + ": length " + length + ", expected " + l;
        }
        for (int i = 0; i < l; i++) {
            if (buf[i] != expected[i]) {
                return "message " + seq + ": byte " + i + " differs";
            }
        }
        return null;
    }

    /** The accepted side echoes every message back on one thread until the peer closes. */
    static Thread echo(MessageStream s, AtomicReference<Throwable> error) {
        Thread t = new Thread(() -> {
            try {
                MessageWriter w = s.newWriter();
                byte[] buf = new byte[s.maxMessageLength()];
                int n;
                while ((n = s.receive(buf)) >= 0) {
                    w.send(buf, 0, n);
                }
            } catch (Throwable e) {
                error.compareAndSet(null, e);
            }
        }, "echo");
        t.start();
        return t;
    }

    static void join(Thread t) throws InterruptedException {
        t.join(60_000);
        if (t.isAlive()) {
            throw new AssertionError(t.getName() + " did not finish in 60 s: " + java.util.Arrays.toString(t.getStackTrace()));
        }
    }

    /**
     * Round trip: random sizes (most short, one in ten up to the limit) and contents, sent by one
     * thread, echoed by the server, received and checked by another thread: no loss, no
     * duplicate, no reordering, no corrupted byte. Small buffer sizes make frames straddle
     * batches; small windows make both directions stall and resume.
     */
    @ParameterizedTest
    @CsvSource({
        "EPOLL_EVENTFD, 8192, 262144, 65536, 20000",
        "NIO, 8192, 262144, 65536, 20000",
        "EPOLL_EVENTFD, 7, 4096, 2000, 5000",
        "NIO, 3, 4096, 2000, 3000",
        "EPOLL_SOCKETPAIR, 65536, 8192, 4000, 20000"
    })
    void roundTripOfRandomMessages(Transport transport, int bufferSize, int window, int maxLength, int count)
            throws Exception {
        try (Pair p = new Pair(transport, b -> b.bufferSize(bufferSize).outboundWindow(window)
                .inboundWindow(window).maxMessageLength(maxLength))) {
            AtomicReference<Throwable> error = new AtomicReference<>();
            Thread echo = echo(p.accepted, error);
            Thread sender = new Thread(() -> {
                try {
                    MessageWriter w = p.client.newWriter();
                    byte[] buf = new byte[maxLength];
                    for (int i = 0; i < count; i++) {
                        w.send(buf, 0, fill(buf, i, maxLength));
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }, "sender");
            sender.start();
            byte[] buf = new byte[maxLength];
            for (int i = 0; i < count && error.get() == null; i++) {
                int n = p.client.receive(buf);
                String bad = check(buf, n, i, maxLength);
                if (bad != null) {
                    throw new AssertionError(bad);
                }
            }
            join(sender);
            assertNull(error.get());
            p.client.close(); // the echo thread sees the end of its stream
            join(echo);
            assertNull(error.get());
        }
    }

    /**
     * The peer closes cleanly after its messages: the reader gets every one of them, then -1;
     * a writer gets an IOException.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void peerCloseEndsTheStreamAfterItsMessages(Transport transport) throws Exception {
        // close() hands the flushed messages to the socket, waiting at most lingerMillis: far more
        // than a loaded machine needs, so that a slow loop is not a lost message
        try (Pair p = new Pair(transport, b -> b.lingerMillis(60_000))) {
            MessageWriter w = p.accepted.newWriter();
            byte[] buf = new byte[64];
            for (int i = 0; i < 1000; i++) {
                w.send(buf, 0, fill(buf, i, 64));
            }
            MessageWriter mine = p.client.newWriter();
            p.accepted.close();
            for (int i = 0; i < 1000; i++) {
                int n = p.client.receive(buf);
                assertNull(check(buf, n, i, 64));
            }
            assertEquals(-1, p.client.receive(buf));
            assertEquals(-1, p.client.receive(buf));
            IOException e = assertThrows(IOException.class, () -> {
                for (int i = 0; i < 1_000_000; i++) {
                    mine.send(buf, 0, 8);
                }
            });
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    /**
     * Back-pressure: the server reads nothing. Its inbound window fills and its loop turns autoRead
     * off; then the socket buffers fill, the client's channel stops being writable, its loop stops
     * draining, and the client's window fills: a FAIL writer gets WindowFullException, a BLOCK
     * writer waits. Once the server reads, everything arrives in order.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void fullWindowsStopTheWriterAndTheReading(Transport transport) throws Exception {
        try (Pair p = new Pair(transport, b -> b.outboundWindow(4096).inboundWindow(4096).maxMessageLength(1000)
                .onFull(MessageStream.OnFull.FAIL), SMALL_SOCKET_BUFFER)) {
            MessageWriter w = p.client.newWriter();
            byte[] buf = new byte[1000];
            int sent = 0;
            int refusedInARow = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // Offer until the whole path is full: the server stopped reading (autoRead off, a
            // volatile of the channel's config), the client's channel is not writable, and the
            // client's window keeps refusing.
            while (p.accepted.channel().config().isAutoRead() || p.client.channel().isWritable()
                    || refusedInARow < 1000) {
                assertTrue(System.nanoTime() < deadline, "the path never filled: " + sent + " sent, autoRead "
                        + p.accepted.channel().config().isAutoRead() + ", writable " + p.client.channel().isWritable());
                if (w.offer(buf, 0, fill(buf, sent, 1000))) {
                    sent++;
                    refusedInARow = 0;
                } else {
                    refusedInARow++;
                    Thread.onSpinWait();
                }
            }
            assertTrue(sent > 10, "sent " + sent);
            // The server reads nothing more, so the path stays bounded: a send fails with
            // WindowFullException, at once or (if the loop moved bytes on meanwhile: a busy machine)
            // after a few more accepted ones, which are counted and checked below like the rest.
            MessageStream.WindowFullException full = null;
            while (full == null) {
                assertTrue(System.nanoTime() < deadline, "no send failed on the full path: " + sent + " sent");
                try {
                    w.send(buf, 0, fill(buf, sent, 1000));
                    sent++;
                } catch (MessageStream.WindowFullException e) {
                    full = e;
                }
            }
            assertTrue(full.getMessage().contains("outbound window (4096 bytes)"), full.getMessage());
            // now read everything: the offers that failed were not sent; the rest arrive in order
            int total = sent;
            for (int i = 0; i < total; i++) {
                int n = p.accepted.receive(buf);
                assertNull(check(buf, n, i, 1000));
            }
        }
    }

    /**
     * A BLOCK writer waits on a full window and goes on once the reader consumes. The writer sends
     * numbered messages until it is seen parked in ysuite's wait while the whole path is full;
     * no count is assumed to exceed the buffers (the kernel autotunes a socket's buffers up to
     * tens of MiB), so the outcome depends neither on their sizes nor on timing: run with the
     * kernel's sizes and with small fixed ones. Then the writer is told to stop, the reader
     * drains, the writer ends with an empty message, and every message arrives in order.
     */
    @ParameterizedTest(name = "socket buffers {0} (0: the kernel's)")
    @ValueSource(ints = {0, SMALL_SOCKET_BUFFER})
    void blockingWriterWaitsForTheReader(int socketBuffer) throws Exception {
        long limitBytes = 1L << 30; // far beyond any socket buffer: a writer that never blocks ends here
        try (Pair p = new Pair(Transport.EPOLL_EVENTFD, b -> b.outboundWindow(4096).inboundWindow(4096)
                .maxMessageLength(1000), socketBuffer)) {
            AtomicReference<Throwable> error = new AtomicReference<>();
            AtomicInteger sent = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(1);
            Thread sender = new Thread(() -> {
                try {
                    MessageWriter w = p.client.newWriter();
                    byte[] buf = new byte[1000];
                    long bytes = 0;
                    for (int i = 0; !stop.get() && bytes < limitBytes; i++) {
                        int n = fill(buf, i, 1000);
                        w.send(buf, 0, n);
                        bytes += n;
                        sent.set(i + 1);
                    }
                    w.send(buf, 0, 0); // the end: every numbered message has at least 4 bytes
                } catch (Throwable e) {
                    error.set(e);
                } finally {
                    done.countDown();
                }
            }, "blocked-sender");
            sender.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a failure bound only
            int blockedAt;
            while ((blockedAt = blockedWithTheWholePathFull(p, sender, sent)) < 0) {
                assertEquals(1, done.getCount(), () -> "the sender ended without a reader after " + sent.get()
                        + " messages: " + error.get());
                assertTrue(System.nanoTime() < deadline, () -> "the sender was never seen blocked with the path full;"
                        + " it sent " + sent.get() + " messages and is " + sender.getState() + ", server autoRead "
                        + p.accepted.channel().config().isAutoRead() + ", client writable "
                        + p.client.channel().isWritable());
                LockSupport.parkNanos(100_000); // a polling interval: leaves the CPU to the writer and the loop
            }
            stop.set(true);
            System.out.println("blockingWriterWaitsForTheReader: socket buffers " + socketBuffer
                    + ": the writer blocked after " + blockedAt + " messages");
            byte[] buf = new byte[1000];
            int received = 0;
            for (int n; (n = p.accepted.receive(buf)) != 0; received++) {
                assertNull(check(buf, n, received, 1000));
            }
            assertTrue(done.await(60, TimeUnit.SECONDS), "the sender did not end after the reader drained");
            assertNull(error.get());
            assertEquals(sent.get(), received, "messages received");
            assertTrue(received >= blockedAt, received + " received, " + blockedAt + " sent when blocked");
        }
    }

    /**
     * Returns how many messages {@code sender} had sent if it is parked inside ysuite (a BLOCK
     * writer's wait for room) while the whole path is full, otherwise -1. Full: the accepted
     * stream's loop stopped reading (autoRead off: its inbound window is full, and only its reader
     * frees room) and the client's channel is not writable (its loop stops draining the outbound
     * window). A writer whose count moved during the look does not count as blocked.
     */
    static int blockedWithTheWholePathFull(Pair p, Thread sender, AtomicInteger sent) {
        int before = sent.get();
        boolean blocked = parkedInYsuite(sender)
                && !p.accepted.channel().config().isAutoRead()
                && !p.client.channel().isWritable()
                && parkedInYsuite(sender);
        return blocked && sent.get() == before ? before : -1;
    }

    /**
     * Whether {@code t} is parked by LockSupport, called from ysuite's code (the first frame below
     * the JDK's is in {@code org.ysuite} but not in this test).
     */
    static boolean parkedInYsuite(Thread t) {
        Thread.State state = t.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        boolean parked = false;
        for (StackTraceElement e : t.getStackTrace()) {
            String c = e.getClassName();
            if (c.equals(LockSupport.class.getName()) && e.getMethodName().startsWith("park")) {
                parked = true;
            } else if (!c.startsWith("java.") && !c.startsWith("jdk.") && !c.startsWith("sun.")) {
                return parked && c.startsWith("org.ysuite.") && !c.equals(MessageStreamTest.class.getName())
                        && t.getState() == state;
            }
        }
        return false;
    }

    /**
     * A connection reset in the middle of a stream: the client, which is sending flat out and
     * reading, gets an IOException on both sides, not a hang.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void resetMidStreamIsAnExceptionNotAHang(Transport transport) throws Exception {
        try (Pair p = new Pair(transport, b -> { })) {
            AtomicReference<Throwable> sendError = new AtomicReference<>();
            Thread sender = new Thread(() -> {
                try {
                    MessageWriter w = p.client.newWriter();
                    byte[] buf = new byte[200];
                    for (int i = 0; ; i++) {
                        w.send(buf, 0, fill(buf, i, 200));
                    }
                } catch (Throwable e) {
                    sendError.set(e);
                }
            }, "sender");
            sender.start();
            // the server sends some messages, reads some, then resets the connection
            MessageWriter w = p.accepted.newWriter();
            byte[] buf = new byte[200];
            for (int i = 0; i < 100; i++) {
                w.send(buf, 0, fill(buf, i, 200));
            }
            for (int i = 0; i < 1000; i++) {
                assertNull(check(buf, p.accepted.receive(buf), i, 200));
            }
            Channel ch = p.accepted.channel();
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close().sync(); // SO_LINGER 0: RST
            // the client reads what arrived, then gets the failure
            byte[] in = new byte[200];
            IOException e = assertThrows(IOException.class, () -> {
                while (p.client.receive(in) >= 0) {
                    // keep reading
                }
            });
            assertTrue(e.getMessage().contains("connection failed") || e.getMessage().contains("closed"),
                    e.getMessage());
            join(sender);
            assertTrue(sendError.get() instanceof IOException, String.valueOf(sendError.get()));
        }
    }

    /** Every stream, pipe and loop closed: no descriptor and no event loop thread left. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void closeLeavesNoDescriptorOrThread(Transport transport) throws Exception {
        // one warm-up cycle (native libraries, class loading), then the baseline
        cycle(transport);
        Map<Integer, String> baseline = LoopMailboxTest.fds();
        int threads = Thread.activeCount();
        for (int i = 0; i < 5; i++) {
            cycle(transport);
        }
        // NIO closes a cancelled key's channel at the selector's next select: the loop is shut down
        // by then, so its descriptors are closed with the selector; epoll closes at once.
        LoopMailboxTest.assertSameFds(baseline, "after 5 connections");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a failure bound only
        while (Thread.activeCount() > threads && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // terminated loop threads leave the group as they exit
        }
        assertTrue(Thread.activeCount() <= threads, "threads: " + Thread.activeCount() + " > " + threads);
    }

    private static void cycle(Transport transport) throws Exception {
        try (Pair p = new Pair(transport, b -> { })) {
            MessageWriter w = p.client.newWriter();
            byte[] buf = new byte[100];
            w.send(buf, 0, fill(buf, 1, 100));
            assertNull(check(buf, p.accepted.receive(buf), 1, 100));
            p.client.close();
            assertEquals(-1, p.accepted.receive(buf));
            assertThrows(IOException.class, () -> w.send(buf, 0, 10));
            assertThrows(IllegalStateException.class, p.client::newWriter);
        }
    }

    @Test
    void badArgumentsNameTheArgumentAndTheLimit() throws Exception {
        MessageStreamBuilder b = MessageStream.builder();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.bufferSize(0)).getMessage()
                .contains("bufferSize must be from 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.outboundWindow(1000)).getMessage()
                .matches("outboundWindow must be a power of two from 256 to \\d+ bytes, not 1000"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.inboundWindow(1000)).getMessage()
                .matches("inboundWindow must be a power of two from 256 to \\d+ bytes, not 1000"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.maxMessageLength(-1)).getMessage()
                .contains("maxMessageLength must be >= 0"));
        try (Pair p = new Pair(Transport.EPOLL_EVENTFD, x -> x.maxMessageLength(100))) {
            MessageWriter w = p.client.newWriter();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> w.send(new byte[101], 0, 101));
            assertTrue(e.getMessage().contains("length (101) must be at most maxMessageLength (100)"), e.getMessage());
            MessageStreamBuilder tooBig = MessageStream.builder().outboundWindow(4096).maxMessageLength(5000);
            e = assertThrows(IllegalArgumentException.class, () -> tooBig.attach(p.server));
            assertTrue(e.getMessage().contains("must be at most 2044"), e.getMessage());
        }
    }

    /** A frame longer than the limit fails the connection: the reader gets an IOException. */
    @Test
    void oversizedFrameFailsTheConnection() throws Exception {
        try (Pair p = new Pair(Transport.EPOLL_EVENTFD, x -> x.maxMessageLength(100))) {
            p.client.channel().writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {0, 0, 1, 0})).sync();
            IOException e = assertThrows(IOException.class, () -> p.accepted.receive(new byte[100]));
            assertTrue(e.getMessage().contains("malformed frame: length 256"), e.getMessage());
        }
    }
}
