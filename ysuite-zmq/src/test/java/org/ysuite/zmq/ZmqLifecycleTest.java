package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.ZmqTestSupport.awaitTrue;
import static org.ysuite.zmq.ZmqTestSupport.bind;
import static org.ysuite.zmq.ZmqTestSupport.connectedCounter;
import static org.ysuite.zmq.ZmqTestSupport.nextEvent;
import static org.ysuite.zmq.ZmqTestSupport.recvStr;
import static org.ysuite.zmq.ZmqTestSupport.unservedEndpoint;

import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Connections over time: reconnects, linger, unbind/disconnect, events, and what close leaves behind. */
class ZmqLifecycleTest {

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc"})
    void reconnectsAfterTheBoundSideClosesAndRebinds(String transport) {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            String ep = bind(pull, transport);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            push.setReconnectInterval(10);
            push.setReconnectIntervalMax(200);
            AtomicInteger connected = connectedCounter(push);
            push.connect(ep);
            push.send("before", 0);
            assertEquals("before", recvStr(pull));
            pull.close();
            ZmqSocket again = ctx.socket(SocketType.PULL);
            again.setLinger(0);
            again.bind(ep);
            awaitTrue(() -> connected.get() == 2, "reconnected");
            push.send("after", 0);
            assertEquals("after", recvStr(again));
        }
    }

    @Test
    void lingerBoundsCloseWhenThePeerDoesNotRead() {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setReceiveHwm(1);
            pull.setLinger(0);
            String ep = bind(pull, "tcp");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setSendHwm(10);
            AtomicInteger connected = connectedCounter(push);
            push.connect(ep);
            awaitTrue(() -> connected.get() == 1, "connected");
            byte[] big = new byte[64 * 1024];
            while (push.send(big, ZmqSocket.DONTWAIT)) {
                // fill every buffer between the two
            }
            push.setLinger(100);
            // the peer never reads, so without the linger's bound this close would wait forever
            assertTimeoutPreemptively(Duration.ofMillis(ZmqTestSupport.BOUND_MILLIS), () -> push.close());
            assertTrue(push.isClosed());
        }
    }

    @Test
    void lingerDeliversWhatWasQueuedBeforeClose() {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            String ep = bind(pull, "tcp");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(ZmqTestSupport.BOUND_MILLIS > Integer.MAX_VALUE ? -1 : (int) ZmqTestSupport.BOUND_MILLIS);
            push.connect(ep);
            for (int i = 0; i < 500; i++) {
                push.send("m" + i, 0);
            }
            push.close();
            for (int i = 0; i < 500; i++) {
                assertEquals("m" + i, recvStr(pull));
            }
        }
    }

    @Test
    void closeLeavesNoThread() {
        String prefix = ZmqContext.ioThreadNamePrefix();
        ZmqContext ctx = ZmqContext.create(2);
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        String ep = bind(pull, "tcp");
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.connect(ep);
        push.send("x", 0);
        assertEquals("x", recvStr(pull));
        assertTrue(ioThreads(prefix) > 0, "the I/O threads run while the context is open");
        ctx.close();
        awaitTrue(() -> ioThreads(prefix) == 0, "no " + prefix + " thread left");
        assertTrue(pull.isClosed() && push.isClosed(), "the context closed its sockets");
        assertEquals(ZmqError.ETERM, assertThrows(ZmqException.class, () -> ctx.socket(SocketType.PUB)).kind());
    }

    private static long ioThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive()).count();
    }

    @Test
    void ipcRemovesAStaleFileAndUnlinksOnClose() throws Exception {
        Path path = Path.of("/tmp/ysuite-zmq-" + UUID.randomUUID() + ".sock");
        Files.write(path, new byte[] {1});
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            pull.bind("ipc://" + path);
            assertEquals("ipc://" + path, pull.lastEndpoint());
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            push.connect("ipc://" + path);
            push.send("over ipc", 0);
            assertEquals("over ipc", recvStr(pull));
            pull.close();
            assertFalse(Files.exists(path), "the socket file is unlinked on close");
        }
    }

    @Test
    void unbindAndDisconnectStopTraffic() {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            String ep = bind(pull, "tcp");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            List<ZmqEvent> events = new CopyOnWriteArrayList<>();
            push.setEventListener(events::add);
            push.connect(ep);
            push.send("one", 0);
            assertEquals("one", recvStr(pull));
            push.disconnect(ep);
            awaitTrue(() -> events.stream().anyMatch(e -> e.kind() == ZmqEvent.Kind.DISCONNECTED), "disconnected");
            assertFalse(push.send("two", ZmqSocket.DONTWAIT), "no peer after disconnect");
            assertEquals(ZmqError.ENOENT, assertThrows(ZmqException.class, () -> push.disconnect(ep)).kind());
            pull.unbind(ep);
            assertEquals(ZmqError.ENOENT, assertThrows(ZmqException.class, () -> pull.unbind(ep)).kind());
        }
    }

    @Test
    void anIncompatiblePeerIsRefusedWithTheReason() {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            List<ZmqEvent> events = new CopyOnWriteArrayList<>();
            pull.setEventListener(events::add);
            String ep = bind(pull, "tcp");
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            pub.setLinger(0);
            pub.connect(ep);
            awaitTrue(() -> events.stream().anyMatch(e -> e.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED),
                    "handshake failed: " + events);
            ZmqEvent e = events.stream().filter(x -> x.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED).findFirst().get();
            assertTrue(e.reason().contains("PUB"), e.reason());
        }
    }

    @Test
    void aMessageOverMaxMessageSizeDropsThePeer() {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            pull.setMaxMessageSize(1000);
            List<ZmqEvent> events = new CopyOnWriteArrayList<>();
            pull.setEventListener(events::add);
            String ep = bind(pull, "tcp");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            push.connect(ep);
            push.send(new byte[1000], 0);
            assertEquals(1000, ZmqTestSupport.recv(pull).length);
            push.send(new byte[1001], 0);
            awaitTrue(() -> events.stream().anyMatch(e -> e.kind() == ZmqEvent.Kind.PROTOCOL_ERROR
                    || e.kind() == ZmqEvent.Kind.DISCONNECTED), "dropped: " + events);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp", "ipc"})
    void connectMayComeBeforeBind(String transport) {
        try (ZmqContext ctx = ZmqContext.create()) {
            String ep = unservedEndpoint(ctx, transport);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            push.setReconnectInterval(10);
            List<ZmqEvent> events = new CopyOnWriteArrayList<>();
            push.setEventListener(events::add);
            push.connect(ep);
            if (!transport.equals("inproc")) {
                awaitTrue(() -> events.stream().anyMatch(e -> e.kind() == ZmqEvent.Kind.CONNECT_FAILED),
                        "a failed attempt: " + events);
            }
            assertFalse(push.send("early", ZmqSocket.DONTWAIT), "no peer yet");
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            pull.bind(ep);
            push.send("late bind", 0);
            assertEquals("late bind", recvStr(pull));
        }
    }

    /**
     * A peer that connected, sent and left while the application was not calling the socket is still
     * read: its messages arrived, and a receive after its departure returns them (libzmq keeps a
     * terminated pipe until it is read).
     */
    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp", "ipc"})
    void aPeerThatLeftBeforeTheSocketLookedIsStillRead(String transport) throws Exception {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            BlockingQueue<ZmqEvent> events = new LinkedBlockingQueue<>();
            pull.setEventListener(events::add);
            String ep = bind(pull, transport);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(-1);
            push.connect(ep);
            for (int i = 0; i < 3; i++) {
                push.send("sent " + i, 0);
            }
            push.close(); // returns once the three are written
            if (!transport.equals("inproc")) {
                while (nextEvent(events, "the pusher's departure").kind() != ZmqEvent.Kind.DISCONNECTED) {
                    // its CONNECTED event comes first
                }
            }
            for (int i = 0; i < 3; i++) {
                assertEquals("sent " + i, recvStr(pull), "what the departed peer sent");
            }
        }
    }

    /**
     * A failed connect is retried once, not once per way it is reported: after several refused attempts,
     * the endpoint served at last gets one connection, and no failed attempt reads as a failed handshake.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc"})
    void refusedAttemptsLeadToOneConnection(String transport) throws Exception {
        try (ZmqContext ctx = ZmqContext.create()) {
            String ep = unservedEndpoint(ctx, transport);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            push.setReconnectInterval(5);
            BlockingQueue<ZmqEvent> events = new LinkedBlockingQueue<>();
            push.setEventListener(events::add);
            push.connect(ep);
            for (int refused = 0; refused < 8; refused++) {
                ZmqEvent e = nextEvent(events, "8 refused attempts; " + refused + " came");
                assertEquals(ZmqEvent.Kind.CONNECT_FAILED, e.kind(), "a refused attempt's only event: " + e);
            }
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            pull.bind(ep);
            ZmqEvent connected;
            do {
                connected = nextEvent(events, "the connection");
            } while (connected.kind() == ZmqEvent.Kind.CONNECT_FAILED); // attempts before the bind
            assertEquals(ZmqEvent.Kind.CONNECTED, connected.kind(), connected.toString());
            for (int i = 0; i < 100; i++) {
                push.send(Integer.toString(i), 0);
            }
            for (int i = 0; i < 100; i++) {
                assertEquals(Integer.toString(i), recvStr(pull), "one connection keeps the order");
            }
            // with a retry per report, the attempts double at each refusal: 2^8 would connect by now
            ZmqEvent more = events.poll(500, TimeUnit.MILLISECONDS);
            assertEquals(null, more, "a second connection to one endpoint");
        }
    }

    @Test
    void fdIsADescriptorClosedWithTheSocket() {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            int fd = pull.fd();
            assertTrue(fd >= 0, "fd " + fd);
            assertEquals(fd, pull.fd(), "one descriptor per socket");
            assertEquals(fd, pull.getOption("ZMQ_FD"));
            pull.close();
            assertEquals(ZmqError.ETERM, assertThrows(ZmqException.class, pull::fd).kind());
        }
    }

    @Test
    void optionsByNameMatchTheSetters() {
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket s = ctx.socket(SocketType.DEALER);
            assertEquals(1000, s.getOption("SNDHWM"));
            assertEquals(-1, s.getOption("LINGER"));
            assertEquals(30_000, s.getOption("HANDSHAKE_IVL"));
            s.setOption("ZMQ_RCVHWM", 7);
            assertEquals(7, s.getReceiveHwm());
            s.setOption("routing_id", "me");
            assertEquals("me", new String(s.getIdentity(), java.nio.charset.StandardCharsets.UTF_8));
            ZmqException e = assertThrows(ZmqException.class, () -> s.setOption("SNDHWM", -1));
            assertEquals(ZmqError.EINVAL, e.kind());
            assertTrue(e.getMessage().contains("SNDHWM") && e.getMessage().contains("at least 0"), e.getMessage());
            assertEquals(ZmqError.EINVAL, assertThrows(ZmqException.class, () -> s.setOption("NO_SUCH", 1)).kind());
            assertEquals(ZmqError.EINVAL, assertThrows(ZmqException.class, () -> s.bind("tcp://nohost")).kind());
            assertEquals(ZmqError.EPROTONOSUPPORT, assertThrows(ZmqException.class, () -> s.bind("pgm://x")).kind());
            s.setLinger(0);
        }
    }
}
