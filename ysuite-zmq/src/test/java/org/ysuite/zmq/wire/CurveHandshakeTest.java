package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.command;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.greeting;
import static org.ysuite.zmq.wire.ZmtpWire.property;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqCurve;

/**
 * The CURVE handshake and MESSAGE boxes (ZeroMQ RFC 25/26) of the server engine on an embedded channel,
 * driven byte by byte by {@link CurveTestClient}: what the server writes, what it accepts, and every
 * hostile input closing that connection with a named reason and no buffer leaked (the harness checks).
 */
class CurveHandshakeTest {

    final ZmqCurve.KeyPair server = ZmqCurve.keyPair();
    final PlainHandshakeTest.HeldAuthenticator zap = new PlainHandshakeTest.HeldAuthenticator();

    private ZmtpOptions serverOptions(ZmtpAuthenticator authenticator) {
        return new ZmtpOptions(SocketType.PULL, ascii("srv"), -1, 0, 0, 0, 1000, true,
                ZmtpSecurity.curveServer(server.publicKey(), server.secretKey(), "global", authenticator));
    }

    /** A server harness that took the greeting and {@code client}'s HELLO and wrote WELCOME (returned). */
    private byte[] hello(EngineHarness h, CurveTestClient client) {
        assertArrayEquals(greeting(3, 1, "CURVE", true), h.written(), "a CURVE server's greeting: as-server 1");
        h.feed(concat(greeting(3, 1, "CURVE", false), client.hello()));
        return h.written();
    }

    /** Runs the handshake without ZAP; returns the READY frame the server wrote. */
    private byte[] handshake(EngineHarness h, CurveTestClient client) {
        byte[] welcome = client.welcome(hello(h, client));
        assertNotNull(welcome, "WELCOME opens under the server key");
        h.feed(client.initiate(welcome, property("Socket-Type", ascii("PUSH")), server.publicKey()));
        return h.written();
    }

    private static String reason(EngineHarness h) {
        assertFalse(h.channel.isOpen(), "the connection is closed");
        assertEquals(0, h.listener.readyCount(), "never ready");
        return h.listener.closedReason();
    }

    private static void assertReason(EngineHarness h, String expected) {
        String r = h.listener.closedReason();
        assertTrue(r.contains(expected), () -> "reason \"" + r + "\" lacks \"" + expected + "\"");
        assertFalse(h.channel.isOpen(), "the connection is closed");
    }

    @Test
    void handshakeBytesThenMessagesBothWays() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            byte[] welcome = hello(h, client);
            assertEquals(2 + 168, welcome.length, "WELCOME: a short command frame of 168 bytes");
            assertArrayEquals(concat(new byte[] {4, (byte) 168, 7}, ascii("WELCOME")), Arrays.copyOf(welcome, 10));
            byte[] opened = client.welcome(welcome);
            assertNotNull(opened);
            h.feed(client.initiate(opened, property("Socket-Type", ascii("PUSH")), server.publicKey()));
            byte[] metadata = client.ready(h.written());
            assertNotNull(metadata, "READY opens under the precomputed key");
            assertArrayEquals(property("Socket-Type", ascii("PULL")), metadata, "a PULL server's metadata");
            assertEquals(1, client.serverNonce, "READY: the server's first short nonce");
            assertEquals(1, h.listener.readyCount(), () -> "closed: " + h.listener.closedReasons());
            assertEquals("CURVE", h.listener.peer().mechanism());
            assertEquals(SocketType.PUSH, h.listener.peer().socketType());

            h.feed(concat(client.message(1, ascii("head")), client.message(0, ascii("tail"))));
            assertEquals(java.util.List.of("head+", "tail"), h.listener.frameTexts(), "MORE travels in the box's flags");
            assertTrue(h.listener.frames().get(0).more());

