package org.ysuite.zmq.interop;

import static org.ysuite.zmq.interop.Interop.assertMessage;
import static org.ysuite.zmq.interop.Interop.bytes;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqSocket;
import org.ysuite.zmq.interop.Interop.End;

/**
 * Every socket pair with libzmq 4.3 (pyzmq in a child process, {@link PyPeer}) on the other side,
 * over tcp on loopback (PUSH/PULL and REQ/REP also over ipc), ysuite binding and libzmq connecting
 * and the reverse, ysuite in either role: multipart messages with 0 B and 1 MiB frames, subscriptions and unsubscriptions, XPUB/XSUB
 * subscription messages, routing ids, REQ/REP envelopes (also with DEALER and ROUTER standing in).
 */
class LibzmqPairsTest extends LibzmqTest {

    /**
     * Connects a ysuite socket and a libzmq peer; returns the two ends in role order (first, second).
     *
     * @param first the first role's type, second the second's; ysuiteFirst: ysuite plays first
     */
    private End[] link(SocketType first, SocketType second, boolean ysuiteFirst, boolean ysuiteBinds,
                       Consumer<ZmqSocket> ysuiteOptions, String... pyOptions) throws IOException {
        return link(first, second, ysuiteFirst, ysuiteBinds, null, ysuiteOptions, pyOptions);
    }

    /** As above, over {@code ipc} (a Unix domain socket at that path) where it is not null, else tcp. */
    private End[] link(SocketType first, SocketType second, boolean ysuiteFirst, boolean ysuiteBinds, Path ipc,
                       Consumer<ZmqSocket> ysuiteOptions, String... pyOptions) throws IOException {
        ZmqSocket y = Interop.bounded(ctx.socket(ysuiteFirst ? first : second));
        ysuiteOptions.accept(y);
        String pyType = (ysuiteFirst ? second : first).name();
        PyPeer py;
        if (ysuiteBinds) {
            y.bind(ipc == null ? "tcp://127.0.0.1:0" : "ipc://" + ipc);
            py = peer(pyType, false, y.lastEndpoint(), pyOptions);
        } else {
            py = peer(pyType, true, ipc == null ? "tcp://127.0.0.1:*" : "ipc://" + ipc, pyOptions);
            y.connect(py.endpoint());
        }
        End ye = Interop.of(y);
        return ysuiteFirst ? new End[] {ye, py} : new End[] {py, ye};
    }

    private End[] link(SocketType first, SocketType second, boolean ysuiteFirst, boolean ysuiteBinds) throws IOException {
        return link(first, second, ysuiteFirst, ysuiteBinds, s -> { }, new String[0]);
    }

    @ParameterizedTest(name = "ysuite binds: {0}")
    @ValueSource(booleans = {true, false})
    void pair(boolean ysuiteBinds) throws IOException {
        End[] e = link(SocketType.PAIR, SocketType.PAIR, true, ysuiteBinds);
        Interop.oneWay(e[0], e[1]);
        Interop.oneWay(e[1], e[0]);
    }

    @ParameterizedTest(name = "ysuite binds: {0}, ysuite pushes: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void pushPull(boolean ysuiteBinds, boolean ysuitePushes) throws IOException {
        End[] e = link(SocketType.PUSH, SocketType.PULL, ysuitePushes, ysuiteBinds);
        Interop.oneWay(e[0], e[1]);
    }

    /** ipc:// with libzmq's ipc: one Unix domain socket path, either side binding, either side sending. */
    @ParameterizedTest(name = "ysuite binds: {0}, ysuite pushes: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void pushPullOverIpc(boolean ysuiteBinds, boolean ysuitePushes, @TempDir Path dir) throws IOException {
        End[] e = link(SocketType.PUSH, SocketType.PULL, ysuitePushes, ysuiteBinds, dir.resolve("p.sock"), s -> { });
        Interop.oneWay(e[0], e[1]);
    }

    /** REQ/REP over ipc with libzmq, both ways: the envelope crosses the Unix domain socket intact. */
    @ParameterizedTest(name = "ysuite binds: {0}, ysuite requests: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void reqRepOverIpc(boolean ysuiteBinds, boolean ysuiteRequests, @TempDir Path dir) throws IOException {
        End[] e = link(SocketType.REQ, SocketType.REP, ysuiteRequests, ysuiteBinds, dir.resolve("r.sock"), s -> { });
        for (int i = 0; i < 3; i++) {
            e[0].send(bytes("request " + i));
            assertMessage(e[1].receive(), bytes("request " + i));
            e[1].send(bytes("reply " + i));
            assertMessage(e[0].receive(), bytes("reply " + i));
        }
    }

    @ParameterizedTest(name = "ysuite binds: {0}, ysuite publishes: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void pubSub(boolean ysuiteBinds, boolean ysuitePublishes) throws IOException {
        End[] e = link(SocketType.PUB, SocketType.SUB, ysuitePublishes, ysuiteBinds);
        Interop.publishSubscribe(e[0], e[1]);
    }

