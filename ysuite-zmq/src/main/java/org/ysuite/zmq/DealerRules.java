package org.ysuite.zmq;

import java.util.Set;
import org.ysuite.zmq.internal.Peer;

/**
 * DEALER: messages go to the next peer in turn with room and come in from the peers in turn, envelopes
 * untouched (libzmq's {@code dealer_t}).
 */
final class DealerRules extends SocketRules {

    DealerRules(Set<Peer> live) {
        super(SocketType.DEALER, live, true, false);
    }

    @Override
    boolean trySend(Object message) {
        return out.send(message) != null;
    }

    @Override
    Object tryReceive() {
        return in.receive();
    }
}
