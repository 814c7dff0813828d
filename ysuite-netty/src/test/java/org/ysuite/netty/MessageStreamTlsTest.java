package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.netty.MessageStreamEndsTest.within;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link MessageStreamBuilder#tls}: messages both ways over TLS on real loopback TCP (epoll and
 * NIO), mutual authentication, and the refusals: an untrusted server, a certificate for another
 * host, a plain client on a TLS port, a client certificate of another authority. Certificates are
 * made in memory ({@link TestPki}). Every wait is bounded ({@link MessageStreamEndsTest#within},
 * future timeouts); none waits for time to pass.
 */
@Timeout(120)
class MessageStreamTlsTest {

    private static final TestPki.Identity CA = TestPki.ca("ysuite test CA");
    private static final TestPki.Identity OTHER_CA = TestPki.ca("another CA");
    private static final TestPki.Identity SERVER = TestPki.server(CA, "localhost", "127.0.0.1");
    private static final TestPki.Identity CLIENT = TestPki.client(CA, "ysuite client");
    private static final TestPki.Identity OTHER_CLIENT = TestPki.client(OTHER_CA, "stranger");

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private MultiThreadIoEventLoopGroup group;

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (group != null) {
            Transport.shutdown(group);
        }
    }

    static SslContext serverContext(TestPki.Identity id, ClientAuth auth) throws Exception {
        SslContextBuilder b = SslContextBuilder.forServer(id.key(), id.cert()).sslProvider(SslProvider.JDK);
        if (auth != ClientAuth.NONE) {
            b.trustManager(CA.cert()).clientAuth(auth);
        }
        return b.build();
    }

    static SslContext clientContext(TestPki.Identity trusted, TestPki.Identity own) throws Exception {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(trusted.cert());
        if (own != null) {
            b.keyManager(own.key(), own.cert());
        }
        return b.build();
    }

    /** A server whose accepted streams (built by {@code settings}) land in {@code accepted}. */
    private Channel server(Transport t, UnaryOperator<MessageStreamBuilder> settings, BlockingQueue<MessageStream> accepted)
            throws InterruptedException {
        Channel ch = new ServerBootstrap().group(group).channel(t.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        MessageStream s = settings.apply(MessageStream.builder()).attach(c);
                        synchronized (toClose) {
                            toClose.add(s);
                        }
                        accepted.add(s);
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        toClose.add(() -> ch.close().sync());
        return ch;
    }

    /** A client stream (built by {@code settings}) connecting to {@code server}. */
    private MessageStream client(Transport t, UnaryOperator<MessageStreamBuilder> settings, Channel server)
            throws Exception {
        CompletableFuture<MessageStream> made = new CompletableFuture<>();
        new Bootstrap().group(group).channel(t.clientChannel())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        made.complete(settings.apply(MessageStream.builder()).attach(c));
                    }
                }).connect(server.localAddress());
        MessageStream s = made.get(10, TimeUnit.SECONDS);
        synchronized (toClose) {
            toClose.add(s);
        }
        return s;
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static byte[] receive(MessageStream s) throws Exception {
        byte[] buf = new byte[s.maxMessageLength()];
        int n = within(() -> s.receive(buf));
        assertTrue(n >= 0, "the stream ended instead of delivering a message");
        return Arrays.copyOf(buf, n);
    }

    /** The stream's end: the IOException its reader gets (a clean end, -1, fails the test). */
    private static IOException failure(MessageStream s) throws Exception {
        byte[] buf = new byte[s.maxMessageLength()];
        return assertThrows(IOException.class, () -> within(() -> s.receive(buf)));
    }

    private static void assertTlsFailure(IOException e) {
        assertTrue(e.getMessage().startsWith("TLS handshake with ") && e.getMessage().contains(" failed: "),
                "not a TLS handshake failure: " + e.getMessage());
    }

    // ---- messages over TLS -----------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void messagesBothWaysIncludingOneMebibyte(Transport t) throws Exception {
        group = t.newGroup();
        SslContext sctx = serverContext(SERVER, ClientAuth.NONE);
        SslContext cctx = clientContext(CA, null);
        int big = 1 << 20;
        UnaryOperator<MessageStreamBuilder> large =
                b -> b.outboundWindow(1 << 22).inboundWindow(1 << 22).maxMessageLength(big);
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> large.apply(b).tls(sctx), accepted);
        MessageStream client = client(t, b -> large.apply(b).tls(cctx), server);
        // Sent at once: they wait for the handshake in the window.
        MessageWriter cw = client.newWriter();
        byte[] small = pattern(100, 1);
        byte[] mib = pattern(big, 2);
        cw.send(small, 0, small.length);
        cw.send(mib, 0, mib.length);
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "no connection accepted");
        assertArrayEquals(small, receive(peer));
        assertArrayEquals(mib, receive(peer));
        MessageWriter sw = peer.newWriter();
        byte[] back = pattern(big, 3);
        sw.send(back, 0, back.length);
        sw.send(small, 0, small.length);
        assertArrayEquals(back, receive(client));
        assertArrayEquals(small, receive(client));
        SslHandler tls = (SslHandler) client.channel().pipeline().first();
        assertEquals(StreamTls.HANDLER_NAME, client.channel().pipeline().names().get(0));
        assertTrue(tls.engine().getSession().getProtocol().startsWith("TLS"), tls.engine().getSession().getProtocol());
    }

    @Test
    void mutualAuthenticationAccepted() throws Exception {
        Transport t = Transport.NIO;
        group = t.newGroup();
        SslContext sctx = serverContext(SERVER, ClientAuth.REQUIRE);
        SslContext cctx = clientContext(CA, CLIENT);
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> b.tls(sctx), accepted);
        MessageStream client = client(t, b -> b.tls(cctx), server);
        client.newWriter().send(new byte[] {7}, 0, 1);
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "no connection accepted");
        assertArrayEquals(new byte[] {7}, receive(peer));
        SslHandler tls = peer.channel().pipeline().get(SslHandler.class);
        Certificate[] seen = tls.engine().getSession().getPeerCertificates();
        assertEquals(CLIENT.cert(), seen[0], "the server saw another client certificate");
        peer.newWriter().send(new byte[] {8}, 0, 1);
        assertArrayEquals(new byte[] {8}, receive(client));
    }

    @Test
    void closeDuringTheHandshakeSendsWhatWasFlushedFirst() throws Exception {
        Transport t = Transport.NIO;
        group = t.newGroup();
        SslContext sctx = serverContext(SERVER, ClientAuth.NONE);
        SslContext cctx = clientContext(CA, null);
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> b.tls(sctx), accepted);
        MessageStream client = client(t, b -> b.tls(cctx), server);
        client.newWriter().send(new byte[] {4, 2}, 0, 2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!client.channel().isActive()) { // connected: the handshake begins
            assertTrue(System.nanoTime() < deadline, "the client did not connect in 30 s");
            Thread.onSpinWait();
        }
        client.close(); // most likely before the handshake has finished
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "no connection accepted");
        assertArrayEquals(new byte[] {4, 2}, receive(peer));
        byte[] buf = new byte[16];
        assertEquals(-1, (int) within(() -> peer.receive(buf)));
    }

    // ---- refusals --------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void clientWithoutTheAuthorityRefusesTheServer(Transport t) throws Exception {
        group = t.newGroup();
        SslContext sctx = serverContext(SERVER, ClientAuth.NONE);
        SslContext cctx = clientContext(OTHER_CA, null); // trusts another authority only
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> b.tls(sctx), accepted);
        MessageStream client = client(t, b -> b.tls(cctx), server);
        MessageWriter w = client.newWriter();
        w.send(new byte[] {1}, 0, 1); // waits for the handshake, which fails
        IOException e = failure(client);
        assertTlsFailure(e);
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), "the message names no peer: " + e.getMessage());
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "no connection accepted");
        failure(peer); // the server's side of the refused connection ends with a failure too
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void refusedHandshakesLeaveNoDescriptor(Transport t) throws Exception {
        group = t.newGroup();
        SslContext sctx = serverContext(SERVER, ClientAuth.NONE);
        SslContext cctx = clientContext(OTHER_CA, null);
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> b.tls(sctx), accepted);
        int rounds = 20;
        refusedHandshake(t, cctx, server, accepted); // warms the loop and the classes up
        int before = MessageStreamEndsTest.openFds();
        for (int i = 0; i < rounds; i++) {
            refusedHandshake(t, cctx, server, accepted);
        }
        int after = MessageStreamEndsTest.openFds();
        assertTrue(after - before < rounds / 2, "descriptors grew from " + before + " to " + after
                + " over " + rounds + " refused handshakes");
    }

    private void refusedHandshake(Transport t, SslContext cctx, Channel server, BlockingQueue<MessageStream> accepted)
            throws Exception {
        MessageStream client = client(t, b -> b.tls(cctx), server);
        assertTlsFailure(failure(client));
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "no connection accepted");
        failure(peer);
        client.close();
        peer.close();
    }

    @Test
    void hostnameVerificationRefusesACertificateForAnotherHost() throws Exception {
        Transport t = Transport.NIO;
        group = t.newGroup();
        TestPki.Identity elsewhere = TestPki.server(CA, "elsewhere.example", "192.0.2.1");
        SslContext sctx = serverContext(elsewhere, ClientAuth.NONE);
        SslContext cctx = clientContext(CA, null); // trusts the issuer: only the name is wrong
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> b.tls(sctx), accepted);
        MessageStream client = client(t, b -> b.tls(cctx), server);
        IOException e = failure(client);
        assertTlsFailure(e);
        assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
        MessageStream refused = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(refused, "no connection accepted");
        failure(refused); // the server's side of it ends too

        // The explicit opt-out accepts the same certificate (its issuer is still checked).
        MessageStream insecure = client(t, b -> b.tls(cctx).insecureNoHostnameVerification(), server);
        insecure.newWriter().send(new byte[] {5}, 0, 1);
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "the insecure client's connection was not accepted");
        assertArrayEquals(new byte[] {5}, receive(peer));
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void plainClientOnATlsPortIsDroppedAndTheServerServesOthers(Transport t) throws Exception {
        group = t.newGroup();
        SslContext sctx = serverContext(SERVER, ClientAuth.NONE);
        SslContext cctx = clientContext(CA, null);
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> b.tls(sctx), accepted);
        MessageStream plain = client(t, UnaryOperator.identity(), server);
        plain.newWriter().send(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 0, 8);
        MessageStream refused = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(refused, "no connection accepted");
        assertTlsFailure(failure(refused));
        byte[] buf = new byte[16];
        int end;
        try {
            end = within(() -> plain.receive(buf));
        } catch (IOException e) {
            end = -1; // a reset is as good an end as a close
        }
        assertEquals(-1, end, "the plain client received a message");

        MessageStream good = client(t, b -> b.tls(cctx), server);
        good.newWriter().send(new byte[] {9}, 0, 1);
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "the good client's connection was not accepted");
        assertArrayEquals(new byte[] {9}, receive(peer));
    }

    @Test
    void clientCertificateOfAnotherAuthorityRefusedUnderRequire() throws Exception {
        Transport t = Transport.NIO;
        group = t.newGroup();
        SslContext sctx = serverContext(SERVER, ClientAuth.REQUIRE);
        // Trusts the server; offers its own certificate, of another authority, even though the
        // server's list of authorities does not name it (the JDK's own key manager would offer none).
        SslContext cctx = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(CA.cert())
                .keyManager(new AlwaysOffer(OTHER_CLIENT)).build();
        BlockingQueue<MessageStream> accepted = new LinkedBlockingQueue<>();
        Channel server = server(t, b -> b.tls(sctx), accepted);
        MessageStream client = client(t, b -> b.tls(cctx), server);
        client.newWriter().send(new byte[] {1}, 0, 1);
        MessageStream peer = accepted.poll(30, TimeUnit.SECONDS);
        assertNotNull(peer, "no connection accepted");
        IOException e = failure(peer); // the server never delivers the message
        assertTlsFailure(e);
        assertTrue(e.getMessage().contains("PKIX path"), "not refused for its issuer: " + e.getMessage());
        // The client's stream ends too: under TLS 1.3 its own handshake completed before the
        // server's alert, so its failure is the alert ("connection failed: … certificate_unknown").
        assertTrue(failure(client).getMessage().contains("certificate_unknown"));
    }

    /** A client key manager that offers {@code id}'s certificate whatever authorities the server names. */
    private static final class AlwaysOffer extends javax.net.ssl.X509ExtendedKeyManager {
        private final TestPki.Identity id;

        AlwaysOffer(TestPki.Identity id) {
            this.id = id;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                                              javax.net.ssl.SSLEngine engine) {
            return "id";
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket s) {
            return "id";
        }

        @Override
        public java.security.cert.X509Certificate[] getCertificateChain(String alias) {
            return new java.security.cert.X509Certificate[] {id.cert()};
        }

        @Override
        public java.security.PrivateKey getPrivateKey(String alias) {
            return id.key();
        }

        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return new String[] {"id"};
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket s) {
            return null;
        }
    }
}
