package org.ysuite.zmq.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.ZmqEventListener;

/** A ysuite socket's events, collected by its listener (I/O threads) and awaited by the test thread. */
final class Events implements ZmqEventListener {

    private final BlockingQueue<ZmqEvent> queue = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    @Override
    public void event(ZmqEvent e) {
        queue.add(e);
    }

    /** Whether an event reports a connection that ended: disconnected, failed its handshake, or dropped for a protocol error. */
    static boolean ended(ZmqEvent e) {
        return e.kind() == ZmqEvent.Kind.DISCONNECTED || e.kind() == ZmqEvent.Kind.HANDSHAKE_FAILED
                || e.kind() == ZmqEvent.Kind.PROTOCOL_ERROR;
    }

    /** Forgets the events so far. */
    void clear() {
        queue.clear();
        seen.clear();
    }

    /**
     * Waits for an event that {@code which} accepts, within {@link PyPeer#WAIT_S}.
     *
     * @param which the event wanted
     * @param what what it is, for the failure message
     * @return the event
     */
    ZmqEvent await(Predicate<ZmqEvent> which, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PyPeer.WAIT_S);
        try {
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                ZmqEvent e = queue.poll(left, TimeUnit.NANOSECONDS);
                if (e == null) {
                    break;
                }
                seen.add(e.kind() + "(" + e.endpoint() + ", " + e.reason() + ")");
                if (which.test(e)) {
                    return e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new AssertionError("no " + what + " event in " + PyPeer.WAIT_S + " s; events seen: " + seen);
    }

    /**
     * Watches the events for {@code millis}: fails at the first connection-ending event ({@link #ended}), so a
     * broken connection fails the test as soon as it ends, not after the period.
     *
     * @param millis how long the connection must stay up
     */
    void assertNoneEndWithin(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                ZmqEvent e = queue.poll(left, TimeUnit.NANOSECONDS);
                if (e != null && ended(e)) {
                    throw new AssertionError("the connection ended within " + millis + " ms: " + e.kind() + "("
                            + e.endpoint() + ", " + e.reason() + ")");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while watching the connection", e);
        }
    }

    /** The connection-ending events ({@link #ended}) not yet awaited, as text; the others are dropped. */
    List<String> endedSoFar() {
        List<String> out = new ArrayList<>();
        for (ZmqEvent e; (e = queue.poll()) != null; ) {
            if (ended(e)) {
                out.add(e.kind() + "(" + e.endpoint() + ", " + e.reason() + ")");
            }
        }
        return out;
    }
}
