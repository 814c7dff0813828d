package org.ysuite.zmq.internal;

import java.util.ArrayList;

/**
 * A socket's outbound peers in attach order, with a turn that moves round them (libzmq's {@code lb_t}):
 * {@link #send} gives a message to the next peer in turn with room. Every socket type keeps its outbound
 * peers here, balanced or not, because the arrays the I/O threads hand back for reuse are read from the
 * peer whose turn it is ({@link #recycle()}). Socket thread only.
 */
public final class LoadBalancer {

    private final ArrayList<Peer> peers = new ArrayList<>();
    private int turn;

    /** Adds a peer at the end of the rotation. */
    public void add(Peer p) {
        peers.add(p);
    }

    /** Removes a peer; the turn stays on a peer that is still there. */
    public void remove(Peer p) {
        int at = peers.indexOf(p);
        if (at < 0) {
            return;
        }
        peers.remove(at);
        if (at < turn) {
            turn--; // the peer whose turn it was moved down one place: keep the turn on it
        }
        turn = peers.isEmpty() ? 0 : turn % peers.size();
    }

    /** Whether no peer takes messages. */
    public boolean isEmpty() {
        return peers.isEmpty();
    }

    /** How many peers take messages. */
    public int size() {
        return peers.size();
    }

    /** The peer at {@code index} in attach order. */
    public Peer get(int index) {
        return peers.get(index);
    }

    /**
     * Writes {@code message} to the first peer, from the one whose turn it is, that has room below its
     * high-water mark, and passes the turn to the peer after it.
     *
     * @return the peer that took it, or null if none had room (each full peer then wakes this socket when
     *     it has room again)
     */
    public Peer send(Object message) {
        int n = peers.size();
        for (int k = 0; k < n; k++) {
            int i = (turn + k) % n;
            Peer p = peers.get(i);
            if (p.out.tryReserve()) {
                p.out.write(message);
                turn = (i + 1) % n;
                return p;
            }
        }
        return null;
    }

    /** Whether some peer has room (ZMQ_POLLOUT); a full peer wakes the socket when it has room again. */
    public boolean canSend() {
        for (int i = 0, n = peers.size(); i < n; i++) {
            if (peers.get(i).out.tryReserve()) {
                return true;
            }
        }
        return false;
    }

    /** The lane of written arrays handed back by the peer whose turn it is; null if none. */
    public Lane recycle() {
        int n = peers.size();
        return n == 0 ? null : peers.get(turn < n ? turn : 0).recycle;
    }
}
