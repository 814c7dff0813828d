package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.command;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.greeting;
import static org.ysuite.zmq.wire.ZmtpWire.message;
import static org.ysuite.zmq.wire.ZmtpWire.property;
import static org.ysuite.zmq.wire.ZmtpWire.ready;
import static org.ysuite.zmq.wire.ZmtpWire.readyOf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ysuite.zmq.SocketType;

/**
 * The PLAIN handshake (ZeroMQ RFC 24) on an embedded channel, both sides, with the ZAP answer (RFC 27)
 * given by the test when it chooses: the bytes each side writes, the refusals, and hostile clients
 * (lengths past the end, a second HELLO, commands out of turn), each closing the connection with a reason
 * and leaking no buffer (the harness checks).
 */
class PlainHandshakeTest {

    /** An authenticator whose requests wait until the test answers them. */
    static final class HeldAuthenticator implements ZmtpAuthenticator {
        final List<Request> requests = new ArrayList<>();
        final List<Consumer<Reply>> replies = new ArrayList<>();
        int cancelled;

        @Override
        public Runnable authenticate(Request request, Consumer<Reply> reply) {
            requests.add(request);
            replies.add(reply);
            return () -> cancelled++;
        }

        void answer(String code, String userId) {
            replies.get(replies.size() - 1).accept(new Reply(code, code.equals("200") ? "OK" : "no",
                    ascii(userId), new byte[0]));
        }
    }

    private final HeldAuthenticator zap = new HeldAuthenticator();

    private ZmtpOptions server() {
        return new ZmtpOptions(SocketType.PULL, ascii("srv"), -1, 0, 0, 0, 1000, true,
                ZmtpSecurity.plainServer("global", zap));
    }

    private static ZmtpOptions client(String user, String pass) {
        return new ZmtpOptions(SocketType.PUSH, new byte[0], -1, 0, 0, 0, 0, false,
                ZmtpSecurity.plainClient(user, pass));
    }

    /** HELLO's data: RFC 24's username and password, each a one-byte length then the bytes. */
    static byte[] credentials(String user, String pass) {
        return concat(new byte[] {(byte) user.length()}, ascii(user), new byte[] {(byte) pass.length()}, ascii(pass));
    }

    private static byte[] error(String reason) {
        return command("ERROR", concat(new byte[] {(byte) reason.length()}, ascii(reason)));
    }

    /** A server harness that took the client's greeting and {@code hello}. */
    private EngineHarness serverAfterHello(byte[] hello) {
        EngineHarness h = new EngineHarness(server());
        assertArrayEquals(greeting(3, 1, "PLAIN", true), h.written(), "a PLAIN server's greeting: as-server 1");
        h.feed(concat(greeting(3, 1, "PLAIN", false), hello));
        return h;
    }

