package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.ZmqTestSupport.recvStr;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ysuite.netty.TestPki;
import org.ysuite.zmq.PlainSecurityTest.Seen;

/**
 * {@link ZmqSocket#setTls}: ZMTP inside TLS between ysuite sockets on loopback tcp, with NULL and with
 * PLAIN (ZAP) unchanged inside it, mutual authentication, hostname verification and its opt-out, and the
 * refusals (an untrusted server, a client certificate of another authority, a plain ZMTP peer on a TLS
 * port, garbage instead of a ClientHello, a peer that never starts TLS: closed by the handshake
 * interval). Certificates are made in memory by ysuite-netty's {@link TestPki}. Every wait is on an
 * event or a message, bounded by {@link ZmqTestSupport#BOUND_MILLIS} as a failure bound only.
 */
@Timeout(180)
class ZmqTlsTest {

    static final TestPki.Identity CA = TestPki.ca("ysuite zmq test CA");
    static final TestPki.Identity OTHER_CA = TestPki.ca("another CA");
    static final TestPki.Identity SERVER = TestPki.server(CA, "localhost", "127.0.0.1");
    static final TestPki.Identity CLIENT = TestPki.client(CA, "ysuite zmq client");
    static final TestPki.Identity OTHER_CLIENT = TestPki.client(OTHER_CA, "stranger");

    private ZmqContext ctx;

    @BeforeEach
    void open() {
        ctx = ZmqContext.create();
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    static SslContext serverContext(TestPki.Identity id, ClientAuth auth) throws IOException {
        SslContextBuilder b = SslContextBuilder.forServer(id.key(), id.cert()).sslProvider(SslProvider.JDK);
        if (auth != ClientAuth.NONE) {
            b.trustManager(CA.cert()).clientAuth(auth);
        }
        return b.build();
    }

    static SslContext clientContext(TestPki.Identity trusted, TestPki.Identity own) throws IOException {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(trusted.cert());
        if (own != null) {
            b.keyManager(own.key(), own.cert());
        }
        return b.build();
    }

    private ZmqSocket pull(SslContext tls, Seen events) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.setLinger(0);
        pull.setEventListener(events);
        pull.setTls(tls);
        pull.bind("tcp://127.0.0.1:0");
        return pull;
    }

    private ZmqSocket push(SslContext tls, String endpoint, Seen events) {
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.setLinger(0);
        push.setEventListener(events);
        if (tls != null) {
            push.setTls(tls);
        }
        push.connect(endpoint);
        return push;
    }

    private static int port(ZmqSocket bound) {
        return URI.create(bound.lastEndpoint()).getPort();
    }

    private static ZmqEvent handshakeFailed(Seen events, String what) throws InterruptedException {
        return events.await(e -> e.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, what);
    }

    // ---- messages over TLS -----------------------------------------------------------------------

    @Test
    void nullMechanismInsideTlsBothWaysAndTheWireIsNotZmtp() throws Exception {
        Seen serverEvents = new Seen();
        ZmqSocket pull = pull(serverContext(SERVER, ClientAuth.NONE), serverEvents);
        ZmqSocket push = push(clientContext(CA, null), pull.lastEndpoint(), new Seen());
        for (int i = 0; i < 100; i++) {
            push.send("m" + i, 0);
        }
        for (int i = 0; i < 100; i++) {
            assertEquals("m" + i, recvStr(pull));
        }
        serverEvents.await(e -> e.kind() == ZmqEvent.Kind.CONNECTED, "the TLS peer's attachment");
        assertTrue(serverEvents.all.stream().noneMatch(e -> e.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED),
                String.valueOf(serverEvents.all));
        push.close();

        // What a TLS client puts on the wire first is a TLS record (handshake, 0x16), not ZMTP's 0xFF.
        try (ServerSocket listener = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ZmqSocket tlsPush = push(clientContext(CA, null), "tcp://127.0.0.1:" + listener.getLocalPort(), new Seen());
            try (Socket s = listener.accept()) {
                int first = s.getInputStream().read();
                assertEquals(0x16, first, "not a TLS handshake record");
            }
            tlsPush.close();
        }
    }

