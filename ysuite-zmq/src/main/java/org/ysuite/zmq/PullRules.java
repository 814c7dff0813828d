package org.ysuite.zmq;

import java.util.Set;
import org.ysuite.zmq.internal.Peer;

/** PULL: messages come in from the peers in turn; never sends (libzmq's {@code pull_t}). */
final class PullRules extends SocketRules {

    PullRules(Set<Peer> live) {
        super(SocketType.PULL, live, false, false);
    }

    @Override
    boolean trySend(Object message) {
        throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not send");
    }

    @Override
    boolean canSend() {
        return false;
    }

    @Override
    Object tryReceive() {
        return in.receive();
    }
}