            for (int i = 0; i < 3; i++) {
                h.connection.writeFrame(h.buf(ascii("back" + i)), false);
            }
            h.connection.flush();
            byte[] out = h.written();
            long previous = client.serverNonce;
            int at = 0;
            for (int i = 0; i < 3; i++) {
                assertEquals(0, out[at], "MESSAGE goes as a message frame, as libzmq 4.3 sends it");
                int size = out[at + 1] & 0xFF;
                byte[] plain = client.open(Arrays.copyOfRange(out, at + 2, at + 2 + size));
                assertNotNull(plain, "the client opens the server's box");
                assertArrayEquals(concat(new byte[] {0}, ascii("back" + i)), plain);
                assertEquals(previous + 1, client.serverNonce, "short nonces go up by one, never reused");
                previous = client.serverNonce;
                at += 2 + size;
            }
            assertEquals(out.length, at);
        }
    }

    @Test
    void twoEnginesTalkCurveAndEachDirectionsNoncesStrictlyIncrease() {
        ZmtpOptions clientOptions = new ZmtpOptions(SocketType.SUB, new byte[0], -1, 0, 0, 0, 1000, false,
                ZmtpSecurity.curveClient(ZmqCurve.keyPair().publicKey(), ZmqCurve.keyPair().secretKey(),
                        server.publicKey()));
        ZmqCurve.KeyPair c = ZmqCurve.keyPair();
        clientOptions = clientOptions.withSecurity(ZmtpSecurity.curveClient(c.publicKey(), c.secretKey(),
                server.publicKey()));
        ZmtpOptions pub = new ZmtpOptions(SocketType.PUB, new byte[0], -1, 0, 0, 0, 1000, true,
                ZmtpSecurity.curveServer(server.publicKey(), server.secretKey(), "", null));
        try (EngineHarness s = new EngineHarness(pub); EngineHarness cl = new EngineHarness(clientOptions)) {
            for (int round = 0; round < 6; round++) {
                s.feed(cl.written());
                cl.feed(s.written());
            }
            assertEquals(1, s.listener.readyCount(), () -> "server closed: " + s.listener.closedReasons());
            assertEquals(1, cl.listener.readyCount(), () -> "client closed: " + cl.listener.closedReasons());
            cl.connection.writeSubscription(cl.buf(ascii("news")), true);
            cl.connection.flush();
            s.feed(cl.written());
            assertEquals(java.util.List.of("+news"), s.listener.subscriptions());
            long last = 1; // READY's
            for (int i = 0; i < 5; i++) {
                s.connection.writeFrame(s.buf(ascii("news " + i)), false);
                s.connection.flush();
                byte[] frame = s.written();
                long n = ByteBuffer.wrap(frame, 2 + 8, 8).getLong();
                assertTrue(n > last, "short nonce " + n + " after " + last);
                last = n;
                cl.feed(frame);
            }
            assertEquals(5, cl.listener.frameTexts().size());
            assertEquals("news 4", cl.listener.frameTexts().get(4));
        }
    }

    @Test
    void zapIsAskedWithTheClientKeyAndItsRefusalIsTheStatusCode() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(zap))) {
            assertArrayEquals(new byte[0], handshake(h, client), "nothing before ZAP answers");
            ZmtpAuthenticator.Request r = zap.requests.get(0);
            assertEquals("CURVE", r.mechanism());
            assertEquals("global", r.domain());
            assertArrayEquals(client.publicKey, r.credentials().get(0), "the credential is the client's long-term key");
            zap.answer("400", "");
            h.channel.runPendingTasks();
            assertArrayEquals(command("ERROR", concat(new byte[] {3}, ascii("400"))), h.written());
            assertTrue(reason(h).startsWith("CURVE authentication failed: ZAP 400"), h.listener.closedReason());
        }
    }

    @Test
    void zapAllowsWithUserId() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(zap))) {
            handshake(h, client);
            zap.answer("200", "alice");
            h.channel.runPendingTasks();
            assertNotNull(client.ready(h.written()));
            assertEquals(1, h.listener.readyCount(), () -> "closed: " + h.listener.closedReasons());
            assertArrayEquals(ascii("alice"), h.listener.peer().properties().get("User-Id"));
        }
    }

    @Test
    void replayedHelloCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            hello(h, client);
            client.nonce = 0;
            h.feed(client.hello());
            assertReason(h, "a second HELLO");
        }
    }

    @Test
    void helloToAnotherServerKeyCloses() {
        CurveTestClient client = new CurveTestClient(ZmqCurve.keyPair().publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            hello(h, client);
            assertReason(h, "HELLO box does not open");
        }
    }

    @Test
    void welcomeUnderTheWrongServerKeyCloses() {
        ZmqCurve.KeyPair c = ZmqCurve.keyPair();
        ZmtpOptions o = new ZmtpOptions(SocketType.PUSH, new byte[0], -1, 0, 0, 0, 1000, false,
                ZmtpSecurity.curveClient(c.publicKey(), c.secretKey(), server.publicKey()));
        try (EngineHarness h = new EngineHarness(o)) {
            h.written();
            h.feed(greeting(3, 1, "CURVE", true));
            byte[] hello = h.written();
            assertEquals(2 + 200, hello.length, "HELLO: 200 bytes of body");
            byte[] clientShort = Arrays.copyOfRange(hello, 2 + 80, 2 + 112);
            ZmqCurve.KeyPair impostor = ZmqCurve.keyPair();
            byte[] box = new byte[144];
            byte[] longNonce = new byte[16];
            org.ysuite.zmq.internal.Sodium.lib().crypto_box_easy(box, new byte[128], 128,
                    concat(ascii("WELCOME-"), longNonce), clientShort, impostor.secretKey());
            h.feed(command("WELCOME", concat(longNonce, box)));
            assertReason(h, "WELCOME box does not open");
            assertEquals(0, h.listener.readyCount());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100, 199, 201, 255})
    void helloOfAnyOtherLengthCloses(int length) {
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            h.written();
            byte[] body = new byte[length];
            h.feed(concat(greeting(3, 1, "CURVE", false), command("HELLO", Arrays.copyOf(body,
                    Math.max(0, length - 6)))));
            assertTrue(reason(h).contains("HELLO"), h.listener.closedReason());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 100, 247})
    void truncatedInitiateCloses(int dataLength) {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            byte[] welcome = client.welcome(hello(h, client));
            byte[] initiate = client.initiate(welcome, property("Socket-Type", ascii("PUSH")), server.publicKey());
            byte[] body = Arrays.copyOfRange(initiate, initiate[0] == 4 ? 2 : 9, initiate.length);
            h.feed(command("INITIATE", Arrays.copyOfRange(body, 9, 9 + dataLength)));
            assertReason(h, "malformed INITIATE");
        }
    }

    @Test
    void initiateWithACookieNotOfThisConnectionCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            byte[] welcome = client.welcome(hello(h, client));
            welcome[32 + 20] ^= 1;
            h.feed(client.initiate(welcome, property("Socket-Type", ascii("PUSH")), server.publicKey()));
            assertReason(h, "cookie does not open");
        }
    }

    @Test
    void vouchForAnotherServerCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            byte[] welcome = client.welcome(hello(h, client));
            h.feed(client.initiate(welcome, property("Socket-Type", ascii("PUSH")), ZmqCurve.keyPair().publicKey()));
            assertReason(h, "vouch names another");
        }
    }

    @Test
    void metadataAnnouncingMoreThanItCarriesCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            byte[] welcome = client.welcome(hello(h, client));
            byte[] lying = concat(new byte[] {11}, ascii("Socket-Type"), new byte[] {0, 0, 0, 100}, ascii("PUSH"));
            h.feed(client.initiate(welcome, lying, server.publicKey()));
            assertReason(h, "announces 100 B where 4 B remain");
        }
    }

    @Test
    void messageBeforeReadyCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            hello(h, client);
            h.feed(ZmtpWire.message(ascii("early"), false));
            assertReason(h, "before the handshake completed");
        }
    }

    @Test
    void messageCommandBeforeInitiateCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            hello(h, client);
            h.feed(command("MESSAGE", new byte[40]));
            assertReason(h, "unexpected command MESSAGE");
        }
    }

    @Test
    void flippedBitInAMessageBoxCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            assertNotNull(client.ready(handshake(h, client)));
            byte[] m = client.message(0, ascii("payload"));
            m[m.length - 3] ^= 0x10;
            h.feed(m);
            assertReason(h, "bad MAC");
            assertTrue(h.listener.frames().isEmpty(), "nothing of the forged box reached the socket");
        }
    }

    @Test
    void replayedMessageCloses() {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            assertNotNull(client.ready(handshake(h, client)));
            byte[] m = client.message(0, ascii("once"));
            h.feed(m);
            h.feed(m);
            assertReason(h, "not above the last one");
            assertEquals(java.util.List.of("once"), h.listener.frameTexts());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8, 16, 31, 32})
    void messageOfHostileLengthCloses(int length) {
        CurveTestClient client = new CurveTestClient(server.publicKey());
        try (EngineHarness h = new EngineHarness(serverOptions(null))) {
            assertNotNull(client.ready(handshake(h, client)));
            byte[] body = client.messageBody(0, new byte[0], 5);
            h.feed(ZmtpWire.message(Arrays.copyOf(body, length), false));
            assertTrue(h.listener.closedReason().contains("MESSAGE"), h.listener.closedReason());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void nullWithAZapDomainAsksByAddressAndRefuses() {
        ZmtpOptions o = new ZmtpOptions(SocketType.PULL, new byte[0], -1, 0, 0, 0, 1000, true,
                new ZmtpSecurity("NULL", false, new byte[0], new byte[0], "dom", zap));
        try (EngineHarness h = new EngineHarness(o)) {
            assertArrayEquals(greeting(3, 1, "NULL", true), h.written());
            h.feed(concat(greeting(3, 1, "NULL", false), ZmtpWire.readyOf("PUSH")));
            assertArrayEquals(new byte[0], h.written(), "no READY before ZAP answers");
            assertEquals("NULL", zap.requests.get(0).mechanism());
            assertEquals("dom", zap.requests.get(0).domain());
            assertTrue(zap.requests.get(0).credentials().isEmpty());
            zap.answer("400", "");
            h.channel.runPendingTasks();
            assertArrayEquals(command("ERROR", concat(new byte[] {3}, ascii("400"))), h.written());
            assertTrue(reason(h).contains("ZAP 400"), h.listener.closedReason());
        }
    }

    @Test
    void nullWithAZapDomainIsReadyOnceAllowed() {
        ZmtpOptions o = new ZmtpOptions(SocketType.PULL, new byte[0], -1, 0, 0, 0, 1000, true,
                new ZmtpSecurity("NULL", false, new byte[0], new byte[0], "dom", zap));
        try (EngineHarness h = new EngineHarness(o)) {
            h.written();
            h.feed(concat(greeting(3, 1, "NULL", false), ZmtpWire.readyOf("PUSH")));
            zap.answer("200", "bob");
            h.channel.runPendingTasks();
            assertArrayEquals(ZmtpWire.readyOf("PULL"), h.written());
            assertEquals(1, h.listener.readyCount(), () -> "closed: " + h.listener.closedReasons());
            assertArrayEquals(ascii("bob"), h.listener.peer().properties().get("User-Id"));
        }
    }

    @Test
    void curveWithoutKeysIsRefusedUpFront() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new ZmtpSecurity("CURVE", true, new byte[0], new byte[0], "", null, null));
        assertTrue(e.getMessage().contains("curve"), e.getMessage());
        assertNull(ZmtpSecurity.NULL.curve());
    }
}
