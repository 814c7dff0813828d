package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.ZmqTestSupport.recvStr;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PLAIN (ZeroMQ RFC 24) between ysuite sockets over tcp, with a ZAP handler (RFC 27) in the server's
 * context: the allowed client's messages flow, a refused client is told why and never attached, the
 * server keeps serving; without a handler every client is refused, as libzmq 4.3 does.
 */
class PlainSecurityTest {

    private ZmqContext ctx;

    @BeforeEach
    void open() {
        ctx = ZmqContext.create();
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    /** A socket's events, waited on with the tests' bound. */
    static final class Seen implements ZmqEventListener {
        final BlockingQueue<ZmqEvent> queue = new LinkedBlockingQueue<>();
        final List<ZmqEvent> all = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void event(ZmqEvent e) {
            queue.add(e);
            all.add(e);
        }

        ZmqEvent await(Predicate<ZmqEvent> which, String what) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ZmqTestSupport.BOUND_MILLIS);
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                ZmqEvent e = queue.poll(left, TimeUnit.NANOSECONDS);
                if (e != null && which.test(e)) {
                    return e;
                }
            }
            throw new AssertionError("no " + what + " event; seen " + all);
        }
    }

    private ZmqSocket server(Seen events) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.setEventListener(events);
        pull.setPlainServer(true);
        pull.setZapDomain("test");
        pull.bind("tcp://127.0.0.1:0");
        return pull;
    }

    private ZmqSocket client(String endpoint, String user, String password, Seen events) {
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.setEventListener(events);
        push.setLinger(0);
        push.setPlainUsername(user);
        push.setPlainPassword(password);
        push.connect(endpoint);
        return push;
    }

    @Test
    void handlerAllowsOneUserAndRefusesAnotherWhileTheServerKeepsServing() throws Exception {
        try (ZapHandler zap = new ZapHandler(ctx, Map.of("alice", "secret"))) {
            Seen serverEvents = new Seen();
            ZmqSocket pull = server(serverEvents);
            Seen aliceEvents = new Seen();
            ZmqSocket alice = client(pull.lastEndpoint(), "alice", "secret", aliceEvents);
            alice.send("one", 0);
            assertEquals("one", recvStr(pull));

            Seen malloryEvents = new Seen();
            ZmqSocket mallory = client(pull.lastEndpoint(), "mallory", "secret", malloryEvents);
            mallory.send("never", ZmqSocket.DONTWAIT);
            ZmqEvent refused = malloryEvents.await(e -> e.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "mallory refused");
            assertTrue(refused.reason().contains("400"), refused.reason());
            ZmqEvent serverSide = serverEvents.await(e -> e.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED,
                    "the server's refusal");
            assertTrue(serverSide.reason().startsWith("authentication failed: ZAP 400 bad credentials"),
                    serverSide.reason());
            mallory.close();

            alice.send("two", 0);
            assertEquals("two", recvStr(pull), "the server keeps serving the allowed client");
            pull.setReceiveTimeout(0);
            assertEquals(null, pull.receive(0), "nothing of the refused client's came through");
            assertTrue(malloryEvents.all.stream().noneMatch(e -> e.kind() == ZmqEvent.Kind.CONNECTED),
                    "the refused client was never attached: " + malloryEvents.all);

            List<String> first = zap.requests().get(0);
            assertEquals(List.of("1.0", "1", "test", "127.0.0.1", "", "PLAIN", "alice", "(password)"), first);
        }
    }

    @Test
    void withoutAHandlerEveryClientIsRefusedAsLibzmqDoes() throws Exception {
        Seen serverEvents = new Seen();
        ZmqSocket pull = server(serverEvents);
        Seen clientEvents = new Seen();
        client(pull.lastEndpoint(), "alice", "secret", clientEvents);
        ZmqEvent e = serverEvents.await(x -> x.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "refusal");
        assertEquals("authentication failed: ZAP 500 no ZAP handler bound at inproc://zeromq.zap.01", e.reason());
        ZmqEvent c = clientEvents.await(x -> x.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "refusal");
        assertTrue(c.reason().contains("500"), c.reason());
    }

    @Test
    void aMalformedZapReplyRefusesTheClientWith500() throws Exception {
        ZmqSocket zap = ctx.socket(SocketType.REP);
        zap.setLinger(0);
        zap.bind("inproc://zeromq.zap.01");
        Seen serverEvents = new Seen();
        ZmqSocket pull = server(serverEvents);
        client(pull.lastEndpoint(), "alice", "secret", new Seen());
        assertEquals("1.0", recvStr(zap));
        byte[] id = zap.receive(0);
        while (zap.hasReceiveMore()) {
            zap.receive(0);
        }
        zap.send("1.0", ZmqSocket.SNDMORE);
        zap.send(id, ZmqSocket.SNDMORE);
        zap.send("999", 0); // three frames, and no such status code
        ZmqEvent e = serverEvents.await(x -> x.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "refusal");
        assertTrue(e.reason().startsWith("authentication failed: ZAP 500 malformed ZAP reply: 4 frames"), e.reason());
    }

    @Test
    void aNullClientAndAPlainServerDoNotMeet() throws Exception {
        try (ZapHandler zap = new ZapHandler(ctx, Map.of("alice", "secret"))) {
            Seen serverEvents = new Seen();
            ZmqSocket pull = server(serverEvents);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            push.connect(pull.lastEndpoint());
            ZmqEvent e = serverEvents.await(x -> x.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "mismatch");
            assertTrue(e.reason().contains("mechanism mismatch"), e.reason());
            assertTrue(zap.requests().isEmpty());
        }
    }

    @Test
    void optionsByLibzmqNames() {
        ZmqSocket s = ctx.socket(SocketType.REQ);
        assertEquals("NULL", s.getOption("MECHANISM"));
        s.setOption("ZMQ_PLAIN_SERVER", 1);
        assertEquals("PLAIN", s.getOption("ZMQ_MECHANISM"));
        assertEquals(true, s.getOption("PLAIN_SERVER"));
        s.setOption("PLAIN_SERVER", false);
        assertEquals("NULL", s.getOption("MECHANISM"));
        s.setOption("PLAIN_USERNAME", "alice");
        s.setOption("PLAIN_PASSWORD", "secret".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        s.setOption("ZAP_DOMAIN", "global");
        assertEquals("PLAIN", s.getOption("MECHANISM"));
        assertEquals(false, s.getOption("PLAIN_SERVER"));
        assertEquals("alice", s.getOption("PLAIN_USERNAME"));
        assertEquals("secret", s.getOption("PLAIN_PASSWORD"));
        assertEquals("global", s.getOption("ZAP_DOMAIN"));
        s.setPlainUsername("");
        assertEquals("NULL", s.getOption("MECHANISM"), "an empty username returns to NULL, as libzmq");
        ZmqException e = assertThrows(ZmqException.class, () -> s.setPlainPassword("x".repeat(256)));
        assertEquals(ZmqError.EINVAL, e.kind());
        assertTrue(e.getMessage().contains("at most 255"), e.getMessage());
        assertNotNull(s.getOption("PLAIN_PASSWORD"));
        assertFalse(s.isClosed());
    }
}
