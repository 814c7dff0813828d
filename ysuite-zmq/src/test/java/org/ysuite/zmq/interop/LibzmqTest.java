package org.ysuite.zmq.interop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.ysuite.zmq.ZmqContext;

/** What the tests against libzmq peers share: a context, and the peers a test started, closed after it. */
abstract class LibzmqTest {

    ZmqContext ctx;
    private final List<PyPeer> peers = new ArrayList<>();

    @BeforeEach
    void open() {
        ctx = ZmqContext.create();
    }

    @AfterEach
    void close() {
        try {
            peers.forEach(PyPeer::close);
        } finally {
            ctx.close();
        }
    }

    /** Starts a libzmq peer ({@link PyPeer#start}) that is closed after the test. */
    PyPeer peer(String type, boolean bind, String endpoint, String... options) throws IOException {
        PyPeer p = PyPeer.start(type, bind, endpoint, options);
        peers.add(p);
        return p;
    }
}
