package org.ysuite.zmq;

import java.util.Set;
import org.ysuite.zmq.internal.Peer;

/** PUSH: each message to the next peer in turn with room; never receives (libzmq's {@code push_t}). */
final class PushRules extends SocketRules {

    PushRules(Set<Peer> live) {
        super(SocketType.PUSH, live, true, false);
    }

    @Override
    boolean trySend(Object message) {
        return out.send(message) != null;
    }

    @Override
    Object tryReceive() {
        throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not receive");
    }

    @Override
    Object pollIn() {
        return null;
    }

    @Override
    void detached(Peer peer) {
        super.detached(peer);
        in.remove(peer); // nothing of use comes in
    }
}
