package org.ysuite.zmq;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.ysuite.zmq.internal.Peer;
import org.ysuite.zmq.internal.SocketBridge;
import org.ysuite.zmq.internal.SocketOptions;

/**
 * The peers of a {@link ZmqSocket} and the transports' view of it: the peers whose transport is up
 * ({@link #live}), their arrivals and departures queued from the I/O threads and applied to the socket's
 * rules on the socket's thread, the connection events for the socket's listener, and the closing of the
 * peers after the linger.
 *
 * <p>Memory ordering: the queue hands a peer from the I/O thread to the socket's thread ({@code add}
 * happens-before the {@code poll} that returns it, as {@link ConcurrentLinkedQueue} states), so the peer's
 * lanes, made before {@link #arrived}, are visible to the socket's thread. One queue for both kinds keeps a
 * peer's arrival ahead of its departure. A peer that is already gone when its arrival is applied is attached
 * all the same, so that what it sent before it left is read; its departure follows in the queue.
 */
final class SocketPeers implements SocketBridge {

    /** Peers dropped before their handshake completed (any I/O thread adds; see ZmqSocket#handshakeFailures). */
    final java.util.concurrent.atomic.LongAdder handshakeFailures = new java.util.concurrent.atomic.LongAdder();

    /** Every peer whose transport is up (any thread); shared with the rules. */
    final Set<Peer> live = ConcurrentHashMap.newKeySet();
    /** Peers that arrived or left, in order, for the socket's thread. */
    private final ConcurrentLinkedQueue<Change> changes = new ConcurrentLinkedQueue<>();
    /** The type's rules, which the peers are applied to. */
    final SocketRules rules;
    private final SocketOptions options;
    private final SocketSignals signals;
    /** Whether the socket is closed (a volatile read, made only when a peer arrives). */
    private final BooleanSupplier closed;
    /** Written by the application, read by the I/O threads at each event: volatile publishes it. */
    private volatile ZmqEventListener listener;

    SocketPeers(SocketType type, SocketOptions options, SocketSignals signals, BooleanSupplier closed) {
        this.rules = SocketRules.of(type, options, live);
        this.options = options;
        this.signals = signals;
        this.closed = closed;
    }

    @Override
    public SocketType type() {
        return rules.type;
    }

    @Override
    public SocketOptions options() {
        return options;
    }

    @Override
    public void attach(Peer peer) {
        if (arrived(peer)) {
            wake();
        }
    }

    @Override
    public void detach(Peer peer) {
        left(peer);
        wake();
    }

    @Override
    public void wake() {
        signals.wake();
    }

    /** Tells {@code l} of connection events from now on (null: none). */
    void listener(ZmqEventListener l) {
        this.listener = l;
    }

    @Override
    public void event(ZmqEvent event) {
        if (event.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED) {
            handshakeFailures.increment();
        }
        ZmqEventListener l = listener;
        if (l != null) {
            try {
                l.event(event);
            } catch (RuntimeException ignored) {
                // a listener's failure must not break the I/O thread
            }
        }
    }

    /**
     * A peer's transport is up (an I/O thread): it joins {@link #live} at once and the rules on the socket's
     * next call; false if the socket is already closed, and the peer was closed.
     */
    private boolean arrived(Peer peer) {
        rules.goingLive(peer);
        if (closed.getAsBoolean()) {
            // the socket closed while this peer shook hands: close() either saw it in live or did not;
            // closing it here too is harmless (closing twice is a no-op)
            live.remove(peer);
            peer.close();
            return false;
        }
        changes.add(new Change(peer, true));
        return true;
    }

    /** A peer's transport ended, {@link Peer#gone} set (any thread): it leaves the rules on the socket's next call. */
    private void left(Peer peer) {
        live.remove(peer);
        changes.add(new Change(peer, false));
    }

    /** Applies the arrivals and departures to the rules (socket thread); no arrival once the socket closed. */
    void apply() {
        Change c;
        while ((c = changes.poll()) != null) {
            Peer p = c.peer;
            if (!c.arrival) {
                if (p.attached) {
                    p.attached = false;
                    rules.detached(p);
                }
            } else if (!closed.getAsBoolean()) {
                if (rules.accepts(p)) {
                    p.attached = true;
                    rules.attached(p);
                } else {
                    p.close(); // PAIR talks to one peer; a second is refused, as libzmq does
                }
            }
        }
    }

    /**
     * Waits up to {@code lingerMillis} (-1: forever) for every live peer's queued messages to be written or
     * for the peer to go, then closes them all.
     */
    void close(int lingerMillis) {
        // elapsed time against the limit, never a deadline: nanoTime may be negative, and a deadline
        // of start + an "infinite" linger would overflow
        boolean forever = lingerMillis < 0;
        long limit = TimeUnit.MILLISECONDS.toNanos(Math.max(lingerMillis, 0));
        long start = System.nanoTime();
        for (Peer p : live) {
            while (!p.drained() && (forever || System.nanoTime() - start < limit) && !p.gone) {
                LockSupport.parkNanos(200_000L); // close's bounded wait for the I/O thread to write
            }
        }
        for (Peer p : live) {
            p.close();
        }
        live.clear();
    }

    /** A peer's arrival or departure, queued by an I/O thread for the socket's thread. */
    private record Change(Peer peer, boolean arrival) {
    }
}
