package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CURVE between ysuite sockets over tcp: messages both ways, the options by name and in Java, a client
 * trusting another server key never attached, ZAP refusing a CURVE key and a NULL peer by address, and
 * CURVE without keys refused at bind/connect.
 */
class CurveSecurityTest {

    private final ZmqContext ctx = ZmqContext.create();

    @AfterEach
    void close() {
        ctx.close();
    }

    private static final class Events implements ZmqEventListener {
        final LinkedBlockingQueue<ZmqEvent> queue = new LinkedBlockingQueue<>();

        @Override
        public void event(ZmqEvent e) {
            queue.add(e);
        }

        ZmqEvent await(ZmqEvent.Kind kind) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                ZmqEvent e = queue.poll(left, TimeUnit.NANOSECONDS);
                if (e != null && e.kind() == kind) {
                    return e;
                }
            }
            throw new AssertionError("no " + kind + " within 30 s");
        }
    }

    private ZmqSocket server(SocketType type, ZmqCurve.KeyPair keys) {
        ZmqSocket s = ctx.socket(type);
        s.setLinger(0);
        s.setReceiveTimeout(30_000);
        s.setOption("CURVE_SERVER", true);
        s.setOption("ZMQ_CURVE_SECRETKEY", keys.secretKeyZ85());
        s.bind("tcp://127.0.0.1:0");
        return s;
    }

    private ZmqSocket client(SocketType type, byte[] serverKey, String endpoint) {
        ZmqSocket s = ctx.socket(type);
        s.setLinger(0);
        s.setReceiveTimeout(30_000);
        s.setCurveKeyPair(ZmqCurve.keyPair());
        s.setCurveServerKey(serverKey);
        s.connect(endpoint);
        return s;
    }

    @Test
    void dealerRouterBothWays() {
        ZmqCurve.KeyPair keys = ZmqCurve.keyPair();
        ZmqSocket router = server(SocketType.ROUTER, keys);
        ZmqSocket dealer = client(SocketType.DEALER, keys.publicKey(), router.lastEndpoint());
        assertTrue(dealer.send("first", ZmqSocket.SNDMORE));
        assertTrue(dealer.send(new byte[3000], 0), "a long frame");
        byte[] id = router.receive(0);
        assertEquals("first", router.receiveString(0));
        assertEquals(3000, router.receive(0).length);
        router.send(id, ZmqSocket.SNDMORE);
        router.send("back", 0);
        assertEquals("back", dealer.receiveString(0));
        assertEquals("CURVE", dealer.getOption("MECHANISM"));
        assertEquals(true, router.getOption("ZMQ_CURVE_SERVER"));
        assertEquals(32, ((byte[]) dealer.getOption("CURVE_SERVERKEY")).length);
    }

    @Test
    void aClientTrustingAnotherServerKeyIsNeverAttached() throws InterruptedException {
        ZmqSocket pull = server(SocketType.PULL, ZmqCurve.keyPair());
        Events events = new Events();
        pull.setEventListener(events);
        ZmqSocket push = client(SocketType.PUSH, ZmqCurve.keyPair().publicKey(), pull.lastEndpoint());
        push.setSendTimeout(0);
        ZmqEvent e = events.await(ZmqEvent.Kind.HANDSHAKE_FAILED);
        assertTrue(e.reason().contains("HELLO box does not open"), e.reason());
        pull.setReceiveTimeout(0);
        assertNull(pull.receive(0));
    }

    @Test
    void zapRefusesAKeyNotListed() throws Exception {
        ZmqCurve.KeyPair keys = ZmqCurve.keyPair();
        ZmqCurve.KeyPair known = ZmqCurve.keyPair();
        try (ZapHandler zap = new ZapHandler(ctx, Map.of(), Set.of(known.publicKeyZ85()), Set.of())) {
            ZmqSocket pull = server(SocketType.PULL, keys);
            Events events = new Events();
            pull.setEventListener(events);
            ZmqSocket stranger = client(SocketType.PUSH, keys.publicKey(), pull.lastEndpoint());
            Events strangerEvents = new Events();
            stranger.setEventListener(strangerEvents);
            stranger.send("never seen", ZmqSocket.DONTWAIT);
            assertTrue(events.await(ZmqEvent.Kind.HANDSHAKE_FAILED).reason().startsWith("CURVE authentication failed: ZAP 400"));
            assertTrue(strangerEvents.await(ZmqEvent.Kind.HANDSHAKE_FAILED).reason().contains("peer error: 400"));
            assertEquals(1, pull.handshakeFailures(), "the refusal is counted");

            ZmqSocket friend = ctx.socket(SocketType.PUSH);
            friend.setLinger(0);
            friend.setCurveKeyPair(known);
            friend.setCurveServerKey(keys.publicKey());
            friend.connect(pull.lastEndpoint());
            friend.send("welcome", 0);
            assertEquals("welcome", pull.receiveString(0), "the first message the server sees is the friend's");
            assertTrue(zap.requests().stream().anyMatch(r -> r.get(5).equals("CURVE")
                    && r.get(6).equals(known.publicKeyZ85())), zap.requests().toString());
        }
    }

    @Test
    void nullPeersAreAskedAboutOnlyWithAZapDomain() throws Exception {
        try (ZapHandler zap = new ZapHandler(ctx, Map.of(), Set.of(), Set.of("10.9.9.9"))) {
            ZmqSocket open = ctx.socket(SocketType.PULL);
            open.setLinger(0);
            open.setReceiveTimeout(30_000);
            open.bind("tcp://127.0.0.1:0");
            ZmqSocket a = ctx.socket(SocketType.PUSH);
            a.setLinger(0);
            a.connect(open.lastEndpoint());
            a.send("no domain, no ZAP", 0);
            assertEquals("no domain, no ZAP", open.receiveString(0));
            assertTrue(zap.requests().isEmpty(), zap.requests().toString());

            ZmqSocket guarded = ctx.socket(SocketType.PULL);
            Events events = new Events();
            guarded.setEventListener(events);
            guarded.setLinger(0);
            guarded.setZapDomain("guarded");
            guarded.bind("tcp://127.0.0.1:0");
            ZmqSocket b = ctx.socket(SocketType.PUSH);
            b.setLinger(0);
            b.connect(guarded.lastEndpoint());
            b.send("refused", ZmqSocket.DONTWAIT);
            assertTrue(events.await(ZmqEvent.Kind.HANDSHAKE_FAILED).reason().contains("NULL authentication failed: ZAP 400"));
            java.util.List<String> r = zap.requests().get(0);
            assertEquals(6, r.size(), "RFC 27 request of a NULL peer: no credentials; " + r);
            assertEquals("guarded", r.get(2));
            assertEquals("127.0.0.1", r.get(3), "the peer's address");
            assertEquals("NULL", r.get(5));
        }
    }

    @Test
    void curveWithoutKeysIsRefusedAtBindAndConnect() {
        ZmqSocket s = ctx.socket(SocketType.PULL);
        s.setCurveServer(true);
        ZmqException e = assertThrows(ZmqException.class, () -> s.bind("tcp://127.0.0.1:0"));
        assertTrue(e.getMessage().contains("CURVE without keys: ZMQ_CURVE_SECRETKEY"), e.getMessage());
        ZmqSocket c = ctx.socket(SocketType.PUSH);
        c.setCurveKeyPair(ZmqCurve.keyPair());
        e = assertThrows(ZmqException.class, () -> c.connect("tcp://127.0.0.1:1"));
        assertTrue(e.getMessage().contains("ZMQ_CURVE_SERVERKEY"), e.getMessage());
        e = assertThrows(ZmqException.class, () -> c.setOption("CURVE_SERVERKEY", "too short"));
        assertTrue(e.getMessage().contains("32 bytes or 40 Z85 characters"), e.getMessage());
    }
}
