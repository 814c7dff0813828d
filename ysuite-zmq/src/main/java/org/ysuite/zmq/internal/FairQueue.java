package org.ysuite.zmq.internal;

import java.util.ArrayList;

/**
 * A socket's inbound peers, read in turn so that no peer starves the others (libzmq's {@code fq_t}).
 * A peer stays until its transport is gone and its lane is drained: the messages it sent before it left
 * are still received. Socket thread only.
 */
public final class FairQueue {

    private final ArrayList<Peer> peers = new ArrayList<>();
    private int turn;
    private Peer last;

    /** Adds a peer at the end of the rotation. */
    public void add(Peer p) {
        peers.add(p);
    }

    /** Removes a peer at once, whatever its lane still holds (for types that read nothing of use from it). */
    public void remove(Peer p) {
        peers.remove(p);
    }

    /** How many peers are read. */
    public int size() {
        return peers.size();
    }

    /** The peer at {@code index}. */
    public Peer get(int index) {
        return peers.get(index);
    }

    /** Removes the peer at {@code index} (the turn is left as it is). */
    public void removeAt(int index) {
        peers.remove(index);
    }

    /**
     * The next message from the peers in turn, or null if none has one; drops peers that are gone and
     * drained. {@link #last()} then names the peer it came from.
     */
    public Object receive() {
        int n = peers.size();
        for (int k = 0; k < n; k++) {
            int i = (turn + k) % n;
            Peer p = peers.get(i);
            boolean gone = p.gone; // read before the lane: a peer seen gone and then empty has nothing more
            Object m = p.in.read();
            if (m != null) {
                turn = (i + 1) % n;
                last = p;
                return m;
            }
            if (gone && !p.attached) {
                peers.remove(i);
                n--;
                k--;
                if (turn > i) {
                    turn--;
                }
                if (n > 0) {
                    turn %= n;
                } else {
                    turn = 0;
                }
            }
        }
        return null;
    }

    /** The peer the last message of {@link #receive()} came from. */
    public Peer last() {
        return last;
    }

    /** Whether some peer has a message (ZMQ_POLLIN); the others' readers are then asleep until woken. */
    public boolean hasInput() {
        boolean any = false;
        for (int i = 0; i < peers.size() && !any; i++) {
            any = peers.get(i).in.checkRead();
        }
        return any;
    }
}