    @Test
    void serverAsksZapThenWelcomesAndTakesInitiate() {
        try (EngineHarness h = serverAfterHello(command("HELLO", credentials("alice", "secret")))) {
            assertArrayEquals(new byte[0], h.written(), "nothing before ZAP answers");
            assertEquals(1, zap.requests.size());
            ZmtpAuthenticator.Request r = zap.requests.get(0);
            assertEquals("global", r.domain());
            assertEquals("PLAIN", r.mechanism());
            assertArrayEquals(ascii("srv"), r.identity());
            assertArrayEquals(ascii("alice"), r.credentials().get(0));
            assertArrayEquals(ascii("secret"), r.credentials().get(1));

            zap.answer("200", "alice-id");
            h.channel.runPendingTasks();
            assertArrayEquals(command("WELCOME", new byte[0]), h.written());
            // a client claiming a User-Id of its own does not get it: only ZAP names the user
            h.feed(command("INITIATE", concat(property("Socket-Type", ascii("PUSH")),
                    property("User-Id", ascii("root")))));
            assertArrayEquals(readyOf("PULL"), h.written());
            assertEquals(1, h.listener.readyCount(), () -> "closed: " + h.listener.closedReasons());
            ZmtpPeer peer = h.listener.peer();
            assertEquals(SocketType.PUSH, peer.socketType());
            assertEquals("PLAIN", peer.mechanism());
            assertArrayEquals(ascii("alice-id"), peer.properties().get("User-Id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"300", "400", "500"})
    void refusalSendsTheStatusCodeAsLibzmqDoes(String code) {
        try (EngineHarness h = serverAfterHello(command("HELLO", credentials("mallory", "guess")))) {
            zap.answer(code, "");
            h.channel.runPendingTasks();
            assertArrayEquals(error(code), h.written());
            assertTrue(h.listener.closedReason().startsWith("authentication failed: ZAP " + code),
                    h.listener.closedReason());
            assertFalse(h.channel.isOpen());
            assertEquals(0, h.listener.readyCount());
        }
    }

    @Test
    void noAuthenticatorRefusesEveryClient() {
        ZmtpOptions o = server().withSecurity(ZmtpSecurity.plainServer("", null));
        try (EngineHarness h = new EngineHarness(o)) {
            h.written();
            h.feed(concat(greeting(3, 1, "PLAIN", false), command("HELLO", credentials("a", "b"))));
            assertArrayEquals(error("500"), h.written());
            assertTrue(h.listener.closedReason().contains("no ZAP handler"), h.listener.closedReason());
        }
    }

    @Test
    void clientSendsHelloThenInitiateAndIsReadyOnReady() {
        try (EngineHarness h = new EngineHarness(client("alice", "secret"))) {
            assertArrayEquals(greeting(3, 1, "PLAIN", false), h.written(), "a PLAIN client's greeting: as-server 0");
            h.feed(greeting(3, 1, "PLAIN", true));
            assertArrayEquals(command("HELLO", credentials("alice", "secret")), h.written());
            h.feed(command("WELCOME", new byte[0]));
            assertArrayEquals(command("INITIATE", property("Socket-Type", ascii("PUSH"))), h.written());
            h.feed(readyOf("PULL"));
            assertEquals(1, h.listener.readyCount(), () -> "closed: " + h.listener.closedReasons());
            assertEquals("PLAIN", h.listener.peer().mechanism());
        }
    }

    @Test
    void clientRefusedByZapClosesWithTheReason() {
        try (EngineHarness h = new EngineHarness(client("mallory", "guess"))) {
            h.feed(greeting(3, 1, "PLAIN", true));
            h.written();
            h.feed(error("400"));
            assertEquals("peer error: 400 (the server's ZAP handler refused this side's credentials)",
                    h.listener.closedReason());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void clientReadsLibzmq43sMalformedErrorAsTheRefusalItMeans() {
        try (EngineHarness h = new EngineHarness(client("mallory", "guess"))) {
            h.feed(greeting(3, 1, "PLAIN", false));
            h.written();
            // the bytes libzmq 4.3.4's PLAIN server sends when its ZAP handler answers 400
            h.feed(java.util.HexFormat.of().parseHex("04095e52524f5203343030"));
            assertEquals("peer error: 400 (the server's ZAP handler refused this side's credentials)",
                    h.listener.closedReason());
        }
    }

    @Test
    void clientRefusesAReadyBeforeWelcomeAndAHelloFromItsServer() {
        for (byte[] hostile : new byte[][] {readyOf("PULL"), command("HELLO", credentials("a", "b"))}) {
            try (EngineHarness h = new EngineHarness(client("alice", "secret"))) {
                h.feed(concat(greeting(3, 1, "PLAIN", false), hostile));
                assertTrue(h.listener.closedReason().startsWith("protocol error: unexpected command"),
                        h.listener.closedReason());
                assertFalse(h.channel.isOpen());
            }
        }
    }

    @Test
    void twoClientsFailAtTheHelloWhateverTheirAsServerFlags() {
        // libzmq's PLAIN server announces as-server 0: the flag is not a reason to refuse a peer
        try (EngineHarness h = new EngineHarness(client("a", "b"))) {
            h.feed(concat(greeting(3, 1, "PLAIN", false), command("HELLO", credentials("c", "d"))));
            assertTrue(h.listener.closedReason().contains("unexpected command HELLO"), h.listener.closedReason());
        }
    }

    /** HELLO data whose lengths lie, in hex: each must be refused before any byte past the command is read. */
    @ParameterizedTest
    @ValueSource(strings = {
        "",                 // no username length
        "05616c",           // a username of 5 B where 2 remain
        "03616c69",         // a username of 3 B and no password length
        "0161",             // a username and no password length
        "01610a7373",       // a password of 10 B where 2 remain
        "0161017373",       // a password of 1 B followed by an extra byte
        "ff",               // 255 B announced in an empty command
    })
    void helloWhoseLengthsLieIsAProtocolError(String hex) {
        byte[] data = java.util.HexFormat.of().parseHex(hex);
        try (EngineHarness h = serverAfterHello(command("HELLO", data))) {
            String reason = h.listener.closedReason();
            assertTrue(reason.startsWith("protocol error: malformed HELLO"), reason);
            byte[] out = h.written();
            assertEquals(0x04, out[0], "an ERROR command tells the client why");
            assertTrue(zap.requests.isEmpty(), "ZAP is not asked about a malformed HELLO");
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void secondHelloWhileZapIsAskedOrAfterWelcomeIsAProtocolError() {
        byte[] hello = command("HELLO", credentials("alice", "secret"));
        try (EngineHarness h = serverAfterHello(concat(hello, hello))) {
            assertTrue(h.listener.closedReason().contains("unexpected command HELLO"), h.listener.closedReason());
            assertEquals(1, zap.cancelled, "the pending ZAP request is cancelled");
        }
        try (EngineHarness h = serverAfterHello(hello)) {
            zap.answer("200", "alice");
            h.channel.runPendingTasks();
            h.written();
            h.feed(hello);
            assertEquals("protocol error: a second HELLO in the PLAIN handshake", h.listener.closedReason());
        }
    }

    @Test
    void commandsOutOfTurnAreProtocolErrors() {
        // WELCOME sent to a server; INITIATE before HELLO; READY instead of HELLO
        for (byte[] first : new byte[][] {command("WELCOME", new byte[0]),
                command("INITIATE", property("Socket-Type", ascii("PUSH"))), readyOf("PUSH")}) {
            try (EngineHarness h = serverAfterHello(first)) {
                String reason = h.listener.closedReason();
                assertTrue(reason.startsWith("protocol error: unexpected command"), reason);
                assertTrue(reason.endsWith("(HELLO expected)"), reason);
            }
        }
    }

    @Test
    void messageBeforeReadyIsAProtocolError() {
        try (EngineHarness h = serverAfterHello(command("HELLO", credentials("alice", "secret")))) {
            zap.answer("200", "alice");
            h.channel.runPendingTasks();
            h.written();
            h.feed(message(ascii("sneaky"), false));
            assertEquals("protocol error: message frame before the handshake completed", h.listener.closedReason());
            assertTrue(h.listener.frames().isEmpty());
        }
    }

    @Test
    void aHandlerThatNeverAnswersLeavesTheClientToTheHandshakeTimeout() {
        try (EngineHarness h = serverAfterHello(command("HELLO", credentials("alice", "secret")))) {
            h.advance(1000);
            assertTrue(h.listener.closedReason().startsWith("handshake timeout"), h.listener.closedReason());
            assertEquals(1, zap.cancelled, "the pending ZAP request is forgotten");
            zap.answer("200", "alice"); // too late: ignored
            h.channel.runPendingTasks();
            assertEquals(0, h.listener.readyCount());
            assertNull(h.listener.peer());
        }
    }
}
