package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server whose handler runs on the event loop ({@link MessageStreamBuilder#onLoop}) against a
 * client {@link MessageStream} on real loops, epoll and NIO.
 */
@Timeout(300)
class OnLoopServerTest {

    /** Echoes each message, then sends its CRC32C as a 4-byte message: both reply paths. */
    static LoopHandler echoAndChecksum() {
        CRC32C crc = new CRC32C();
        byte[] sum = new byte[4];
        return (buffer, offset, length, reply) -> {
            reply.send(buffer, offset, length);
            crc.reset();
            buffer.limit(offset + length).position(offset);
            crc.update(buffer);
            int v = (int) crc.getValue();
            sum[0] = (byte) (v >>> 24);
            sum[1] = (byte) (v >>> 16);
            sum[2] = (byte) (v >>> 8);
            sum[3] = (byte) v;
            reply.send(sum, 0, 4);
        };
    }

    static int crcOf(byte[] b, int length) {
        CRC32C c = new CRC32C();
        c.update(b, 0, length);
        return (int) c.getValue();
    }

    static int intAt(byte[] b) {
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    }

    /**
     * Random sizes (one in ten up to 64 KiB, so some are handed over as views of the read buffer)
     * and contents; each answered with itself and its checksum, checked byte by byte, in order.
     * A client buffer of 7 bytes makes frames straddle the server's reads.
     */
    @ParameterizedTest
    @CsvSource({"EPOLL_EVENTFD, 8192, 3000", "NIO, 8192, 3000", "EPOLL_EVENTFD, 7, 1000", "NIO, 7, 1000"})
    void answersRandomSizesWithChecksums(Transport t, int clientBuffer, int count) throws Exception {
        int max = 1 << 16;
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t,
                b -> b.bufferSize(clientBuffer).maxMessageLength(max),
                b -> b.maxMessageLength(max).onLoop(echoAndChecksum()), 0)) {
            AtomicReference<Throwable> error = new AtomicReference<>();
            Thread sender = new Thread(() -> {
                try {
                    MessageWriter w = p.client.newWriter();
                    byte[] buf = new byte[max];
                    for (int i = 0; i < count; i++) {
                        w.send(buf, 0, MessageStreamTest.fill(buf, i, max));
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }, "sender");
            sender.start();
            byte[] in = new byte[max];
            byte[] expected = new byte[max];
            for (int i = 0; i < count; i++) {
                int n = p.client.receive(in);
                assertNull(MessageStreamTest.check(in, n, i, max));
                assertEquals(4, p.client.receive(in), "message " + i + ": the checksum's length");
                int l = MessageStreamTest.fill(expected, i, max);
                assertEquals(crcOf(expected, l), intAt(in), "message " + i + ": checksum");
            }
            MessageStreamTest.join(sender);
            assertNull(error.get());
            assertEquals(0, p.accepted.outboundWakeups(), "the server's loop was woken by a writer");
        }
    }

    /**
     * A server application thread sends through a {@link MessageWriter} while the loop
     * answers requests: every message arrives whole, each source in its own order.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void writersInterleaveWholeWithTheReplies(Transport t) throws Exception {
        int requests = 5000;
        int pushes = 5000;
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t, b -> b.bufferSize(61),
                b -> b.bufferSize(61).onLoop((buffer, offset, length, reply) -> reply.send(buffer, offset, length)), 0)) {
            AtomicReference<Throwable> error = new AtomicReference<>();
            Thread pusher = new Thread(() -> {
                try {
                    MessageWriter w = p.accepted.newWriter();
                    byte[] m = new byte[64];
                    for (int i = 0; i < pushes; i++) {
                        int l = MessageStreamTest.fill(m, i, 64);
                        m[0] = (byte) 0x80; // a push: the top byte of the sequence number set
                        w.send(m, 0, l);
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }, "pusher");
            Thread requester = new Thread(() -> {
                try {
                    MessageWriter w = p.client.newWriter();
                    byte[] m = new byte[64];
                    for (int i = 0; i < requests; i++) {
                        w.send(m, 0, MessageStreamTest.fill(m, i, 64));
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }, "requester");
            pusher.start();
            requester.start();
            byte[] in = new byte[p.client.maxMessageLength()];
            int replies = 0;
            int pushed = 0;
            while (replies < requests || pushed < pushes) {
                int n = p.client.receive(in);
                if (in[0] == (byte) 0x80) {
                    in[0] = 0;
                    assertNull(MessageStreamTest.check(in, n, pushed, 64), "push");
                    pushed++;
                } else {
                    assertNull(MessageStreamTest.check(in, n, replies, 64), "reply");
                    replies++;
                }
            }
            MessageStreamTest.join(pusher);
            MessageStreamTest.join(requester);
            assertNull(error.get());
        }
    }

    /**
     * A requester whose replies nobody reads: the server's channel becomes unwritable, the server
     * stops reading, and so the requester's window fills (its {@code offer} refuses) instead of
     * the server buffering replies without bound. Then everything is read, in order.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void anUnwritableChannelStopsTheReading(Transport t) throws Exception {
        int size = 1000;
        int limit = 50_000; // 50 MB: far more than every window and socket buffer on the path
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t,
                b -> b.outboundWindow(8192).inboundWindow(8192).maxMessageLength(size),
                b -> b.outboundWindow(8192).maxMessageLength(size)
                        .onLoop((buffer, offset, length, reply) -> reply.send(buffer, offset, length)),
                MessageStreamTest.SMALL_SOCKET_BUFFER)) {
            MessageWriter w = p.client.newWriter();
            byte[] m = new byte[size];
            int sent = 0;
            int refusedInARow = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // Offer until the whole path is full: the server stopped reading (autoRead off, a
            // volatile of the channel's config), the client's channel is not writable, and the
            // client's window keeps refusing. A server that reads on lets the offers through
            // until the limit.
            while (p.accepted.channel().config().isAutoRead() || p.client.channel().isWritable()
                    || refusedInARow < 1000) {
                assertTrue(sent < limit && System.nanoTime() < deadline, "the path never filled: " + sent
                        + " sent, server autoRead " + p.accepted.channel().config().isAutoRead());
                if (w.offer(m, 0, MessageStreamTest.fill(m, sent, size))) {
                    sent++;
                    refusedInARow = 0;
                } else {
                    refusedInARow++;
                    Thread.onSpinWait();
                }
            }
            FrameDecoder serverDecoder = p.accepted.decoder;
            assertTrue(onLoop(p.accepted, serverDecoder::writeStalled), "the server's loop did not stop reading");
            assertFalse(onLoop(p.accepted, () -> p.accepted.channel().config().isAutoRead()));
            byte[] in = new byte[size];
            for (int i = 0; i < sent; i++) {
                assertNull(MessageStreamTest.check(in, p.client.receive(in), i, size));
            }
        }
    }

    private static <T> T onLoop(MessageStream s, Callable<T> task) throws Exception {
        return s.channel().eventLoop().submit(task).get();
    }

    /**
     * A handler that throws: the server's side ends with an IOException naming it, its writers
     * refuse, and the client gets the replies sent before and then an IOException (a reset),
     * not a clean end.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void aThrowingHandlerFailsBothEnds(Transport t) throws Exception {
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t, b -> { }, b -> b.onLoop((buffer, offset, length, reply) -> {
            if (length == 13) {
                throw new IllegalStateException("unlucky thirteen");
            }
            reply.send(buffer, offset, length);
        }), 0)) {
            MessageWriter w = p.client.newWriter();
            byte[] m = new byte[13];
            byte[] in = new byte[64];
            w.send(m, 0, 5);
            assertEquals(5, p.client.receive(in));
            w.send(m, 0, 13);
            IOException client = assertThrows(IOException.class, () -> p.client.receive(in));
            IOException server = assertThrows(IOException.class, () -> p.accepted.receive(in));
            assertTrue(server.getMessage().contains("the on-loop handler failed"), server.getMessage());
            Throwable cause = server.getCause();
            while (cause != null && !(cause instanceof IllegalStateException)) {
                cause = cause.getCause();
            }
            assertInstanceOf(IllegalStateException.class, cause, "the handler's exception as the cause");
            assertEquals("unlucky thirteen", cause.getMessage());
            assertTrue(client.getMessage() != null, "the client's exception says why");
        }
    }

    /** The reply object is the loop's, during the call only. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO"})
    void aReplyOutsideTheCallIsRefused(Transport t) throws Exception {
        AtomicReference<LoopReply> kept = new AtomicReference<>();
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t, b -> { }, b -> b.onLoop((buffer, offset, length, reply) -> {
            kept.set(reply);
            reply.send(buffer, offset, length);
        }), 0)) {
            p.client.newWriter().send(new byte[3], 0, 3);
            assertEquals(3, p.client.receive(new byte[8]));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> kept.get().send(ByteBuffer.allocate(1), 0, 1));
            assertTrue(e.getMessage().contains("outside LoopHandler.onMessage"), e.getMessage());
        }
    }
}
