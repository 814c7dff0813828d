package org.ysuite.zmq;

import java.util.Set;
import org.ysuite.zmq.internal.Peer;

/** PAIR: one peer, messages both ways; a second peer is refused (libzmq's {@code pair_t}). */
final class PairRules extends SocketRules {

    PairRules(Set<Peer> live) {
        super(SocketType.PAIR, live, true, false);
    }

    @Override
    boolean trySend(Object message) {
        if (out.isEmpty() || !out.get(0).out.tryReserve()) {
            return false;
        }
        out.get(0).out.write(message);
        return true;
    }

    @Override
    boolean canSend() {
        return !out.isEmpty() && out.get(0).out.tryReserve();
    }

    @Override
    Object tryReceive() {
        return in.receive();
    }

    @Override
    boolean accepts(Peer peer) {
        return out.isEmpty();
    }
}
