package org.ysuite.zmq.interop;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.ZmqSocket;
import org.ysuite.zmq.interop.Interop.End;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * JeroMQ 0.6 in the same JVM as the peer: PUSH/PULL and REQ/REP, ysuite binding and JeroMQ
 * connecting and the reverse, ysuite in either role; multipart with 0 B and 1 MiB frames.
 */
class JeromqPeerTest {

    private ZmqContext ctx;
    private ZContext jeromq;

    @BeforeEach
    void open() {
        ctx = ZmqContext.create();
        jeromq = new ZContext(1);
    }

    @AfterEach
    void close() {
        try {
            jeromq.close();
        } finally {
            ctx.close();
        }
    }

    private End[] link(SocketType first, SocketType second, boolean ysuiteFirst, boolean ysuiteBinds) {
        ZmqSocket y = Interop.bounded(ctx.socket(ysuiteFirst ? first : second));
        ZMQ.Socket j = jeromqSocket((ysuiteFirst ? second : first).name());
        if (ysuiteBinds) {
            Events events = new Events();
            y.setEventListener(events);
            y.setHandshakeInterval(2_000); // drops a connection that JeroMQ stalled (see connectJeromq)
            y.bind("tcp://127.0.0.1:0");
            j = connectJeromq(j, y.lastEndpoint(), events);
        } else {
            int port = j.bindToRandomPort("tcp://127.0.0.1");
            y.connect("tcp://127.0.0.1:" + port);
        }
        End ye = Interop.of(y);
        End je = Interop.of(j);
        return ysuiteFirst ? new End[] {ye, je} : new End[] {je, ye};
    }

    private ZMQ.Socket jeromqSocket(String type) {
        ZMQ.Socket j = jeromq.createSocket(org.zeromq.SocketType.valueOf(type));
        j.setSendTimeOut((int) TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S));
        j.setLinger(0);
        return j;
    }

    /**
     * Connects JeroMQ to ysuite's endpoint and waits for ysuite to report the handshake done. JeroMQ 0.6.0's
     * connecting side sometimes stalls after the TCP connect, neither reading the greeting it was sent nor
     * sending its own, and never recovers (reproduced with JeroMQ on both ends: about one fresh connection in
     * 10 to 30 on this machine; the connection stays ESTABLISHED with our 64-byte greeting unread in its
     * receive queue). ysuite's handshake timeout drops such a connection ({@link ZmqSocket#setHandshakeInterval});
     * the test then replaces the stalled JeroMQ socket with a new one, at most {@value #CONNECT_TRIES} times.
     */
    private ZMQ.Socket connectJeromq(ZMQ.Socket j, String endpoint, Events events) {
        String type = j.getSocketType().name();
        for (int attempt = 1; ; attempt++) {
            j.connect(endpoint);
            ZmqEvent e = events.await(ev -> ev.kind() == ZmqEvent.Kind.CONNECTED
                    || ev.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED, "CONNECTED or HANDSHAKE_FAILED");
            if (e.kind() == ZmqEvent.Kind.CONNECTED) {
                return j;
            }
            if (attempt == CONNECT_TRIES) {
                throw new AssertionError("JeroMQ never completed the handshake in " + CONNECT_TRIES + " connections: "
                        + e.reason());
            }
            jeromq.destroySocket(j);
            j = jeromqSocket(type);
        }
    }

    private static final int CONNECT_TRIES = 4;

    @ParameterizedTest(name = "ysuite binds: {0}, ysuite pushes: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void pushPull(boolean ysuiteBinds, boolean ysuitePushes) {
        End[] e = link(SocketType.PUSH, SocketType.PULL, ysuitePushes, ysuiteBinds);
        Interop.oneWay(e[0], e[1]);
    }

    @ParameterizedTest(name = "ysuite binds: {0}, ysuite is REQ: {1}")
    @MethodSource("org.ysuite.zmq.interop.Interop#sides")
    void reqRep(boolean ysuiteBinds, boolean ysuiteReq) {
        End[] e = link(SocketType.REQ, SocketType.REP, ysuiteReq, ysuiteBinds);
        Interop.requestReply(e[0], e[1]);
    }
}
