package org.ysuite.zmq.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.interop.Interop.assertMessage;
import static org.ysuite.zmq.interop.Interop.bytes;
import static org.ysuite.zmq.interop.Interop.text;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.ZmqSocket;

/**
 * Connections to libzmq 4.3 (pyzmq, {@link PyPeer}) that go quiet, stall, die or outlive the
 * socket: heartbeats keep a quiet connection up and drop a stopped peer (SIGSTOP), a peer killed
 * mid-stream loses only what it had not written (nothing is duplicated) and a restarted one is
 * reconnected to, and close's linger is bounded, or unbounded and then delivers everything.
 */
class LibzmqResilienceTest extends LibzmqTest {

    /** A quiet period, the subject of the heartbeat test: many heartbeat intervals and timeouts long. */
    private static final long QUIET_MS = 2_000;

    /**
     * Both sides ping every 50 ms and give up after 300 ms without traffic; through a quiet period of
     * many timeouts neither drops the connection (each answers the other's PING), and it still carries
     * a message. Broken PING/PONG handling fails this within the first 300 ms.
     */
    @Test
    void heartbeatsKeepAQuietConnectionUp() throws Exception {
        ZmqSocket push = Interop.bounded(ctx.socket(SocketType.PUSH));
        Events events = new Events();
        push.setEventListener(events);
        push.setHeartbeatInterval(50);
        push.setHeartbeatTimeout(300);
        push.bind("tcp://127.0.0.1:0");
        PyPeer pull = peer("PULL", false, push.lastEndpoint(), "HEARTBEAT_IVL=50", "HEARTBEAT_TIMEOUT=300");
        Interop.End y = Interop.of(push);
        y.send(bytes("before"));
        assertMessage(pull.receive(), bytes("before"));
        events.assertNoneEndWithin(QUIET_MS); // the quiet period under test: no drop, on our side, all through it
        y.send(bytes("after"));
        assertMessage(pull.receive(), bytes("after"));
        assertEquals(List.of(), events.endedSoFar(), "ysuite dropped the quiet connection");
        List<String> py = pull.events();
        assertFalse(py.contains("DISCONNECTED"), "libzmq dropped the quiet connection: " + py);
    }

    /** A peer that stops answering (SIGSTOP: its socket stays open) is dropped by ysuite's heartbeat timeout. */
    @Test
    void heartbeatsDropAStoppedPeer() throws Exception {
        ZmqSocket pull = Interop.bounded(ctx.socket(SocketType.PULL));
        Events events = new Events();
        pull.setEventListener(events);
        pull.setHeartbeatInterval(50);
        pull.setHeartbeatTimeout(300);
        pull.bind("tcp://127.0.0.1:0");
        PyPeer push = peer("PUSH", false, pull.lastEndpoint());
        push.send(bytes("alive"));
        assertMessage(Interop.of(pull).receive(), bytes("alive"));
        events.clear();
        push.signal("STOP");
        events.await(Events::ended, "connection dropped by the heartbeat timeout");
    }

    /**
     * A libzmq PUSH killed (SIGKILL) while sending: ysuite's PULL gets a prefix of its sequence, in
     * order and without duplicates; what it had queued but not written is lost (libzmq keeps no
     * copy). A second peer's whole sequence then arrives exactly once.
     */
    @Test
    void peerKilledMidStream() throws Exception {
        ZmqSocket pull = Interop.bounded(ctx.socket(SocketType.PULL));
        Events events = new Events();
        pull.setEventListener(events);
        pull.bind("tcp://127.0.0.1:0");
        PyPeer first = peer("PUSH", false, pull.lastEndpoint());
        events.await(e -> e.kind() == ZmqEvent.Kind.CONNECTED, "the first peer's connection");
        // under ysuite's receive mark (1000): its engine reads on to the end of stream (at the mark it would
        // stop reading, as libzmq's does, and see the disconnection only once the application drains)
        first.sendSequence(0, 500);
        events.clear();
        first.kill();
        events.await(Events::ended, "the killed peer's disconnection");
        PyPeer second = peer("PUSH", false, pull.lastEndpoint());
        second.sendSequence(1_000_000, 1_001_000);
        List<Long> fromFirst = new ArrayList<>();
        List<Long> fromSecond = new ArrayList<>();
        Interop.End y = Interop.of(pull);
        while (fromSecond.size() < 1000) {
            long n = Long.parseLong(text(y.receive().get(0)));
            (n >= 1_000_000 ? fromSecond : fromFirst).add(n);
        }
        for (List<byte[]> m; (m = y.receive(0)) != null; ) {
            fromFirst.add(Long.parseLong(text(m.get(0))));
        }
        for (int i = 0; i < fromFirst.size(); i++) {
            assertEquals(i, fromFirst.get(i), "the killed peer's messages: not a prefix of its sequence");
        }
        for (int i = 0; i < fromSecond.size(); i++) {
            assertEquals(1_000_000 + i, fromSecond.get(i), "the second peer's messages");
        }
    }

    /**
     * ysuite's PUSH connected to a libzmq PULL that is killed and restarted on the same port: ysuite
     * reconnects, and what it sends after the restart arrives exactly once, nothing from before
     * again (what it had written into the dead connection is lost with it).
     */
    @Test
    void reconnectsToARestartedPeer() throws Exception {
        PyPeer first = peer("PULL", true, "tcp://127.0.0.1:*");
        String endpoint = first.endpoint();
        ZmqSocket push = Interop.bounded(ctx.socket(SocketType.PUSH));
        Events events = new Events();
        push.setEventListener(events);
        push.setReconnectInterval(50);
        push.connect(endpoint);
        Interop.End y = Interop.of(push);
        for (int i = 0; i < 10; i++) {
            y.send(bytes(Integer.toString(i)));
        }
        for (int i = 0; i < 10; i++) {
            assertMessage(first.receive(), bytes(Integer.toString(i)));
        }
        events.clear();
        first.kill();
        events.await(Events::ended, "the killed peer's disconnection");
        // ysuite's PUSH sends to handshaked peers only (libzmq's would queue for the endpoint meanwhile)
        PyPeer second = peer("PULL", true, endpoint);
        for (int i = 10; i < 20; i++) {
            y.send(bytes(Integer.toString(i)));
        }
        for (int i = 10; i < 20; i++) {
            assertMessage(second.receive(), bytes(Integer.toString(i)));
        }
        assertEquals(null, second.receive(200), "a message arrived twice");
    }

    /** With an unbounded linger, close returns only after every message queued for a live peer was written. */
    @Test
    void unboundedLingerDeliversEverything() throws Exception {
        PyPeer pull = peer("PULL", true, "tcp://127.0.0.1:*");
        ZmqSocket push = Interop.bounded(ctx.socket(SocketType.PUSH));
        push.setLinger(-1);
        push.connect(pull.endpoint());
        for (int i = 0; i < 500; i++) {
            assertTrue(push.send(bytes(Integer.toString(i)), 0));
        }
        push.close();
        for (int i = 0; i < 500; i++) {
            assertMessage(pull.receive(), bytes(Integer.toString(i)));
        }
    }

    /** With a bounded linger and a peer that never comes, close returns (within a generous failure bound). */
    @Test
    void boundedLingerEndsClose() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort(); // closed again: nothing listens there
        }
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.setLinger(200);
        push.connect("tcp://127.0.0.1:" + port);
        for (int i = 0; i < 10; i++) {
            push.send(bytes("never delivered"), ZmqSocket.DONTWAIT);
        }
        long start = System.nanoTime();
        push.close();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S),
                "close with a 200 ms linger took " + ms + " ms");
    }
}
