package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.greeting;
import static org.ysuite.zmq.wire.ZmtpWire.message;
import static org.ysuite.zmq.wire.ZmtpWire.readyOf;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/** The greeting: any split, version negotiation, and the peers refused before any command. */
class ZmtpGreetingTest {

    private static final byte[] STREAM = concat(greeting(1), readyOf("PUSH"),
            message(ascii("one"), true), message(new byte[300], false), message(ascii("end"), false));

    private static void assertStreamArrived(EngineHarness h) {
        assertEquals(1, h.listener.readyCount(), () -> "closed " + h.listener.closedReasons());
        List<RecordingListener.Frame> frames = h.listener.frames();
        assertEquals(3, frames.size());
        assertEquals("one+", frames.get(0).text());
        assertEquals(300, frames.get(1).data().length);
        assertEquals("end", frames.get(2).text());
        assertTrue(h.listener.closedReasons().isEmpty());
    }

    @Test
    void greetingHandshakeAndFramesSplitAtEveryByte() {
        for (int split = 0; split <= STREAM.length; split++) {
            try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
                h.feed(Arrays.copyOfRange(STREAM, 0, split));
                h.feed(Arrays.copyOfRange(STREAM, split, STREAM.length));
                assertStreamArrived(h);
            }
        }
    }

    @Test
    void greetingHandshakeAndFramesOneByteAtATime() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feedByteByByte(STREAM);
            assertStreamArrived(h);
        }
    }

    @Test
    void libzmqStyleGreetingInTwoParts() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            byte[] g = greeting(1);
            h.feed(Arrays.copyOfRange(g, 0, 11));
            assertTrue(h.listener.closedReasons().isEmpty());
            h.feed(concat(Arrays.copyOfRange(g, 11, 64), readyOf("PUSH")));
            assertEquals(1, h.listener.readyCount());
        }
    }

    @Test
    void negotiatesTheLowerMinorVersion() {
        int[][] cases = {{3, 0, 0}, {3, 1, 1}, {3, 7, 1}, {4, 0, 1}};
        for (int[] c : cases) {
            try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
                h.feed(concat(greeting(c[0], c[1], "NULL", false), readyOf("PUSH")));
                assertEquals(c[2], h.listener.peer().minorVersion(), () -> "peer " + c[0] + "." + c[1]);
            }
        }
    }

    @Test
    void zmtp10PeerIsRefusedAtItsFirstByte() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(new byte[] {0x01});
            assertTrue(h.listener.closedReason().startsWith("protocol error: ZMTP 1.0 peer refused"),
                    h.listener.closedReason());
            assertFalse(h.channel.isOpen());
        }
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            byte[] g = greeting(1);
            g[9] = 0x00;
            h.feed(Arrays.copyOfRange(g, 0, 10));
            assertTrue(h.listener.closedReason().startsWith("protocol error: ZMTP 1.0 peer refused"),
                    h.listener.closedReason());
        }
    }

    @Test
    void aTlsRecordIsRefusedAsTlsNotAsZmtp10() {
        // a TLS server's alert (0x15) or a TLS client's ClientHello (0x16), both with version 3.x next
        for (byte first : new byte[] {0x15, 0x16}) {
            try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
                h.feed(new byte[] {first});
                assertTrue(h.channel.isOpen(), "decided on one byte");
                h.feed(new byte[] {0x03, 0x03, 0x00, 0x02});
                assertTrue(h.listener.closedReason().startsWith("protocol error: the peer speaks TLS"),
                        h.listener.closedReason());
            }
        }
        try (EngineHarness h = new EngineHarness(SocketType.PUSH)) {
            h.feed(new byte[] {0x16, 0x01}); // not a TLS version: the old reason
            assertTrue(h.listener.closedReason().startsWith("protocol error: ZMTP 1.0 peer refused"),
                    h.listener.closedReason());
        }
    }

    @Test
    void zmtp20PeerIsRefusedAtItsVersionByte() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(Arrays.copyOfRange(greeting(1, 0, "NULL", false), 0, 11));
            assertEquals("protocol error: ZMTP 2.0 peer refused (version major 1): this engine speaks ZMTP 3.0/3.1 only",
                    h.listener.closedReason());
        }
    }

    @Test
    void unknownMechanismIsRefused() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.written();
            h.feed(greeting(3, 1, "FOO\u0001", false));
            assertEquals("protocol error: unknown mechanism \"FOO\\x01\" in the peer's greeting", h.listener.closedReason());
            assertEquals(0, h.written().length, "no READY to a peer refused at its greeting");
        }
    }

    @Test
    void curveOfferedToNullIsAMechanismMismatch() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(greeting(3, 1, "CURVE", true));
            assertEquals("protocol error: mechanism mismatch: the peer offers CURVE, this side speaks NULL",
                    h.listener.closedReason());
        }
    }

    @Test
    void garbageAfterTheSignatureIsRefused() {
        byte[] g = greeting(1);
        for (int i = 10; i < 64; i++) {
            g[i] = (byte) (0x41 + i);
        }
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(concat(g, new byte[100]));
            assertTrue(h.listener.closedReason().startsWith("protocol error: unknown mechanism"), h.listener.closedReason());
        }
        byte[] nullThenJunk = greeting(1);
        nullThenJunk[17] = 'x';
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.feed(nullThenJunk);
            assertTrue(h.listener.closedReason().startsWith("protocol error: unknown mechanism"),
                    "NULL must be NUL-padded: " + h.listener.closedReason());
        }
    }

    @Test
    void greetingThatNeverCompletesTimesOut() {
        ZmtpOptions options = new ZmtpOptions(SocketType.PULL, new byte[0], -1, 0, 0, 0, 1000, false);
        try (EngineHarness h = new EngineHarness(options)) {
            h.feed(Arrays.copyOfRange(greeting(1), 0, 20));
            h.advance(999);
            assertTrue(h.listener.closedReasons().isEmpty());
            h.advance(1);
            assertEquals("handshake timeout: not done within 1000 ms", h.listener.closedReason());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void handshakeTimerEndsWithTheHandshake() {
        ZmtpOptions options = new ZmtpOptions(SocketType.PULL, new byte[0], -1, 0, 0, 0, 1000, false);
        try (EngineHarness h = new EngineHarness(options)) {
            h.handshake("PUSH", 1);
            h.advance(5000);
            assertTrue(h.listener.closedReasons().isEmpty());
            assertTrue(h.channel.isOpen());
        }
    }
}
