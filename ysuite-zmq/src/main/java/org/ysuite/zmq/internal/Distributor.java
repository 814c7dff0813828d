package org.ysuite.zmq.internal;

/**
 * Sends one message to every outbound peer that subscribed to it (libzmq's {@code dist_t} with the
 * publisher's matching): a peer at its high-water mark misses the message, nobody waits. Socket thread only.
 */
public final class Distributor {

    private final LoadBalancer peers;

    /** @param peers the socket's outbound peers (their order only; the turn is not used) */
    public Distributor(LoadBalancer peers) {
        this.peers = peers;
    }

    /**
     * Writes {@code message} to each peer whose {@link Peer#subscriptions} match {@code first} (its first
     * frame) and that has room.
     */
    public void send(Object message, byte[] first) {
        boolean handedOut = false;
        for (int i = 0, n = peers.size(); i < n; i++) {
            Peer p = peers.get(i);
            if (p.subscriptions.matches(first) && p.out.hasRoom()) {
                // a network peer's I/O thread only reads the arrays; an inproc peer hands them to its
                // application, so each inproc subscriber after the first gets its own copy
                p.out.write(p.inproc && handedOut ? Messages.copy(message) : message);
                handedOut |= p.inproc;
            }
        }
    }
}
