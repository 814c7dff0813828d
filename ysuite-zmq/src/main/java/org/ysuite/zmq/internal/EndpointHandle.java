package org.ysuite.zmq.internal;

/**
 * A bind's listener or a connect's connector. {@link #stop()} stops accepting or reconnecting and leaves the
 * connections up (a closing socket lingers on them); {@link #close()} also closes them (unbind, disconnect).
 */
public interface EndpointHandle extends AutoCloseable {

    /** Stops accepting (listener; an ipc path is unlinked) or reconnecting (connector). */
    void stop();

    /** {@link #stop()}, then closes the connections made through this endpoint. */
    @Override
    void close();
}
