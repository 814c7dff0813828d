package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.longHeader;
import static org.ysuite.zmq.wire.ZmtpWire.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/** Frames both ways: sizes, MORE, the limits checked from the header, reserved bits, no copies. */
class ZmtpFramingTest {

    private static ZmtpOptions pullWithMax(long max) {
        return new ZmtpOptions(SocketType.PULL, new byte[0], max, 0, 0, 0, 0, false);
    }

    @Test
    void shortLongEmptyAndMultipartFramesArrive() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            byte[] big = new byte[70_000];
            big[69_999] = 7;
            h.feed(concat(message(ascii("a"), true), message(new byte[0], true), message(big, false),
                    ZmtpWire.frame(0x02, ascii("long-encoded short"))));
            List<RecordingListener.Frame> f = h.listener.frames();
            assertEquals(4, f.size());
            assertEquals("a+", f.get(0).text());
            assertEquals("+", f.get(1).text());
            assertArrayEquals(big, f.get(2).data());
            assertFalse(f.get(2).more());
            assertEquals("long-encoded short", f.get(3).text());
        }
    }

    @Test
    void reservedFlagBitsAreIgnored() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(concat(ZmtpWire.frame(0xF8 | 0x01, ascii("x")), ZmtpWire.frame(0xF8, ascii("y")),
                    ZmtpWire.frame(0xF8 | 0x04, ZmtpWire.commandBody("PONG", new byte[0]))));
            assertEquals(List.of("x+", "y"), h.listener.frameTexts());
            assertTrue(h.listener.closedReasons().isEmpty());
        }
    }

    @Test
    void framesAreSlicesOfTheInputNotCopies() {
        List<byte[]> seen = new ArrayList<>();
        ZmtpListener spy = new ZmtpListener() {
            @Override
            public void ready(ZmtpConnection connection, ZmtpPeer peer) {
            }

            @Override
            public void frame(ByteBuf data, boolean more) {
                seen.add(data.array());
            }

            @Override
            public void subscription(ByteBuf topic, boolean subscribe) {
            }

            @Override
            public void closed(String reason, Throwable cause) {
            }
        };
        io.netty.channel.embedded.EmbeddedChannel ch = new io.netty.channel.embedded.EmbeddedChannel();
        try {
            ZmtpEngine.install(ch, ZmtpOptions.defaults(SocketType.PULL), spy);
            byte[] wire = concat(ZmtpWire.greeting(1), ZmtpWire.readyOf("PUSH"), message(ascii("a"), true),
                    message(ascii("b"), false));
            ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(wire));
            assertEquals(2, seen.size());
            assertSame(wire, seen.get(0), "the frame is a slice of the bytes that arrived");
            assertSame(wire, seen.get(1));
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void framesStraddlingReadsAtEveryPairOfSplitsArrive() {
        byte[] stream = concat(message(ascii("one"), true), message(new byte[300], false),
                ZmtpWire.command("PONG", new byte[0]), message(ascii("two"), false), message(new byte[0], false));
        for (int i = 0; i <= stream.length; i += 3) {
            for (int j = i; j <= stream.length; j += 5) {
                try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
                    h.handshake("PUSH", 1);
                    h.feed(java.util.Arrays.copyOfRange(stream, 0, i));
                    h.feed(java.util.Arrays.copyOfRange(stream, i, j));
                    h.feed(java.util.Arrays.copyOfRange(stream, j, stream.length));
                    List<RecordingListener.Frame> f = h.listener.frames();
                    assertEquals(4, f.size(), "splits " + i + ", " + j);
                    assertEquals("one+", f.get(0).text());
                    assertEquals(300, f.get(1).data().length);
                    assertEquals("two", f.get(2).text());
                    assertEquals("", f.get(3).text());
                }
            }
        }
    }

    @Test
    void afterAStraddlingFrameTheNewReadIsDecodedInPlace() {
        List<byte[]> seen = new ArrayList<>();
        RecordingListener recorder = new RecordingListener();
        ZmtpListener spy = new ZmtpListener() {
            @Override
            public void ready(ZmtpConnection connection, ZmtpPeer peer) {
            }

            @Override
            public void frame(ByteBuf data, boolean more) {
                seen.add(data.hasArray() ? data.array() : null);
                recorder.frame(data, more);
            }

            @Override
            public void subscription(ByteBuf topic, boolean subscribe) {
            }

            @Override
            public void closed(String reason, Throwable cause) {
            }
        };
        io.netty.channel.embedded.EmbeddedChannel ch = new io.netty.channel.embedded.EmbeddedChannel();
        try {
            ZmtpEngine.install(ch, ZmtpOptions.defaults(SocketType.PULL), spy);
            byte[] first = concat(ZmtpWire.greeting(1), ZmtpWire.readyOf("PUSH"), new byte[] {0, 3, 'a'});
            byte[] second = concat(ascii("bc"), message(ascii("d"), false), message(ascii("e"), false));
            ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(first));
            ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(second));
            assertEquals(List.of("abc", "d", "e"), recorder.frameTexts());
            assertSame(second, seen.get(1), "the frames after the straddling one are slices of the new read");
            assertSame(second, seen.get(2));
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aLimitIsCheckedWhenTheHeaderStraddlesReads() {
        try (EngineHarness h = new EngineHarness(pullWithMax(100))) {
            h.handshake("PUSH", 1);
            byte[] header = longHeader(0, 1L << 30);
            h.feed(java.util.Arrays.copyOfRange(header, 0, 4));
            h.feed(concat(java.util.Arrays.copyOfRange(header, 4, 9), new byte[1000]));
            assertEquals("protocol error: frame of 1073741824 B over maxMessageSize 100", h.listener.closedReason());
        }
    }

    @Test
    void frameOverMaxMessageSizeIsRefusedFromItsHeader() {
        try (EngineHarness h = new EngineHarness(pullWithMax(100))) {
            h.handshake("PUSH", 1);
            h.feed(message(new byte[100], false));
            assertEquals(1, h.listener.frames().size(), "exactly maxMessageSize passes");
            h.feed(longHeader(0, 1L << 30));
            assertEquals("protocol error: frame of 1073741824 B over maxMessageSize 100", h.listener.closedReason());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void maxMessageSizeCountsEveryFrameOfTheMessage() {
        try (EngineHarness h = new EngineHarness(pullWithMax(100))) {
            h.handshake("PUSH", 1);
            h.feed(concat(message(new byte[60], true), message(new byte[40], false)));
            assertEquals(2, h.listener.frames().size(), "60 + 40 = maxMessageSize passes");
            h.feed(concat(message(new byte[60], true), message(new byte[41], false)));
            assertEquals("protocol error: message of more than 100 B (60 B, then a frame of 41 B) over maxMessageSize 100",
                    h.listener.closedReason());
            assertEquals(3, h.listener.frames().size());
        }
    }

    @Test
    void longSizesOf2To63OrNegativeAreRefused() {
        for (long size : new long[] {Long.MIN_VALUE, -1L}) {
            for (int flags : new int[] {0x00, 0x04}) {
                try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
                    h.handshake("PUSH", 1);
                    h.feed(longHeader(flags, size));
                    assertEquals("protocol error: long frame announcing " + Long.toUnsignedString(size)
                            + " B (2^63 or more)", h.listener.closedReason());
                }
            }
        }
    }

    @Test
    void hugeUnknownCommandIsRefusedBeforeItIsBuffered() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(concat(longHeader(0x04, 1L << 40), new byte[] {7}, ascii("UNKNOWN")));
            assertEquals("protocol error: command of 1099511627776 B over the limit of 65536 B", h.listener.closedReason());
        }
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(concat(ZmtpWire.greeting(1), longHeader(0x04, 65_537)));
            assertTrue(h.listener.closedReason().startsWith("protocol error: command of 65537 B"), "in the handshake too");
        }
    }

    @Test
    void smallUnknownCommandsAreIgnored() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(concat(ZmtpWire.command("X-WHATEVER", new byte[1000]), message(ascii("after"), false)));
            assertEquals(List.of("after"), h.listener.frameTexts());
            assertTrue(h.listener.closedReasons().isEmpty());
        }
    }

    @Test
    void malformedCommandNameIsRefused() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(ZmtpWire.frame(0x04, new byte[] {9, 'P', 'I'}));
            assertEquals("protocol error: malformed command: a name of 9 B in a body of 3 B", h.listener.closedReason());
        }
    }

    @Test
    void writesShortAndLongFramesAndPassesLargeOnesWithoutCopy() {
        try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
            h.handshake("PULL", 1);
            byte[] big = new byte[ZmtpEncoder.COPY_LIMIT + 1];
            big[0] = 9;
            ByteBuf bigBuf = h.buf(big);
            h.connection.writeFrame(h.buf(ascii("hi")), true);
            h.connection.writeFrame(h.buf(new byte[300]), true);
            h.connection.writeFrame(bigBuf, false);
            assertEquals(0, h.channel.outboundMessages().size(), "nothing before flush but what must precede the large frame");
            h.connection.flush();
            List<Object> out = new ArrayList<>(h.channel.outboundMessages());
            assertTrue(out.contains(bigBuf), "the large frame's own buffer goes out");
            byte[] expected = concat(message(ascii("hi"), true), message(new byte[300], true), message(big, false));
            assertArrayEquals(expected, h.written());
        }
    }

    @Test
    void aSmallFlushDoesNotHoldAWholeBatch() {
        try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
            h.handshake("PULL", 1);
            h.connection.writeFrame(h.buf(ascii("hi")), false);
            h.connection.flush();
            ByteBuf out = h.channel.readOutbound();
            assertEquals(4, out.readableBytes());
            assertTrue(out.capacity() <= 1024, "capacity " + out.capacity());
            out.release();
        }
    }

    @Test
    void commandsWaitForTheEndOfAHalfWrittenMessage() {
        try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
            h.handshake("PULL", 1);
            h.connection.writeFrame(h.buf(ascii("part1")), true);
            h.feed(ZmtpWire.command("PING", new byte[] {0, 0, 'c'}));
            h.connection.writeFrame(h.buf(ascii("part2")), false);
            h.connection.flush();
            byte[] expected = concat(message(ascii("part1"), true), message(ascii("part2"), false),
                    ZmtpWire.command("PONG", ascii("c")));
            assertArrayEquals(expected, h.written());
        }
    }

    @Test
    void writeFramedPassesPreFramedBytes() {
        try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
            h.handshake("PULL", 1);
            ByteBuf framed = h.alloc.heapBuffer();
            ZmtpConnection.writeFrameHeader(framed, 1, true);
            framed.writeByte('a');
            ZmtpConnection.writeFrameHeader(framed, 256, false);
            framed.writeZero(256);
            h.connection.writeFramed(framed);
            h.connection.flush();
            assertArrayEquals(concat(message(ascii("a"), true), message(new byte[256], false)), h.written());
            assertEquals(0, framed.refCnt());
        }
    }

    @Test
    void frameHeaderHelpers() {
        assertEquals(2, ZmtpConnection.frameHeaderLength(255));
        assertEquals(9, ZmtpConnection.frameHeaderLength(256));
        ByteBuf b = io.netty.buffer.Unpooled.buffer();
        ZmtpConnection.writeFrameHeader(b, 256, true);
        assertEquals("030000000000000100", ByteBufUtil.hexDump(b));
        b.release();
    }
}
