package org.ysuite.bench.ipc;

import java.io.Closeable;
import java.io.IOException;

/**
 * One side of a two-way, cross-process message link of the {@code ipc} benchmarks: the
 * benchmark's JVM holds one end, an {@link IpcChild} process the other. Each direction carries
 * whole messages in order; every {@link #send} is flushed (visible to the peer, which is woken
 * if it sleeps) before it returns.
 */
public interface Link extends Closeable {

    /** The largest message any {@code ipc} benchmark sends. */
    int MAX_MESSAGE = 1 << 12;

    /**
     * Sends one message and flushes it, waiting for room if the link is full.
     *
     * @param msg the bytes
     * @param length how many of them, {@code <= MAX_MESSAGE}
     * @throws IOException if the peer has gone or the wait for room timed out
     */
    void send(byte[] msg, int length) throws IOException;

    /**
     * Waits for the next message and copies it into {@code dst}.
     *
     * @param dst at least {@link #MAX_MESSAGE} bytes
     * @return the message's length, or {@code -1} once the peer has closed its end cleanly
     * @throws IOException if the peer has gone without closing, or the link failed
     */
    int receive(byte[] dst) throws IOException;

    /**
     * Ends the sending direction cleanly: the peer's {@link #receive} returns {@code -1} once it
     * has read everything sent before. Receiving goes on until the peer ends its own direction.
     *
     * @throws IOException if the link fails
     */
    void closeOutput() throws IOException;

    /** The parent's half of a link before the child has connected to it. */
    interface Pending extends Closeable {
        /**
         * Completes the link once the child has said it is ready.
         *
         * @return the parent's end
         * @throws IOException if the child's end cannot be reached
         */
        Link accept() throws IOException;
    }
}
