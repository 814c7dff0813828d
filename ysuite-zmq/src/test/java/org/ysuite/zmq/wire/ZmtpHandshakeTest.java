package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.greeting;
import static org.ysuite.zmq.wire.ZmtpWire.property;
import static org.ysuite.zmq.wire.ZmtpWire.ready;
import static org.ysuite.zmq.wire.ZmtpWire.readyOf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/** The NULL handshake: READY both ways, its metadata, and the peers it must refuse. */
class ZmtpHandshakeTest {

    @Test
    void sendsGreetingThenReadyWithSocketTypeAndIdentity() {
        ZmtpOptions options = new ZmtpOptions(SocketType.DEALER, ascii("me"), -1, 0, 0, 0, 0, false);
        try (EngineHarness h = new EngineHarness(options)) {
            assertArrayEquals(greeting(1), h.written(), "our greeting: 3.1, NULL, client");
            h.feed(greeting(1));
            byte[] expected = ready(property("Socket-Type", ascii("DEALER")), property("Identity", ascii("me")));
            assertArrayEquals(expected, h.written());
        }
    }

    @Test
    void identityOnlyForReqDealerRouter() {
        for (SocketType t : SocketType.values()) {
            Map<String, byte[]> p = NullMechanism.properties(new ZmtpOptions(t, ascii("x"), -1, 0, 0, 0, 0, false));
            boolean expected = t == SocketType.REQ || t == SocketType.DEALER || t == SocketType.ROUTER;
            assertEquals(expected, p.containsKey("Identity"), t.name());
            assertArrayEquals(ascii(t.name()), p.get("Socket-Type"));
        }
    }

    @Test
    void readyRoundTripsThroughEncoderAndParser() throws Exception {
        ZmtpOptions options = new ZmtpOptions(SocketType.ROUTER, ascii("rid"), -1, 0, 0, 0, 0, false);
        ByteBuf ready = ZmtpCommands.ready(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, NullMechanism.properties(options));
        try {
            assertEquals(0x04, ready.getByte(0));
            int size = ready.getUnsignedByte(1);
            assertEquals(ready.readableBytes() - 2, size);
            assertTrue(ZmtpCommands.isNamed(ready, 2, size, ZmtpCommands.READY));
            Map<String, byte[]> parsed = ZmtpCommands.metadata(ready, 2 + 6, 2 + size);
            assertArrayEquals(ascii("ROUTER"), parsed.get("Socket-Type"));
            assertArrayEquals(ascii("rid"), parsed.get("Identity"));
        } finally {
            ready.release();
        }
    }

    @Test
    void readyGivesThePeer() {
        try (EngineHarness h = new EngineHarness(SocketType.ROUTER)) {
            h.feed(concat(greeting(1), ready(property("Socket-Type", ascii("DEALER")),
                    property("Identity", ascii("abc")), property("X-Custom", new byte[] {1, 2}))));
            ZmtpPeer peer = h.listener.peer();
            assertEquals(SocketType.DEALER, peer.socketType());
            assertArrayEquals(ascii("abc"), peer.identity());
            assertEquals(1, peer.minorVersion());
            assertEquals("NULL", peer.mechanism());
            assertArrayEquals(new byte[] {1, 2}, peer.properties().get("X-Custom"));
            assertEquals(peer, h.connection.peer());
            assertTrue(h.listener.closedReasons().isEmpty());
        }
    }

    @Test
    void wrongSocketTypeIsRefusedWithAnErrorCommand() {
        try (EngineHarness h = new EngineHarness(SocketType.PUB)) {
            h.written();
            h.feed(concat(greeting(1), readyOf("PUSH")));
            assertEquals("protocol error: incompatible socket type PUSH for PUB", h.listener.closedReason());
            byte[] out = h.written();
            byte[] text = ascii("incompatible socket type PUSH for PUB");
            byte[] error = ZmtpWire.command("ERROR", concat(new byte[] {(byte) text.length}, text));
            assertArrayEquals(error, Arrays.copyOfRange(out, out.length - error.length, out.length));
            assertFalse(h.channel.isOpen());
            assertEquals(0, h.listener.readyCount());
        }
    }

