package org.ysuite.zmq;

import java.util.Arrays;
import java.util.Set;
import org.ysuite.zmq.internal.Messages;
import org.ysuite.zmq.internal.Peer;

/**
 * REP: requests come in from the peers in turn; each one's envelope (the frames up to the empty delimiter)
 * is kept and put back before the reply, which goes to the peer the request came from
 * (libzmq's {@code rep_t}). Receive and send alternate.
 */
final class RepRules extends SocketRules {

    private byte[][] replyEnvelope;
    private Peer replyPeer;

    RepRules(Set<Peer> live) {
        super(SocketType.REP, live, true, true);
    }

    private boolean replyPending() {
        return replyPeer != null || replyEnvelope != null;
    }

    @Override
    void checkSendState() {
        if (!replyPending()) {
            throw new ZmqException(ZmqError.EFSM, "REP: send without a request; receive one first");
        }
    }

    @Override
    boolean trySend(Object message) {
        Peer p = replyPeer;
        Object reply = replyEnvelope == null ? message : Messages.concat(replyEnvelope, message);
        if (p != null && p.attached && p.out.hasRoom()) {
            p.out.write(reply);
        }
        replyPeer = null;
        replyEnvelope = null;
        return true;
    }

    @Override
    boolean canSend() {
        return replyPending();
    }

    @Override
    Object tryReceive() {
        if (replyPending()) {
            throw new ZmqException(ZmqError.EFSM, "REP: receive before the reply to the last request");
        }
        for (;;) {
            Object m = in.receive();
            if (m == null) {
                return null;
            }
            if (!(m instanceof byte[][] parts)) {
                continue; // no envelope: malformed, dropped
            }
            int d = 0;
            while (d < parts.length && parts[d].length != 0) {
                d++;
            }
            if (d >= parts.length - 1) {
                continue; // no delimiter or no body: dropped
            }
            replyEnvelope = Arrays.copyOfRange(parts, 0, d + 1);
            replyPeer = in.last();
            return Messages.from(parts, d + 1);
        }
    }

    @Override
    Object pollIn() {
        // the envelope needs the message itself: a request found here is taken and kept by the socket
        return replyPending() ? null : tryReceive();
    }
}
