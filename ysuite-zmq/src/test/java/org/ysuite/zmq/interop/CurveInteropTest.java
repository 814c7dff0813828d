package org.ysuite.zmq.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.Z85;
import org.ysuite.zmq.ZapHandler;
import org.ysuite.zmq.ZmqCurve;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.ZmqSocket;

/**
 * CURVE (ZeroMQ RFC 25/26) against libzmq 4.3 built with libsodium, both ways, for each socket pattern: a
 * ysuite client and a libzmq server whose keys come from libzmq's {@code zmq_curve_keypair}, and a libzmq
 * client (its keys from libzmq too) and a ysuite server whose keys ysuite made; then ZAP refusals of a
 * CURVE key on either side.
 */
class CurveInteropTest extends LibzmqTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<byte[]> receive(ZmqSocket s) {
        s.setReceiveTimeout((int) (PyPeer.WAIT_S * 1000));
        byte[] first = s.receive(0);
        if (first == null) {
            throw new AssertionError("no message within " + PyPeer.WAIT_S + " s");
        }
        List<byte[]> m = new ArrayList<>(List.of(first));
        while (s.hasReceiveMore()) {
            m.add(s.receive(0));
        }
        return m;
    }

    private static void send(ZmqSocket s, byte[]... frames) {
        for (int i = 0; i < frames.length; i++) {
            assertTrue(s.send(frames[i], i < frames.length - 1 ? ZmqSocket.SNDMORE : 0), "sent");
        }
    }

    private static String text(List<byte[]> m, int i) {
        return new String(m.get(i), StandardCharsets.UTF_8);
    }

    /** Messages both ways (where the pattern has two ways) between {@code y} and {@code p}. */
    private static void exchange(String yType, ZmqSocket y, PyPeer p) {
        switch (yType) {
            case "PUSH" -> {
                send(y, utf8("to libzmq"));
                assertEquals("to libzmq", new String(p.receive().get(0), StandardCharsets.UTF_8));
            }
            case "PULL" -> {
                p.send(utf8("from libzmq"));
                assertEquals("from libzmq", text(receive(y), 0));
            }
            case "REQ" -> {
                send(y, utf8("question"));
                assertEquals("question", new String(p.receive().get(0), StandardCharsets.UTF_8));
                p.send(utf8("answer"));
                assertEquals("answer", text(receive(y), 0));
            }
            case "REP" -> {
                p.send(utf8("question"));
                assertEquals("question", text(receive(y), 0));
                send(y, utf8("answer"));
                assertEquals("answer", new String(p.receive().get(0), StandardCharsets.UTF_8));
            }
            case "DEALER" -> {
                send(y, utf8("from dealer"));
                List<byte[]> m = p.receive();
                assertEquals("from dealer", new String(m.get(1), StandardCharsets.UTF_8));
                p.send(m.get(0), utf8("to dealer"));
                assertEquals("to dealer", text(receive(y), 0));
            }
            case "ROUTER" -> {
                p.send(utf8("from dealer"));
                List<byte[]> m = receive(y);
                assertEquals("from dealer", text(m, 1));
                send(y, m.get(0), utf8("to dealer"));
                assertEquals("to dealer", new String(p.receive().get(0), StandardCharsets.UTF_8));
            }
            case "SUB" -> {
                y.subscribe(utf8("news"));
                y.setReceiveTimeout(100);
                byte[] got = null;
                long deadline = System.nanoTime() + PyPeer.WAIT_S * 1_000_000_000L;
                while (got == null && System.nanoTime() - deadline < 0) { // until the subscription has arrived
                    p.send(utf8("news: curve"));
                    got = y.receive(0);
                }
                assertArrayEquals(utf8("news: curve"), got);
            }
            case "PUB" -> {
                p.subscribe(utf8("news"));
                List<byte[]> got = null;
                long deadline = System.nanoTime() + PyPeer.WAIT_S * 1_000_000_000L;
                while (got == null && System.nanoTime() - deadline < 0) {
                    send(y, utf8("news: curve"));
                    got = p.receive(100);
                }
                assertEquals("news: curve", new String(got.get(0), StandardCharsets.UTF_8));
            }
            case "PAIR" -> {
                send(y, utf8("ping"));
                assertEquals("ping", new String(p.receive().get(0), StandardCharsets.UTF_8));
                p.send(utf8("pong"));
                assertEquals("pong", text(receive(y), 0));
            }
            default -> throw new AssertionError(yType);
        }
    }

    @ParameterizedTest(name = "ysuite {0} client, libzmq {1} server")
    @CsvSource({"PUSH,PULL", "PULL,PUSH", "REQ,REP", "DEALER,ROUTER", "SUB,PUB", "PAIR,PAIR"})
    void ysuiteClientAgainstALibzmqServer(String yType, String pType) throws Exception {
        String[] serverKeys = PyPeer.curveKeyPair();
        PyPeer server = peer(pType, true, "tcp://127.0.0.1:*", "CURVE_SERVER=1", "CURVE_SECRETKEY=" + serverKeys[1]);
        ZmqSocket y = ctx.socket(SocketType.valueOf(yType));
        y.setLinger(0);
        y.setSendTimeout((int) (PyPeer.WAIT_S * 1000));
        y.setCurveKeyPair(ZmqCurve.keyPair());
        y.setOption("ZMQ_CURVE_SERVERKEY", serverKeys[0]);
        y.connect(server.endpoint());
        exchange(yType, y, server);
        server.awaitEvent("HANDSHAKE_SUCCEEDED"); // libzmq's monitor saw a CURVE handshake (its events come late)
    }

    @ParameterizedTest(name = "libzmq {1} client, ysuite {0} server")
    @CsvSource({"PULL,PUSH", "PUSH,PULL", "REP,REQ", "ROUTER,DEALER", "PUB,SUB", "PAIR,PAIR"})
    void libzmqClientAgainstAYsuiteServer(String yType, String pType) throws Exception {
        ZmqCurve.KeyPair serverKeys = ZmqCurve.keyPair();
        ZmqSocket y = ctx.socket(SocketType.valueOf(yType));
        y.setLinger(0);
        y.setSendTimeout((int) (PyPeer.WAIT_S * 1000));
        y.setCurveServer(true);
        y.setCurveSecretKey(serverKeys.secretKey()); // the public key is derived from it
        y.bind("tcp://127.0.0.1:0");
        String[] clientKeys = PyPeer.curveKeyPair();
        PyPeer client = peer(pType, false, y.lastEndpoint(), "CURVE_SERVERKEY=" + serverKeys.publicKeyZ85(),
                "CURVE_PUBLICKEY=" + clientKeys[0], "CURVE_SECRETKEY=" + clientKeys[1]);
        exchange(yType, y, client);
        assertEquals("CURVE", y.getOption("MECHANISM"));
    }

    @Test
    void ysuiteZapRefusesALibzmqClientsKeyAsLibzmqWould() throws Exception {
        String[] allowed = PyPeer.curveKeyPair();
        String[] refused = PyPeer.curveKeyPair();
        try (ZapHandler zap = new ZapHandler(ctx, Map.of(), Set.of(allowed[0]), Set.of())) {
            ZmqCurve.KeyPair serverKeys = ZmqCurve.keyPair();
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            Events events = new Events();
            pull.setEventListener(events);
            pull.setCurveServer(true);
            pull.setCurveKeyPair(serverKeys);
            pull.bind("tcp://127.0.0.1:0");

            PyPeer good = peer("PUSH", false, pull.lastEndpoint(), "CURVE_SERVERKEY=" + serverKeys.publicKeyZ85(),
                    "CURVE_PUBLICKEY=" + allowed[0], "CURVE_SECRETKEY=" + allowed[1]);
            good.send(utf8("allowed"));
            assertEquals("allowed", text(receive(pull), 0));

            PyPeer bad = peer("PUSH", false, pull.lastEndpoint(), "CURVE_SERVERKEY=" + serverKeys.publicKeyZ85(),
                    "CURVE_PUBLICKEY=" + refused[0], "CURVE_SECRETKEY=" + refused[1]);
            bad.send(utf8("never seen"));
            bad.awaitEvent("HANDSHAKE_FAILED_AUTH");
            ZmqEvent e = events.await(x -> x.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "the refusal");
            assertTrue(e.reason().startsWith("CURVE authentication failed: ZAP 400"), e.reason());
            good.send(utf8("still served"));
            assertEquals("still served", text(receive(pull), 0), "the refused key's message never arrives");
            assertTrue(zap.requests().stream().anyMatch(r -> r.get(6).equals(refused[0])), zap.requests().toString());
        }
    }

    @Test
    void libzmqZapRefusesAYsuiteKey() throws Exception {
        ZmqCurve.KeyPair allowed = ZmqCurve.keyPair();
        String[] serverKeys = PyPeer.curveKeyPair();
        PyPeer pull = peer("PULL", true, "tcp://127.0.0.1:*", "ZAP_KEYS=" + allowed.publicKeyZ85(),
                "CURVE_SERVER=1", "CURVE_SECRETKEY=" + serverKeys[1], "ZAP_DOMAIN=global");
        ZmqSocket good = ctx.socket(SocketType.PUSH);
        good.setLinger(0);
        good.setCurveKeyPair(allowed);
        good.setCurveServerKey(Z85.decode(serverKeys[0]));
        good.connect(pull.endpoint());
        good.send("allowed", 0);
        assertEquals("allowed", new String(pull.receive().get(0), StandardCharsets.UTF_8));

        ZmqSocket bad = ctx.socket(SocketType.PUSH);
        Events events = new Events();
        bad.setEventListener(events);
        bad.setLinger(0);
        bad.setCurveKeyPair(ZmqCurve.keyPair());
        bad.setCurveServerKey(serverKeys[0].getBytes(StandardCharsets.US_ASCII));
        bad.connect(pull.endpoint());
        ZmqEvent refused = events.await(e -> e.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "the refusal");
        assertEquals("peer error: 400 (the server's ZAP handler refused this side's credentials)", refused.reason());
        pull.awaitEvent("HANDSHAKE_FAILED_AUTH");
    }
}
