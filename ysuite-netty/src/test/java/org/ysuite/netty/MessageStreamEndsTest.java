package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.ysuite.OffHeapYPipe;

/**
 * The ends of a {@link MessageStream} that are not a plain close: attach off the loop, a channel
 * that never becomes active, a throwing batch handler, a loop shut down, a half-closed input, a
 * writer shared by two threads. A test that hangs on a broken stream fails through the bounded
 * waits of {@link #within}; none of them waits for time to pass.
 */
@Timeout(120)
class MessageStreamEndsTest {

    /** Runs {@code call} on another thread and gives its outcome; a hang fails after 30 s. */
    static <T> T within(java.util.concurrent.Callable<T> call) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(call.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "within");
        t.setDaemon(true);
        t.start();
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw new AssertionError(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            t.interrupt();
            throw new AssertionError("the call did not return in 30 s (the stream is wedged)");
        }
    }

    /** Waits until {@code t} parks (a condition, not a time). */
    static void awaitParked(Thread t) {
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            if (!t.isAlive()) {
                throw new AssertionError(t.getName() + " ended instead of waiting");
            }
            Thread.yield();
        }
    }

    static int openFds() {
        String[] names = new File("/proc/self/fd").list();
        return names == null ? 0 : names.length;
    }

    static Channel echoServer(MultiThreadIoEventLoopGroup group, Transport t, CompletableFuture<MessageStream> accepted)
            throws InterruptedException {
        return new ServerBootstrap().group(group).channel(t.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.complete(MessageStream.attach(ch));
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    static int refusedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort(); // closed on return: nothing listens there
        }
    }

    // ---- (1) attach off the loop -----------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void attachOffTheLoopKeepsTheFirstWakeup(Transport t) throws Exception {
        MultiThreadIoEventLoopGroup group = t.newGroup();
        try {
            CompletableFuture<MessageStream> accepted = new CompletableFuture<>();
            Channel server = echoServer(group, t, accepted);
            Channel ch = new Bootstrap().group(group).channel(t.clientChannel())
                    .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            // Hold the loop so that the stream's registration and its handlerAdded both queue
            // behind the writer's first flush.
            CountDownLatch hold = new CountDownLatch(1);
            ch.eventLoop().execute(() -> {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            MessageStream client = MessageStream.attach(ch); // off the loop
            MessageWriter w = client.newWriter();
            w.send(new byte[] {1, 2, 3}, 0, 3);
            hold.countDown();
            MessageStream peer = accepted.get(10, TimeUnit.SECONDS);
            byte[] buf = new byte[16];
            assertEquals(3, (int) within(() -> peer.receive(buf)));
            assertArrayEquals(new byte[] {1, 2, 3}, java.util.Arrays.copyOf(buf, 3));
            client.close();
            peer.close();
            server.close().sync();
        } finally {
            Transport.shutdown(group);
        }
    }

    // ---- (2) a channel that never becomes active -------------------------------------------------

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void refusedConnectEndsTheStreamAndLeaksNoDescriptor(Transport t) throws Exception {
        MultiThreadIoEventLoopGroup group = t.newGroup();
        try {
            int port = refusedPort();
            int rounds = 40;
            connectRefused(group, t, port); // warms the loop and the classes up
            int before = openFds();
            for (int i = 0; i < rounds; i++) {
                connectRefused(group, t, port);
            }
            int after = openFds();
            assertTrue(after - before < rounds / 2, "descriptors grew from " + before + " to " + after
                    + " over " + rounds + " refused connects");
        } finally {
            Transport.shutdown(group);
        }
    }

    private static void connectRefused(MultiThreadIoEventLoopGroup group, Transport t, int port) throws Exception {
        CompletableFuture<MessageStream> mine = new CompletableFuture<>();
        ChannelFuture f = new Bootstrap().group(group).channel(t.clientChannel())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        mine.complete(MessageStream.attach(ch));
                    }
                }).connect(new InetSocketAddress("127.0.0.1", port));
        MessageStream s = mine.get(10, TimeUnit.SECONDS);
        IOException e = assertThrows(IOException.class, () -> within(() -> s.receive(new byte[8])));
        // The connect's own failure, as docs/network.md promises: the address and the reason.
        assertTrue(e.getMessage().startsWith("connect to ") && e.getMessage().contains(":" + port)
                && e.getMessage().contains("Connection refused"), e.getMessage());
        assertFalse(f.await().isSuccess());
        // A writer made now is told at once, not parked.
        assertThrows(IllegalStateException.class, s::newWriter);
        s.close();
    }

    @Test
    void closedBeforeConnectReleasesABlockedWriterAndTheReader() throws Exception {
        MultiThreadIoEventLoopGroup group = Transport.EPOLL_EVENTFD.newGroup();
        try {
            Channel ch = new Bootstrap().group(group).channel(Transport.EPOLL_EVENTFD.clientChannel())
                    .handler(new ChannelInboundHandlerAdapter()).register().sync().channel();
            int window = OffHeapYPipe.MIN_CAPACITY_BYTES;
            MessageStream s = MessageStream.builder().outboundWindow(window)
                    .maxMessageLength(OffHeapYPipe.maxMessageLength(window)).attach(ch);
            CompletableFuture<Throwable> writerEnd = new CompletableFuture<>();
            Thread writer = new Thread(() -> {
                try {
                    MessageWriter w = s.newWriter();
                    byte[] m = new byte[16];
                    for (;;) {
                        w.send(m, 0, m.length); // nothing drains: the window fills, then it blocks
                    }
                } catch (Throwable e) {
                    writerEnd.complete(e);
                }
            }, "blocked-writer");
            writer.start();
            awaitParked(writer);
            ch.close().sync();
            Throwable e = writerEnd.get(30, TimeUnit.SECONDS);
            assertTrue(e instanceof IOException, String.valueOf(e));
            IOException r = assertThrows(IOException.class, () -> within(() -> s.receive(new byte[8])));
            assertTrue(r.getMessage().contains("before it became active"), r.getMessage());
            s.close();
        } finally {
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void aSendBeforeTheConnectDoesNotAbortIt(Transport t) throws Exception {
        MultiThreadIoEventLoopGroup group = t.newGroup();
        try {
            CompletableFuture<MessageStream> accepted = new CompletableFuture<>();
            Channel server = echoServer(group, t, accepted);
            CompletableFuture<MessageStream> mine = new CompletableFuture<>();
            Bootstrap b = new Bootstrap().group(group).channel(t.clientChannel())
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            mine.complete(MessageStream.attach(ch));
                        }
                    });
            Channel ch = b.register().sync().channel();
            MessageStream client = mine.get(10, TimeUnit.SECONDS);
            client.newWriter().send(new byte[] {7}, 0, 1); // before connect
            ch.connect(server.localAddress()).sync();
            MessageStream peer = accepted.get(10, TimeUnit.SECONDS);
            byte[] buf = new byte[4];
            assertEquals(1, (int) within(() -> peer.receive(buf)));
            assertEquals(7, buf[0]);
            client.close();
            peer.close();
            server.close().sync();
        } finally {
            Transport.shutdown(group);
        }
    }

    // ---- (3) a throwing batch handler --------------------------------------------------------------

    @Test
    void aThrowingBatchHandlerDoesNotWedgeTheStream() throws Exception {
        int window = OffHeapYPipe.MIN_CAPACITY_BYTES;
        int length = OffHeapYPipe.maxMessageLength(window);
        int fit = 0;
        try (OffHeapYPipe probe = new OffHeapYPipe(window)) {
            byte[] m = new byte[length];
            while (probe.write(m, 0, length, false)) {
                fit++;
            }
        }
        int last = fit - 1; // the last message the full window holds
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(Transport.EPOLL_EVENTFD,
                b -> b.inboundWindow(window).maxMessageLength(length))) {
            MessageWriter w = p.accepted.newWriter();
            byte[] m = new byte[length];
            for (int i = 0; i <= fit; i++) {
                m[0] = (byte) i;
                w.send(m, 0, length);
            }
            // The window holds `fit` messages; the next one stalls the loop (autoRead off).
            while (p.client.channel().config().isAutoRead()) {
                Thread.yield();
            }
            AtomicInteger handled = new AtomicInteger();
            assertThrows(IllegalStateException.class, () -> p.client.receiveBatch((buf, off, len) -> {
                handled.incrementAndGet();
                if (buf.get(off) == last) {
                    throw new IllegalStateException("the handler failed");
                }
            }));
            assertEquals(fit, handled.get());
            byte[] buf = new byte[length];
            assertEquals(length, (int) within(() -> p.client.receive(buf)));
            assertEquals(fit, buf[0]);
        }
    }

    // ---- (4) the smaller ends ---------------------------------------------------------------------

    @Test
    void aLoopShutdownIsReportedAsSuch() throws Exception {
        MessageStreamTest.Pair p = new MessageStreamTest.Pair(Transport.EPOLL_EVENTFD, b -> { });
        p.group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        IOException e = assertThrows(IOException.class, () -> within(() -> p.client.receive(new byte[8])));
        assertTrue(e.getMessage().contains("shut down"), e.getMessage());
        p.client.close();
        p.accepted.close();
        Transport.shutdown(p.group);
    }

    @Test
    void newWriterAfterThePeerClosedSaysSo() throws Exception {
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(Transport.EPOLL_EVENTFD, b -> { })) {
            p.accepted.close();
            assertEquals(-1, (int) within(() -> p.client.receive(new byte[8])));
            IllegalStateException e = assertThrows(IllegalStateException.class, p.client::newWriter);
            assertTrue(e.getMessage().contains("peer"), e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void halfClosureEndsTheInputAndKeepsTheOutput(Transport t) throws Exception {
        MultiThreadIoEventLoopGroup group = t.newGroup();
        try {
            CompletableFuture<MessageStream> accepted = new CompletableFuture<>();
            Channel server = echoServer(group, t, accepted);
            CompletableFuture<MessageStream> mine = new CompletableFuture<>();
            new Bootstrap().group(group).channel(t.clientChannel()).option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            mine.complete(MessageStream.attach(ch));
                        }
                    }).connect(server.localAddress()).sync();
            MessageStream client = mine.get(10, TimeUnit.SECONDS);
            MessageStream peer = accepted.get(10, TimeUnit.SECONDS);
            peer.newWriter().send(new byte[] {5}, 0, 1);
            byte[] buf = new byte[4];
            assertEquals(1, (int) within(() -> client.receive(buf)));
            ((io.netty.channel.socket.SocketChannel) peer.channel()).shutdownOutput().sync();
            assertEquals(-1, (int) within(() -> client.receive(buf)));
            // The output is still open: the peer still reads.
            client.newWriter().send(new byte[] {6}, 0, 1);
            assertEquals(1, (int) within(() -> peer.receive(buf)));
            assertEquals(6, buf[0]);
            client.close();
            peer.close();
            server.close().sync();
        } finally {
            Transport.shutdown(group);
        }
    }

    @Test
    void twoThreadsOnOneWriterAreToldNotParked() throws Exception {
        MultiThreadIoEventLoopGroup group = Transport.EPOLL_EVENTFD.newGroup();
        try {
            Channel ch = new Bootstrap().group(group).channel(Transport.EPOLL_EVENTFD.clientChannel())
                    .handler(new ChannelInboundHandlerAdapter()).register().sync().channel();
            int window = OffHeapYPipe.MIN_CAPACITY_BYTES;
            MessageStream s = MessageStream.builder().outboundWindow(window)
                    .maxMessageLength(OffHeapYPipe.maxMessageLength(window)).attach(ch);
            MessageWriter w = s.newWriter();
            byte[] m = new byte[16];
            CompletableFuture<Throwable> firstEnd = new CompletableFuture<>();
            Thread first = new Thread(() -> {
                try {
                    for (;;) {
                        w.send(m, 0, m.length); // not connected: nothing drains, it blocks
                    }
                } catch (Throwable e) {
                    firstEnd.complete(e);
                }
            }, "first-writer");
            first.start();
            awaitParked(first);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> within(() -> {
                        w.send(m, 0, m.length);
                        return null;
                    }));
            assertTrue(e.getMessage().contains("thread"), e.getMessage());
            s.close();
            assertTrue(firstEnd.get(30, TimeUnit.SECONDS) instanceof IOException);
            ch.close().sync();
        } finally {
            Transport.shutdown(group);
        }
    }
}
