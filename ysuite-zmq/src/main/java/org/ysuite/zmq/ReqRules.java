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
    /** A reply {@link #pollIn()} took from the lane to check its delimiter, kept for the next receive. */
    private Object polled;

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
        Object reply = nextReply();
        if (reply != null) {
            requestSent = false;
            requestPeer = null;
        }
        return reply;
    }

    /**
     * The awaited peer's next reply without its delimiter, or null; a message without the delimiter is
     * dropped, as libzmq's REQ does. The reply {@link #pollIn()} found comes first.
     */
    private Object nextReply() {
        Object r = polled;
        if (r != null) {
            polled = null;
            return r;
        }
        for (;;) {
            Object m = requestPeer.in.read();
            if (m == null) {
                return null;
            }
            if (m instanceof byte[][] parts && parts[0].length == 0) {
                return Messages.from(parts, 1);
            }
        }
    }

    /**
     * Readable only once a well-formed reply is there: the replies without a delimiter ahead of it are
     * dropped here as a receive would drop them, and the reply is kept for the receive (the request stays
     * outstanding until then).
     */
    @Override
    Object pollIn() {
        if (!requestSent) {
            return null;
        }
        if (polled == null) {
            polled = nextReply();
        }
        return polled != null ? READY : null;
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
