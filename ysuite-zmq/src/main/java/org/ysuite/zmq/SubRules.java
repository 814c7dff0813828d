package org.ysuite.zmq;

import java.util.Arrays;
import java.util.Set;
import org.ysuite.zmq.internal.Messages;
import org.ysuite.zmq.internal.Peer;
import org.ysuite.zmq.internal.Subscriptions;

/**
 * SUB and XSUB: messages come in from the peers in turn and those that match no subscription are dropped;
 * each subscription is sent to every peer, and to a new peer before anything else. XSUB also sends: a
 * one-frame message starting with 1 or 0 subscribes or cancels, and every message goes to every peer with
 * room (libzmq's {@code sub_t}, {@code xsub_t}).
 */
final class SubRules extends SocketRules {

    private final boolean xsub;
    private final Subscriptions ownSubscriptions = new Subscriptions();
    /**
     * The lock under which the peers' out lanes are written (a lane has one writer at a time: the attaching
     * thread writes the subscriptions, then the application thread; the lock orders them), under which
     * {@link #ownSubscriptions} is changed (by the application thread, which alone reads it unlocked).
     */
    private final Object subscriptionLock = new Object();

    /** @param type SUB or XSUB */
    SubRules(SocketType type, Set<Peer> live) {
        super(type, live, type == SocketType.XSUB, false);
        this.xsub = type == SocketType.XSUB;
    }

    @Override
    boolean trySend(Object message) {
        if (!xsub) {
            throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not send");
        }
        byte[] first = Messages.first(message);
        synchronized (subscriptionLock) {
            if (!(message instanceof byte[][]) && first.length > 0 && (first[0] == 0 || first[0] == 1)) {
                byte[] topic = Arrays.copyOfRange(first, 1, first.length);
                if (first[0] == 1) {
                    ownSubscriptions.add(topic);
                } else {
                    ownSubscriptions.remove(topic);
                }
            }
            for (Peer p : live) {
                if (p.out.hasRoom()) {
                    p.out.write(message);
                }
            }
        }
        return true;
    }

    @Override
    boolean canSend() {
        return xsub;
    }

    @Override
    Object tryReceive() {
        for (;;) {
            Object m = in.receive();
            if (m == null || ownSubscriptions.matches(Messages.first(m))) {
                return m;
            }
        }
    }

    @Override
    Object pollIn() {
        return tryReceive(); // the filter needs the message itself: one found here is kept by the socket
    }

    @Override
    void goingLive(Peer peer) {
        // the subscriptions go out before anything else, from whichever thread attaches, so that a
        // publisher that connects while the application thread is busy elsewhere gets them
        synchronized (subscriptionLock) {
            for (byte[] prefix : ownSubscriptions.prefixes()) {
                peer.out.write(Messages.subscription(prefix, true));
            }
            live.add(peer);
        }
    }

    @Override
    void subscription(byte[] prefix, boolean on) {
        synchronized (subscriptionLock) {
            boolean changed = on ? ownSubscriptions.add(prefix) : ownSubscriptions.remove(prefix);
            if (changed || on) {
                byte[] m = Messages.subscription(prefix, on);
                for (Peer p : live) {
                    p.out.write(m);
                }
            }
        }
    }
}