    @Test
    void plainMechanismRunsInsideTlsUnchanged() throws Exception {
        try (ZapHandler zap = new ZapHandler(ctx, Map.of("alice", "secret"))) {
            Seen serverEvents = new Seen();
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            pull.setEventListener(serverEvents);
            pull.setPlainServer(true);
            pull.setTls(serverContext(SERVER, ClientAuth.NONE));
            pull.bind("tcp://127.0.0.1:0");
            ZmqSocket alice = ctx.socket(SocketType.PUSH);
            alice.setLinger(0);
            alice.setPlainUsername("alice");
            alice.setPlainPassword("secret");
            alice.setTls(clientContext(CA, null));
            alice.connect(pull.lastEndpoint());
            alice.send("inside TLS", 0);
            assertEquals("inside TLS", recvStr(pull));

            Seen malloryEvents = new Seen();
            ZmqSocket mallory = ctx.socket(SocketType.PUSH);
            mallory.setLinger(0);
            mallory.setEventListener(malloryEvents);
            mallory.setPlainUsername("mallory");
            mallory.setPlainPassword("guess");
            mallory.setTls(clientContext(CA, null));
            mallory.connect(pull.lastEndpoint());
            ZmqEvent refused = handshakeFailed(malloryEvents, "mallory's refusal by ZAP inside TLS");
            assertTrue(refused.reason().contains("400"), refused.reason());
            assertEquals("PLAIN", zap.requests().get(0).get(5));
        }
    }

    @Test
    void mutualAuthenticationAcceptsTheCaClientAndRefusesAnotherAuthoritys() throws Exception {
        Seen serverEvents = new Seen();
        ZmqSocket pull = pull(serverContext(SERVER, ClientAuth.REQUIRE), serverEvents);
        ZmqSocket push = push(clientContext(CA, CLIENT), pull.lastEndpoint(), new Seen());
        push.send("mutual", 0);
        assertEquals("mutual", recvStr(pull));

        // Offers a certificate of another authority even though the server does not name it.
        SslContext stranger = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(CA.cert())
                .keyManager(OTHER_CLIENT.key(), OTHER_CLIENT.cert()).build();
        ZmqSocket other = push(stranger, pull.lastEndpoint(), new Seen());
        other.send("never", ZmqSocket.DONTWAIT);
        ZmqEvent refused = handshakeFailed(serverEvents, "the stranger's refusal");
        assertTrue(refused.reason().contains("TLS handshake with "), refused.reason());
        push.send("still served", 0);
        assertEquals("still served", recvStr(pull));
        pull.setReceiveTimeout(0);
        assertNull(pull.receive(0), "the stranger's message came through");
    }

    @Test
    void aClientThatDoesNotTrustTheServerRefusesIt() throws Exception {
        ZmqSocket pull = pull(serverContext(SERVER, ClientAuth.NONE), new Seen());
        Seen clientEvents = new Seen();
        push(clientContext(OTHER_CA, null), pull.lastEndpoint(), clientEvents);
        ZmqEvent e = handshakeFailed(clientEvents, "the untrusted server's refusal");
        assertTrue(e.reason().contains("TLS handshake with ") && e.reason().contains(":" + port(pull)), e.reason());
        assertTrue(clientEvents.all.stream().noneMatch(x -> x.kind() == ZmqEvent.Kind.CONNECTED),
                String.valueOf(clientEvents.all));
    }

