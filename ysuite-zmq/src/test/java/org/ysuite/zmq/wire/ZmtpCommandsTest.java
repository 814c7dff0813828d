package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.command;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.message;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/** Traffic-phase commands: PING/PONG, heartbeats and TTLs, subscriptions in 3.1 commands and 3.0 messages. */
class ZmtpCommandsTest {

    private static byte[] ping(int ttl, byte[] context) {
        return command("PING", concat(new byte[] {(byte) (ttl >> 8), (byte) ttl}, context));
    }

    private static ZmtpOptions heartbeats(int interval, int timeout, int ttl) {
        return new ZmtpOptions(SocketType.PULL, new byte[0], -1, interval, timeout, ttl, 0, false);
    }

    @Test
    void pingIsAnsweredWithPongCarryingItsContext() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(ping(0, ascii("ctx-42")));
            assertArrayEquals(command("PONG", ascii("ctx-42")), h.written());
            h.feed(ping(0, new byte[0]));
            assertArrayEquals(command("PONG", new byte[0]), h.written());
            h.feed(ping(0, ascii("0123456789abcdefXYZ")));
            assertArrayEquals(command("PONG", ascii("0123456789abcdef")), h.written(), "context cut to 16 bytes");
            assertTrue(h.listener.closedReasons().isEmpty());
        }
    }

    @Test
    void pingWithoutTtlIsRefused() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(command("PING", new byte[] {1}));
            assertEquals("protocol error: PING without its 2-byte TTL", h.listener.closedReason());
        }
    }

    @Test
    void sendsPingsWithOurTtlEveryInterval() {
        try (EngineHarness h = new EngineHarness(heartbeats(1000, 5000, 2500))) {
            h.handshake("PUSH", 1);
            h.advance(999);
            assertEquals(0, h.written().length);
            h.advance(1);
            assertArrayEquals(ping(25, new byte[0]), h.written(), "TTL in tenths of a second");
            h.feed(command("PONG", new byte[0]));
            h.advance(1000);
            assertArrayEquals(ping(25, new byte[0]), h.written());
        }
    }

    @Test
    void heartbeatTimeoutDropsASilentPeer() {
        try (EngineHarness h = new EngineHarness(heartbeats(1000, 0, 0))) {
            h.handshake("PUSH", 1);
            h.advance(1000);
            h.advance(999);
            assertTrue(h.listener.closedReasons().isEmpty());
            h.advance(1);
            assertEquals("heartbeat timeout: nothing from the peer for 1000 ms after a PING", h.listener.closedReason());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void anyTrafficKeepsTheConnectionUp() {
        try (EngineHarness h = new EngineHarness(heartbeats(1000, 1500, 0))) {
            h.handshake("PUSH", 1);
            for (int i = 0; i < 10; i++) {
                h.advance(500);
                h.feed(message(ascii("m" + i), false));
            }
            assertTrue(h.listener.closedReasons().isEmpty());
            assertEquals(10, h.listener.frames().size());
            h.advance(2500);
            assertTrue(h.listener.closedReasons().isEmpty(), "the timeout runs from the next PING");
            h.advance(1000);
            assertEquals("heartbeat timeout: nothing from the peer for 1500 ms after a PING", h.listener.closedReason());
        }
    }

    @Test
    void peerTtlDropsUsWhenThePeerFallsSilent() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(ping(10, new byte[0]));
            h.advance(600);
            h.feed(message(ascii("alive"), false));
            h.advance(600);
            assertTrue(h.listener.closedReasons().isEmpty(), "traffic within the TTL");
            h.feed(ping(10, new byte[0]));
            h.advance(999);
            assertTrue(h.listener.closedReasons().isEmpty());
            h.advance(1);
            assertEquals("heartbeat TTL expired: nothing from the peer for the 1000 ms its PING announced",
                    h.listener.closedReason());
        }
    }

    @Test
    void timersStopWhenTheConnectionCloses() {
        try (EngineHarness h = new EngineHarness(heartbeats(1000, 0, 0))) {
            h.handshake("PUSH", 1);
            h.feed(ping(10, new byte[0]));
            h.written();
            h.connection.close();
            h.advance(10_000);
            assertEquals(List.of("closed by the socket"), h.listener.closedReasons());
            assertEquals(0, h.written().length, "no PING after close");
        }
    }

    @Test
    void subscriptionCommandsFromA31PeerReachAPublisher() {
        for (SocketType pub : new SocketType[] {SocketType.PUB, SocketType.XPUB}) {
            try (EngineHarness h = new EngineHarness(pub)) {
                h.handshake("SUB", 1);
                h.feed(concat(command("SUBSCRIBE", ascii("topic")), command("CANCEL", ascii("topic")),
                        command("SUBSCRIBE", new byte[0])));
                assertEquals(List.of("+topic", "-topic", "+"), h.listener.subscriptions());
            }
        }
    }

    @Test
    void subscriptionMessagesFromA30PeerReachAPublisher() {
        try (EngineHarness h = new EngineHarness(SocketType.XPUB)) {
            h.handshake("XSUB", 0);
            h.feed(concat(message(concat(new byte[] {1}, ascii("abc")), false),
                    message(concat(new byte[] {0}, ascii("abc")), false),
                    message(ascii("user message"), false)));
            assertEquals(List.of("+abc", "-abc"), h.listener.subscriptions());
            assertEquals(List.of("user message"), h.listener.frameTexts(), "XPUB sees the rest as messages");
        }
    }

    @Test
    void subscriptionsAreNotToldToOtherSockets() {
        try (EngineHarness h = new EngineHarness(SocketType.SUB)) {
            h.handshake("PUB", 1);
            h.feed(concat(command("SUBSCRIBE", ascii("t")), message(concat(new byte[] {1}, ascii("data")), false)));
            assertTrue(h.listener.subscriptions().isEmpty());
            assertEquals(1, h.listener.frames().size(), "a message starting with 1 is a message to a SUB");
        }
    }

    @Test
    void writeSubscriptionSpeaksThePeersVersion() {
        try (EngineHarness h = new EngineHarness(SocketType.SUB)) {
            h.handshake("PUB", 1);
            h.connection.writeSubscription(h.buf(ascii("news")), true);
            h.connection.writeSubscription(h.buf(ascii("news")), false);
            h.connection.flush();
            assertArrayEquals(concat(command("SUBSCRIBE", ascii("news")), command("CANCEL", ascii("news"))), h.written());
        }
        try (EngineHarness h = new EngineHarness(SocketType.XSUB)) {
            h.handshake("XPUB", 0);
            h.connection.writeSubscription(h.buf(ascii("news")), true);
            h.connection.writeSubscription(h.buf(ascii("news")), false);
            h.connection.flush();
            assertArrayEquals(concat(message(concat(new byte[] {1}, ascii("news")), false),
                    message(concat(new byte[] {0}, ascii("news")), false)), h.written());
        }
    }
}