    /** XSUB sends subscriptions as messages (0x01 prefix, 0x00 to cancel); XPUB receives them and publishes. */
    @ParameterizedTest(name = "ysuite binds: {0}, ysuite is XPUB: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void xpubXsub(boolean ysuiteBinds, boolean ysuiteXpub) throws IOException {
        End[] e = link(SocketType.XPUB, SocketType.XSUB, ysuiteXpub, ysuiteBinds);
        End xpub = e[0];
        End xsub = e[1];
        if (xsub instanceof PyPeer) {
            // libzmq's XSUB passes a subscription sent before a peer attached only along with its next
            // send; sending it once the connection is up gives the XPUB something to wait for
            ((PyPeer) xsub).awaitEvent("HANDSHAKE_SUCCEEDED");
        }
        xsub.send(new byte[] {1, 'A'});
        assertMessage(xpub.receive(), new byte[] {1, 'A'});
        xpub.send(bytes("B-filtered"));
        xpub.send(bytes("A-1"), new byte[0], Interop.MIB);
        assertMessage(xsub.receive(), bytes("A-1"), new byte[0], Interop.MIB);
        xsub.send(new byte[] {0, 'A'});
        assertMessage(xpub.receive(), new byte[] {0, 'A'});
    }

    @ParameterizedTest(name = "ysuite binds: {0}, ysuite is REQ: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void reqRep(boolean ysuiteBinds, boolean ysuiteReq) throws IOException {
        End[] e = link(SocketType.REQ, SocketType.REP, ysuiteReq, ysuiteBinds);
        Interop.requestReply(e[0], e[1]);
    }

    /** A DEALER's routing id reaches the ROUTER as the first frame; the ROUTER's reply is routed by it. */
    @ParameterizedTest(name = "ysuite binds: {0}, ysuite is DEALER: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void dealerRouter(boolean ysuiteBinds, boolean ysuiteDealer) throws IOException {
        End[] e = link(SocketType.DEALER, SocketType.ROUTER, ysuiteDealer, ysuiteBinds,
                s -> s.setIdentity(bytes("dealer-1")), "ROUTING_ID=dealer-1");
        End dealer = e[0];
        End router = e[1];
        dealer.send(bytes("hello"), new byte[0], Interop.MIB);
        assertMessage(router.receive(), bytes("dealer-1"), bytes("hello"), new byte[0], Interop.MIB);
        router.send(bytes("dealer-1"), bytes("back"), new byte[0]);
        assertMessage(dealer.receive(), bytes("back"), new byte[0]);
        dealer.send(new byte[0]);
        assertMessage(router.receive(), bytes("dealer-1"), new byte[0]);
    }

    /** A DEALER talks to a REP by writing and reading the empty delimiter itself. */
    @ParameterizedTest(name = "ysuite binds: {0}, ysuite is DEALER: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void dealerRep(boolean ysuiteBinds, boolean ysuiteDealer) throws IOException {
        End[] e = link(SocketType.DEALER, SocketType.REP, ysuiteDealer, ysuiteBinds);
        End dealer = e[0];
        End rep = e[1];
        for (int i = 0; i < 2; i++) {
            dealer.send(new byte[0], bytes("question-" + i));
            assertMessage(rep.receive(), bytes("question-" + i));
            rep.send(bytes("answer-" + i));
            assertMessage(dealer.receive(), new byte[0], bytes("answer-" + i));
        }
    }

    /** A ROUTER sees a REQ's request as routing id, empty delimiter, body; the reply goes back the same way. */
    @ParameterizedTest(name = "ysuite binds: {0}, ysuite is REQ: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void reqRouter(boolean ysuiteBinds, boolean ysuiteReq) throws IOException {
        End[] e = link(SocketType.REQ, SocketType.ROUTER, ysuiteReq, ysuiteBinds,
                s -> s.setIdentity(bytes("req-1")), "ROUTING_ID=req-1");
        End req = e[0];
        End router = e[1];
        for (int i = 0; i < 2; i++) {
            req.send(bytes("question-" + i));
            assertMessage(router.receive(), bytes("req-1"), new byte[0], bytes("question-" + i));
            router.send(bytes("req-1"), new byte[0], bytes("answer-" + i));
            assertMessage(req.receive(), bytes("answer-" + i));
        }
    }

    @ParameterizedTest(name = "ysuite binds: {0}")
    @ValueSource(booleans = {true, false})
    void dealerDealer(boolean ysuiteBinds) throws IOException {
        End[] e = link(SocketType.DEALER, SocketType.DEALER, true, ysuiteBinds);
        Interop.oneWay(e[0], e[1]);
        Interop.oneWay(e[1], e[0]);
    }
}