    @Test
    void hostnameVerificationIsOnByDefaultAndTurnsOffExplicitly() throws Exception {
        TestPki.Identity elsewhere = TestPki.server(CA, "elsewhere.example", "192.0.2.1");
        ZmqSocket pull = pull(serverContext(elsewhere, ClientAuth.NONE), new Seen());
        Seen strictEvents = new Seen();
        ZmqSocket strict = push(clientContext(CA, null), pull.lastEndpoint(), strictEvents);
        ZmqEvent e = handshakeFailed(strictEvents, "the wrong name's refusal");
        assertTrue(e.reason().contains("TLS handshake with "), e.reason());
        strict.close();

        ZmqSocket lax = ctx.socket(SocketType.PUSH);
        lax.setLinger(0);
        lax.setTls(clientContext(CA, null));
        lax.setTlsHostnameVerification(false); // the issuer is still checked: only the name is wrong
        lax.connect(pull.lastEndpoint());
        lax.send("any name", 0);
        assertEquals("any name", recvStr(pull));
    }

    @Test
    void hostnameVerificationNeedsAContextFirst() {
        ZmqSocket s = ctx.socket(SocketType.PUSH);
        ZmqException e = assertThrows(ZmqException.class, () -> s.setTlsHostnameVerification(false));
        assertEquals(ZmqError.EINVAL, e.kind());
        assertNull(s.getTls());
    }

    // ---- hostile peers on a TLS port -------------------------------------------------------------

    @Test
    void aPlainZmtpPeerOnATlsPortIsDroppedAndTlsPeersAreServed() throws Exception {
        Seen serverEvents = new Seen();
        ZmqSocket pull = pull(serverContext(SERVER, ClientAuth.NONE), serverEvents);
        Seen plainEvents = new Seen();
        ZmqSocket plain = push(null, pull.lastEndpoint(), plainEvents);
        plain.send("never", ZmqSocket.DONTWAIT);
        ZmqEvent server = handshakeFailed(serverEvents, "the plain peer's drop");
        assertTrue(server.reason().contains("TLS handshake with ") && server.reason().contains("not an SSL/TLS record"),
                server.reason());
        handshakeFailed(plainEvents, "the plain peer's own end"); // the TLS alert (ZmtpGreetingTest) or the close
        plain.close();
        ZmqSocket good = push(clientContext(CA, null), pull.lastEndpoint(), new Seen());
        good.send("good", 0);
        assertEquals("good", recvStr(pull));
        pull.setReceiveTimeout(0);
        assertNull(pull.receive(0), "the plain peer's message came through");
    }

    @Test
    void garbageInsteadOfAClientHelloIsDropped() throws Exception {
        Seen serverEvents = new Seen();
        ZmqSocket pull = pull(serverContext(SERVER, ClientAuth.NONE), serverEvents);
        byte[] garbage = new byte[512];
        new java.util.Random(7).nextBytes(garbage);
        garbage[0] = 0x16; // looks like a handshake record: the length and body are garbage
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port(pull)));
            s.getOutputStream().write(garbage);
            s.getOutputStream().flush();
            awaitClosed(s);
        }
        ZmqEvent e = handshakeFailed(serverEvents, "the garbage peer's drop");
        assertNotEquals("", e.reason());
    }

    @Test
    void aPeerThatNeverStartsTlsIsClosedAfterTheHandshakeInterval() throws Exception {
        Seen serverEvents = new Seen();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.setLinger(0);
        pull.setEventListener(serverEvents);
        pull.setHandshakeInterval(200);
        pull.setTls(serverContext(SERVER, ClientAuth.NONE));
        pull.bind("tcp://127.0.0.1:0");
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port(pull)));
            awaitClosed(s); // it sends nothing at all
        }
        ZmqEvent e = handshakeFailed(serverEvents, "the silent peer's drop");
        assertTrue(e.reason().startsWith("handshake timeout"), e.reason());
    }

    /** Reads until the server closes (end of stream or a reset); the failure bound is a read timeout. */
    static void awaitClosed(Socket s) throws IOException {
        s.setSoTimeout((int) ZmqTestSupport.BOUND_MILLIS);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        try {
            while (in.read(buf) >= 0) {
                // a TLS alert, if the server sends one
            }
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("the server kept the connection open " + ZmqTestSupport.BOUND_MILLIS + " ms", e);
        } catch (SocketException reset) {
            // closed as well
        }
    }
}