    @Test
    void readyWithoutSocketTypeOrWithAnUnknownOneIsRefused() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(concat(greeting(1), ready(property("Identity", new byte[0]))));
            assertEquals("protocol error: the peer's READY has no Socket-Type", h.listener.closedReason());
        }
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(concat(greeting(1), readyOf("push")));
            assertEquals("protocol error: unknown socket type \"push\" in the peer's READY", h.listener.closedReason());
        }
    }

    @Test
    void readyMetadataAnnouncingMoreThanItCarriesIsRefused() {
        byte[] valueTooLong = concat(new byte[] {11}, ascii("Socket-Type"), new byte[] {0, 0, 0, 100}, ascii("PUSH"));
        byte[] nameTooLong = concat(new byte[] {(byte) 200}, ascii("Socket-Type"));
        byte[] noValueLength = concat(new byte[] {11}, ascii("Socket-Type"), new byte[] {0, 0});
        byte[] hugeValue = concat(new byte[] {11}, ascii("Socket-Type"), new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
        for (byte[] bad : new byte[][] {valueTooLong, nameTooLong, noValueLength, hugeValue}) {
            try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
                h.feed(concat(greeting(1), ZmtpWire.command("READY", bad)));
                String reason = h.listener.closedReason();
                assertTrue(reason.startsWith("protocol error: malformed metadata"), reason);
                assertEquals(0, h.listener.readyCount());
            }
        }
    }

    @Test
    void messageBeforeReadyIsRefused() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(concat(greeting(1), ZmtpWire.message(ascii("early"), false)));
            assertEquals("protocol error: message frame before the handshake completed", h.listener.closedReason());
            assertTrue(h.listener.frames().isEmpty());
        }
    }

    @Test
    void unexpectedCommandInTheHandshakeIsRefused() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(concat(greeting(1), ZmtpWire.command("HELLO", new byte[10])));
            assertEquals("protocol error: unexpected command HELLO in the NULL handshake (READY expected)",
                    h.listener.closedReason());
        }
    }

    @Test
    void errorCommandFromThePeerClosesWithItsReason() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(concat(greeting(1), ZmtpWire.command("ERROR", concat(new byte[] {6}, ascii("denied")))));
            assertEquals("peer error: denied", h.listener.closedReason());
            assertFalse(h.channel.isOpen());
        }
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(ZmtpWire.command("ERROR", concat(new byte[] {(byte) 200}, ascii("short"))));
            assertEquals("peer error: short", h.listener.closedReason(), "a hostile reason length is cut");
        }
    }

    @Test
    void writesBeforeReadyAreRejectedAndReleased() {
        try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
            ByteBuf data = h.buf(ascii("x"));
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> h.connection.writeFrame(data, false));
            assertEquals(0, data.refCnt());
        }
    }

    @Test
    void closeTellsTheListenerOnceAndLaterWritesAreDropped() {
        try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
            h.handshake("PULL", 1);
            h.connection.close();
            h.channel.runPendingTasks();
            assertEquals("closed by the socket", h.listener.closedReason());
            ByteBuf late = h.buf(ascii("late"));
            h.connection.writeFrame(late, false);
            h.connection.flush();
            assertEquals(0, late.refCnt());
            assertEquals(1, h.listener.closedReasons().size());
            assertEquals(Unpooled.EMPTY_BUFFER.readableBytes(), h.written().length);
        }
    }

    @Test
    void aListenerThatThrowsEndsOnlyItsConnection() {
        java.util.List<String> closed = new java.util.ArrayList<>();
        ZmtpListener throwing = new ZmtpListener() {
            @Override
            public void ready(ZmtpConnection connection, ZmtpPeer peer) {
            }

            @Override
            public void frame(ByteBuf data, boolean more) {
                throw new IllegalStateException("socket bug");
            }

            @Override
            public void subscription(ByteBuf topic, boolean subscribe) {
            }

            @Override
            public void closed(String reason, Throwable cause) {
                closed.add(reason);
                throw new IllegalStateException("and another");
            }
        };
        io.netty.channel.embedded.EmbeddedChannel ch = new io.netty.channel.embedded.EmbeddedChannel();
        try {
            ZmtpEngine.install(ch, ZmtpOptions.defaults(SocketType.PULL), throwing);
            ch.writeInbound(Unpooled.wrappedBuffer(concat(greeting(1), readyOf("PUSH"),
                    ZmtpWire.message(ascii("boom"), false))));
            assertEquals(java.util.List.of("failed on input: java.lang.IllegalStateException: socket bug"), closed);
            assertFalse(ch.isOpen());
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
