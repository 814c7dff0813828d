package org.ysuite.zmq;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.ysuite.zmq.internal.Distributor;
import org.ysuite.zmq.internal.Messages;
import org.ysuite.zmq.internal.Peer;
import org.ysuite.zmq.internal.Subscriptions;

/**
 * PUB and XPUB: a message goes to every peer that subscribed to a prefix of its first frame, and is
 * dropped for a peer at its mark; the peers' subscription messages are read from their inbound lanes
 * before each send. XPUB also hands the application each subscription that is new to the socket, and each
 * last cancellation, as a message (libzmq's {@code pub_t}, {@code xpub_t}).
 */
final class PubRules extends SocketRules {

    private final boolean xpub;
    private final Distributor distributor = new Distributor(out);
    /** Every peer's subscriptions together, counted: what is new to or gone from the socket. */
    private final Subscriptions allSubscriptions = new Subscriptions();
    /** XPUB: the subscription messages for the application. */
    private final ArrayDeque<byte[]> upstream = new ArrayDeque<>();

    /** @param type PUB or XPUB */
    PubRules(SocketType type, Set<Peer> live) {
        super(type, live, true, false);
        this.xpub = type == SocketType.XPUB;
    }

    @Override
    boolean trySend(Object message) {
        readSubscriptions();
        distributor.send(message, Messages.first(message));
        return true;
    }

    @Override
    boolean canSend() {
        return true;
    }

    @Override
    Object tryReceive() {
        if (!xpub) {
            throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not receive");
        }
        readSubscriptions();
        return upstream.poll();
    }

    @Override
    Object pollIn() {
        if (!xpub) {
            return null;
        }
        readSubscriptions();
        return upstream.isEmpty() ? null : READY;
    }

    /** Applies the subscriptions the peers sent; XPUB queues the new ones for the application. */
    private void readSubscriptions() {
        for (int i = 0; i < in.size(); i++) {
            Peer p = in.get(i);
            Object m;
            while ((m = p.in.read()) != null) {
                if (m instanceof byte[] b && b.length > 0 && (b[0] == 1 || b[0] == 0)) {
                    byte[] topic = Arrays.copyOfRange(b, 1, b.length);
                    if (b[0] == 1) {
                        p.subscriptions.add(topic);
                        if (allSubscriptions.add(topic) && xpub) {
                            upstream.add(b);
                        }
                    } else if (p.subscriptions.contains(topic)) {
                        p.subscriptions.remove(topic);
                        if (allSubscriptions.remove(topic) && xpub) {
                            upstream.add(b);
                        }
                    }
                }
            }
            if (p.gone && !p.attached) {
                in.removeAt(i--);
            }
        }
    }

    @Override
    void detached(Peer peer) {
        super.detached(peer);
        List<byte[]> prefixes = peer.subscriptions.prefixes();
        for (int i = 0; i < prefixes.size(); i++) {
            for (int k = peer.subscriptions.count(i); k > 0; k--) {
                if (allSubscriptions.remove(prefixes.get(i)) && xpub) {
                    upstream.add(Messages.subscription(prefixes.get(i), false));
                }
            }
        }
        if (!xpub) {
            in.remove(peer); // nothing of use comes in
        }
    }
}
