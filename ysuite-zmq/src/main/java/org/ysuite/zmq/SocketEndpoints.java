package org.ysuite.zmq;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.ysuite.zmq.internal.EndpointHandle;

/**
 * A {@link ZmqSocket}'s listeners and connectors by endpoint, and their shutdown at close: first stopped
 * (no new connection), then, after the linger, closed. Socket thread only.
 */
final class SocketEndpoints {

    private final Map<String, AutoCloseable> bound = new HashMap<>();
    private final Map<String, AutoCloseable> connected = new HashMap<>();
    /** Handles stopped by {@link #stop()}, closed by {@link #closeStopped()}. */
    private final List<AutoCloseable> stopped = new ArrayList<>();

    /** Records a listener under the endpoint asked for and, if different, the one resolved. */
    void bound(String endpoint, String resolved, AutoCloseable handle) {
        bound.put(resolved, handle);
        if (!resolved.equals(endpoint)) {
            bound.put(endpoint, handle);
        }
    }

    /** Records a connector; one already there for the endpoint is closed. */
    void connected(String endpoint, AutoCloseable handle) {
        AutoCloseable old = connected.put(endpoint, handle);
        if (old != null) {
            closeQuietly(old);
        }
    }

    /**
     * Closes the listener recorded under {@code endpoint} (either of its names).
     *
     * @throws ZmqException ENOENT if none is
     */
    void unbind(String endpoint) {
        AutoCloseable h = bound.remove(endpoint);
        if (h == null) {
            throw new ZmqException(ZmqError.ENOENT, "unbind: not bound to " + endpoint);
        }
        bound.values().removeIf(v -> v == h);
        closeQuietly(h);
    }

    /**
     * Closes the connector of {@code endpoint}.
     *
     * @throws ZmqException ENOENT if there is none
     */
    void disconnect(String endpoint) {
        AutoCloseable h = connected.remove(endpoint);
        if (h == null) {
            throw new ZmqException(ZmqError.ENOENT, "disconnect: not connected to " + endpoint);
        }
        closeQuietly(h);
    }

    /** Stops accepting and reconnecting everywhere; the connections themselves stay up. */
    void stop() {
        for (AutoCloseable h : bound.values()) {
            stopQuietly(h);
        }
        for (AutoCloseable h : connected.values()) {
            stopQuietly(h);
        }
        bound.clear();
        connected.clear();
    }

    /** Closes what {@link #stop()} stopped. */
    void closeStopped() {
        for (AutoCloseable h : stopped) {
            closeQuietly(h);
        }
        stopped.clear();
    }

    private void stopQuietly(AutoCloseable c) {
        if (c instanceof EndpointHandle h) {
            h.stop();
            stopped.add(c);
        } else {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing a listener or connector does not fail in a way the caller could act on
        }
    }
}
