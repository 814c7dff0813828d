package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.ZmqTestSupport.awaitTrue;
import static org.ysuite.zmq.ZmqTestSupport.bind;
import static org.ysuite.zmq.ZmqTestSupport.connectedCounter;
import static org.ysuite.zmq.ZmqTestSupport.recv;
import static org.ysuite.zmq.ZmqTestSupport.recvStr;
import static org.ysuite.zmq.ZmqTestSupport.utf8;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every socket pattern's libzmq semantics, ysuite to ysuite, over each transport. */
class ZmqPatternsTest {

    static List<String> transports() {
        return List.of("inproc", "tcp", "ipc");
    }

    private ZmqContext ctx;

    @BeforeEach
    void open() {
        ctx = ZmqContext.create();
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    private ZmqSocket socket(SocketType t) {
        ZmqSocket s = ctx.socket(t);
        s.setLinger(0);
        return s;
    }

    @ParameterizedTest
    @MethodSource("transports")
    void pairBothWaysMultipartEmptyAndOneMebibyte(String transport) {
        ZmqSocket a = socket(SocketType.PAIR);
        ZmqSocket b = socket(SocketType.PAIR);
        b.connect(bind(a, transport));
        byte[] big = new byte[1 << 20];
        ThreadLocalRandom.current().nextBytes(big);
        assertTrue(b.send("one", ZmqSocket.SNDMORE));
        assertTrue(b.send(new byte[0], ZmqSocket.SNDMORE));
        assertTrue(b.send(big, 0));
        assertEquals("one", recvStr(a));
        assertTrue(a.hasReceiveMore());
        assertEquals(0, recv(a).length);
        assertTrue(a.hasReceiveMore());
        assertArrayEquals(big, recv(a));
        assertFalse(a.hasReceiveMore());
        a.send(new byte[0], 0);
        assertEquals(0, recv(b).length);
        assertFalse(b.hasReceiveMore());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void pushRoundRobinsOverPullers(String transport) {
        ZmqSocket push = socket(SocketType.PUSH);
        AtomicInteger connected = connectedCounter(push);
        String ep = bind(push, transport);
        ZmqSocket p1 = socket(SocketType.PULL);
        ZmqSocket p2 = socket(SocketType.PULL);
        p1.connect(ep);
        p2.connect(ep);
        awaitTrue(() -> connected.get() == 2, "both pullers connected");
        for (int i = 0; i < 10; i++) {
            push.send("m" + i, 0);
        }
        Set<String> first = new HashSet<>();
        Set<String> second = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            first.add(recvStr(p1));
            second.add(recvStr(p2));
        }
        assertEquals(5, first.size());
        assertEquals(5, second.size());
        assertNull(p1.receive(ZmqSocket.DONTWAIT));
        assertNull(p2.receive(ZmqSocket.DONTWAIT));
        // strict alternation: each puller got every other message
        boolean firstEven = first.contains("m0");
        for (int i = 0; i < 10; i++) {
            assertEquals(firstEven == (i % 2 == 0), first.contains("m" + i), "m" + i);
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void pullFairQueuesPushers(String transport) {
        ZmqSocket pull = socket(SocketType.PULL);
        String ep = bind(pull, transport);
        ZmqSocket a = socket(SocketType.PUSH);
        ZmqSocket b = socket(SocketType.PUSH);
        a.connect(ep);
        b.connect(ep);
        for (int i = 0; i < 10; i++) {
            a.send("a" + i, 0);
            b.send("b" + i, 0);
        }
        int fromA = 0;
        int fromB = 0;
        int nextA = 0;
        int nextB = 0;
        for (int i = 0; i < 20; i++) {
            String m = recvStr(pull);
            if (m.startsWith("a")) {
                assertEquals("a" + nextA++, m, "order per pusher");
                fromA++;
            } else {
                assertEquals("b" + nextB++, m, "order per pusher");
                fromB++;
            }
        }
        assertEquals(10, fromA);
        assertEquals(10, fromB);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void pubSubFiltersByPrefixUnsubscribesAndServesLateSubscribers(String transport) {
        ZmqSocket pub = socket(SocketType.PUB);
        String ep = bind(pub, transport);
        ZmqSocket sub = socket(SocketType.SUB);
        sub.subscribe("news");
        sub.connect(ep);
        waitForDelivery(pub, sub, "news");
        pub.send("weather:sunny", 0);
        pub.send("news:two", 0);
        assertEquals("news:two", recvStr(sub), "weather is filtered out");
        // a late subscriber, connected after the publisher started
        ZmqSocket late = socket(SocketType.SUB);
        late.subscribe("weather");
        late.connect(ep);
        waitForDelivery(pub, late, "weather");
        pub.send("news:three", ZmqSocket.SNDMORE);
        pub.send("part two", 0);
        pub.send("weather:rain", 0);
        assertEquals("news:three", recvStr(sub));
        assertTrue(sub.hasReceiveMore());
        assertEquals("part two", recvStr(sub));
        assertEquals("weather:rain", recvStr(late));
        // two subscribers of one message: each gets arrays of its own
        late.subscribe("news");
        waitForDelivery(pub, late, "news");
        while (!recvStr(sub).equals("news#fence")) {
            // the probes sub got too
        }
        pub.send("news:shared", 0);
        byte[] mine = recv(sub);
        assertEquals("news:shared", new String(mine, java.nio.charset.StandardCharsets.UTF_8));
        mine[0] = 'X';
        assertEquals("news:shared", recvStr(late));
        // unsubscribe: after it, the subscriber sees only what it still subscribes to
        sub.unsubscribe("news");
        sub.subscribe("end");
        waitForDelivery(pub, sub, "end");
        pub.send("news:four", 0);
        pub.send("end", 0);
        assertEquals("end", recvStr(sub), "news:four was not delivered after the unsubscribe");
    }

    /** Publishes {@code topic} until the subscriber has one (its subscription reached the publisher), then drains. */
    private static void waitForDelivery(ZmqSocket pub, ZmqSocket sub, String topic) {
        awaitTrue(() -> {
            pub.send(topic, 0);
            return sub.receive(ZmqSocket.DONTWAIT) != null;
        }, "subscription to " + topic + " in effect");
        String fence = topic + "#fence";
        pub.send(fence, 0);
        while (!recvStr(sub).equals(fence)) {
            // later copies of the probe, in flight before the fence (one publisher's messages keep their order)
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void xpubSeesSubscriptionsAndXsubSendsThem(String transport) {
        ZmqSocket xpub = socket(SocketType.XPUB);
        String ep = bind(xpub, transport);
        ZmqSocket xsub = socket(SocketType.XSUB);
        xsub.connect(ep);
        xsub.send(new byte[] {1, 'a', 'b'}, 0);
        assertArrayEquals(new byte[] {1, 'a', 'b'}, recv(xpub));
        xpub.send("abc", 0);
        xpub.send("xyz", 0);
        assertEquals("abc", recvStr(xsub));
        ZmqSocket sub = socket(SocketType.SUB);
        sub.subscribe("ab");
        sub.connect(ep);
        sub.subscribe("q");
        assertArrayEquals(new byte[] {1, 'q'}, recv(xpub), "ab is not new: only q is passed up");
        xsub.send(new byte[] {0, 'a', 'b'}, 0);
        sub.close();
        // both of ab's subscribers are gone, and q's only one: both cancellations are passed up, once each
        Set<String> cancelled = new HashSet<>();
        cancelled.add(java.util.Arrays.toString(recv(xpub)));
        cancelled.add(java.util.Arrays.toString(recv(xpub)));
        assertEquals(Set.of("[0, 97, 98]", "[0, 113]"), cancelled);
        assertNull(xpub.receive(ZmqSocket.DONTWAIT));
    }

    @ParameterizedTest
    @MethodSource("transports")
    void reqRepAlternateAndKeepTheEnvelope(String transport) {
        ZmqSocket rep = socket(SocketType.REP);
        String ep = bind(rep, transport);
        ZmqSocket req = socket(SocketType.REQ);
        req.connect(ep);
        assertEquals(ZmqError.EFSM, assertThrows(ZmqException.class, () -> req.receive(0)).kind());
        assertEquals(ZmqError.EFSM, assertThrows(ZmqException.class, () -> rep.send("x", 0)).kind());
        for (int i = 0; i < 3; i++) {
            req.send("hello", ZmqSocket.SNDMORE);
            req.send("" + i, 0);
            assertEquals(ZmqError.EFSM, assertThrows(ZmqException.class, () -> req.send("again", 0)).kind());
            assertEquals("hello", recvStr(rep));
            assertTrue(rep.hasReceiveMore());
            assertEquals("" + i, recvStr(rep));
            assertEquals(ZmqError.EFSM, assertThrows(ZmqException.class, () -> rep.receive(0)).kind());
            rep.send("world" + i, 0);
            assertEquals("world" + i, recvStr(req));
            assertFalse(req.hasReceiveMore());
        }
        // a REQ talking to a ROUTER: the ROUTER sees [routing id, empty delimiter, body]
        ZmqSocket router = socket(SocketType.ROUTER);
        String rep2 = bind(router, transport);
        ZmqSocket req2 = socket(SocketType.REQ);
        req2.setIdentity(utf8("client-1"));
        req2.connect(rep2);
        req2.send("ping", 0);
        assertEquals("client-1", recvStr(router));
        assertEquals(0, recv(router).length);
        assertEquals("ping", recvStr(router));
        router.send("client-1", ZmqSocket.SNDMORE);
        router.send(new byte[0], ZmqSocket.SNDMORE);
        router.send("pong", 0);
        assertEquals("pong", recvStr(req2));
    }

    @ParameterizedTest
    @MethodSource("transports")
    void dealerToRepCarriesTheEnvelopeBothWays(String transport) {
        ZmqSocket rep = socket(SocketType.REP);
        String ep = bind(rep, transport);
        ZmqSocket dealer = socket(SocketType.DEALER);
        dealer.connect(ep);
        dealer.send("hop", ZmqSocket.SNDMORE);      // an envelope frame a proxy would add
        dealer.send(new byte[0], ZmqSocket.SNDMORE); // the delimiter
        dealer.send("request", 0);
        assertEquals("request", recvStr(rep), "REP hands over the body only");
        assertFalse(rep.hasReceiveMore());
        rep.send("reply", 0);
        assertEquals("hop", recvStr(dealer), "the envelope comes back first");
        assertEquals(0, recv(dealer).length);
        assertEquals("reply", recvStr(dealer));
        assertFalse(dealer.hasReceiveMore());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void routerRoutesByIdAndHonoursMandatory(String transport) {
        ZmqSocket router = socket(SocketType.ROUTER);
        String ep = bind(router, transport);
        ZmqSocket named = socket(SocketType.DEALER);
        named.setIdentity(utf8("named"));
        named.connect(ep);
        ZmqSocket anonymous = socket(SocketType.DEALER);
        anonymous.connect(ep);
        named.send("from named", 0);
        anonymous.send("from anonymous", 0);
        byte[] idA = null;
        for (int i = 0; i < 2; i++) {
            byte[] id = recv(router);
            String body = recvStr(router);
            if (body.equals("from named")) {
                assertEquals("named", new String(id, java.nio.charset.StandardCharsets.UTF_8));
            } else {
                assertEquals("from anonymous", body);
                assertEquals(5, id.length, "a generated id is 5 bytes");
                assertEquals(0, id[0], "a generated id starts with 0");
                idA = id;
            }
        }
        router.send(idA, ZmqSocket.SNDMORE);
        router.send("to anonymous", 0);
        router.send("named", ZmqSocket.SNDMORE);
        router.send("to named", 0);
        assertEquals("to anonymous", recvStr(anonymous));
        assertEquals("to named", recvStr(named));
        // unknown id: dropped silently, or EHOSTUNREACH with routerMandatory
        router.send("nobody", ZmqSocket.SNDMORE);
        assertTrue(router.send("lost", 0));
        router.setRouterMandatory(true);
        router.send("nobody", ZmqSocket.SNDMORE);
        assertEquals(ZmqError.EHOSTUNREACH,
                assertThrows(ZmqException.class, () -> router.send("lost", 0)).kind());
        assertNull(named.receive(ZmqSocket.DONTWAIT));
    }

    @ParameterizedTest
    @MethodSource("transports")
    void pushBlocksAtTheHighWaterMarkAndResumesWhenDrained(String transport) {
        ZmqSocket pull = socket(SocketType.PULL);
        pull.setReceiveHwm(5);
        String ep = bind(pull, transport);
        ZmqSocket push = socket(SocketType.PUSH);
        push.setSendHwm(5);
        AtomicInteger connected = connectedCounter(push);
        push.connect(ep);
        awaitTrue(() -> connected.get() == 1, "connected");
        byte[] payload = new byte[64 * 1024];
        int sent = 0;
        while (push.send(payload, ZmqSocket.DONTWAIT)) {
            sent++;
            assertTrue(sent < 100_000, "the mark never stopped the sender");
        }
        assertTrue(sent >= 5, "at least the send mark was queued: " + sent);
        push.setSendTimeout(50);
        // over a network transport the kernel's buffers may still take some: a timed send ends in EAGAIN
        ZmqException timedOut = null;
        while (timedOut == null) {
            try {
                push.send(payload, 0);
                sent++;
                assertTrue(sent < 100_000, "the mark never stopped the sender");
            } catch (ZmqException e) {
                timedOut = e;
            }
        }
        assertEquals(ZmqError.EAGAIN, timedOut.kind());
        for (int i = 0; i < sent; i++) {
            assertEquals(payload.length, recv(pull).length);
        }
        push.setSendTimeout(-1);
        assertTrue(push.send("after", 0));
        assertEquals("after", recvStr(pull));
    }

    @ParameterizedTest
    @MethodSource("transports")
    void dontWaitAndTimeoutsReturnNothing(String transport) {
        ZmqSocket pull = socket(SocketType.PULL);
        bind(pull, transport);
        assertNull(pull.receive(ZmqSocket.DONTWAIT));
        assertEquals(-1, pull.receive(new byte[4], 0, 4, ZmqSocket.DONTWAIT));
        pull.setReceiveTimeout(10);
        assertNull(pull.receive(0));
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect("inproc://nobody-binds-this-" + transport);
        assertFalse(push.send("x", ZmqSocket.DONTWAIT), "no peer: would block");
    }

    @ParameterizedTest
    @MethodSource("transports")
    void receiveIntoArrayTruncatesAsZmqRecv(String transport) {
        ZmqSocket pull = socket(SocketType.PULL);
        String ep = bind(pull, transport);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(ep);
        push.send("abcdef", 0);
        byte[] buf = new byte[4];
        pull.setReceiveTimeout((int) ZmqTestSupport.BOUND_MILLIS);
        assertEquals(6, pull.receive(buf, 0, 4, 0));
        assertArrayEquals(utf8("abcd"), buf);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aSmallReceiveMarkNeverStallsTheStream(String transport) throws Exception {
        ZmqSocket pull = socket(SocketType.PULL);
        pull.setReceiveHwm(2);
        String ep = bind(pull, transport);
        int count = 200_000;
        Thread sender = new Thread(() -> {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setSendHwm(2);
            push.connect(ep);
            byte[] m = new byte[8];
            for (int i = 0; i < count; i++) {
                java.nio.ByteBuffer.wrap(m).putInt(0, i);
                push.send(m, 0);
            }
        }, "zmq-test-sender");
        sender.start();
        byte[] buf = new byte[8];
        pull.setReceiveTimeout((int) ZmqTestSupport.BOUND_MILLIS);
        for (int i = 0; i < count; i++) {
            assertEquals(8, pull.receive(buf, 0, 8, 0), "message " + i + " arrived");
            assertEquals(i, java.nio.ByteBuffer.wrap(buf).getInt(0), "in order");
        }
        sender.join(ZmqTestSupport.BOUND_MILLIS);
        assertFalse(sender.isAlive());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void pollerReportsTheReadySocket(String transport) {
        ZmqSocket a = socket(SocketType.PULL);
        ZmqSocket b = socket(SocketType.PULL);
        String ea = bind(a, transport);
        String eb = bind(b, transport);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(eb);
        try (ZmqPoller poller = new ZmqPoller()) {
            int ia = poller.register(a, ZmqPoller.POLLIN);
            int ib = poller.register(b, ZmqPoller.POLLIN);
            int ip = poller.register(push, ZmqPoller.POLLOUT);
            assertEquals(1, poller.poll(ZmqTestSupport.BOUND_MILLIS), "the push has room once connected");
            assertTrue(poller.isWritable(ip));
            push.send("to b", 0);
            awaitTrue(() -> poller.poll(ZmqTestSupport.BOUND_MILLIS) > 0 && poller.isReadable(ib), "b readable");
            assertFalse(poller.isReadable(ia));
            assertTrue(poller.isReadable(ib));
            assertEquals("to b", recvStr(b));
            assertTrue(ea.length() > 0);
        }
    }

    @Test
    void reqIsNotReadableOnAReplyWithoutTheDelimiter() {
        ZmqSocket router = socket(SocketType.ROUTER);
        ZmqSocket req = socket(SocketType.REQ);
        req.connect(bind(router, "inproc"));
        req.send("ask", 0);
        byte[] id = recv(router);
        assertEquals(0, recv(router).length);
        assertEquals("ask", recvStr(router));
        // inproc: the send puts the message in the REQ's lane before it returns
        router.send(id, ZmqSocket.SNDMORE);
        router.send("no delimiter", 0);
        try (ZmqPoller poller = new ZmqPoller()) {
            int i = poller.register(req, ZmqPoller.POLLIN);
            assertEquals(0, poller.poll(0), "a reply a receive would drop is not input");
            assertNull(req.receive(ZmqSocket.DONTWAIT));
            router.send(id, ZmqSocket.SNDMORE);
            router.send(new byte[0], ZmqSocket.SNDMORE);
            router.send("reply", 0);
            awaitTrue(() -> poller.poll(ZmqTestSupport.BOUND_MILLIS) > 0 && poller.isReadable(i), "req readable");
            byte[] reply = req.receive(ZmqSocket.DONTWAIT);
            assertEquals("reply", reply == null ? null : new String(reply, java.nio.charset.StandardCharsets.UTF_8));
            assertFalse(req.hasReceiveMore());
            assertTrue(req.send("next", 0), "the reply ended the request");
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void useAfterCloseNamesIt(String transport) {
        ZmqSocket s = socket(SocketType.PUSH);
        bind(s, transport);
        s.close();
        s.close();
        ZmqException e = assertThrows(ZmqException.class, () -> s.send("x", 0));
        assertEquals(ZmqError.ETERM, e.kind());
        assertTrue(e.getMessage().contains("after close"), e.getMessage());
        assertEquals(ZmqError.ENOTSUP, assertThrows(ZmqException.class,
                () -> socket(SocketType.PUSH).receive(0)).kind());
    }
}
