package org.ysuite.zmq;

import java.util.Set;
import org.ysuite.zmq.internal.Messages;
import org.ysuite.zmq.internal.Peer;

/**
 * REQ: a request goes to the next peer in turn with room behind an empty delimiter frame; then only that
 * peer's reply is read, and the next request waits for it (libzmq's {@code req_t}).
 */
final class ReqRules extends SocketRules {

    private boolean requestSent;
    private Peer requestPeer;

    ReqRules(Set<Peer> live) {
        super(SocketType.REQ, live, true, true);
    }

    @Override
    void checkSendState() {
        if (requestSent) {
            throw new ZmqException(ZmqError.EFSM, "REQ: send after send; receive the reply first");
        }
    }

    @Override
    boolean trySend(Object message) {
        Peer p = out.send(Messages.prepend(Messages.EMPTY, message));
        if (p == null) {
            return false;
        }
        requestSent = true;
        requestPeer = p;
        return true;
    }

    @Override
    boolean canSend() {
        return !requestSent && out.canSend();
    }

    @Override
    Object tryReceive() {
        if (!requestSent) {
            throw new ZmqException(ZmqError.EFSM, "REQ: receive before send; send a request first");
        }
        for (;;) {
            Object m = requestPeer.in.read();
            if (m == null) {
                return null;
            }
            if (m instanceof byte[][] parts && parts[0].length == 0) {
                requestSent = false;
                requestPeer = null;
                return Messages.from(parts, 1);
            }
            // not a reply with the delimiter: dropped, as libzmq's REQ does
        }
    }

    @Override
    Object pollIn() {
        return requestSent && requestPeer.in.checkRead() ? READY : null;
    }

    @Override
    void detached(Peer peer) {
        super.detached(peer);
        if (peer != requestPeer) {
            // a REQ reads only the peer it asked; libzmq's REQ waits for a reply from a peer that left, and
            // so does this one, until the application's timeout ends it
            in.remove(peer);
        }
    }
}
