package org.ysuite.bench.net;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What {@link NetThroughput} and {@link NetLatency} share: the parameters other than the peer, a
 * {@link NetServer} process, the client's connection to it, and the message.
 */
@State(Scope.Thread)
public abstract class NetBench {

    /** The message size in bytes. */
    @Param({"6"})
    public int size;

    /** The ysuite stream's buffer size (seed 003's batch cap); the other peers ignore it. */
    @Param({"8192"})
    public int bufferSize;

    /** {@code loopback}, or {@code veth} (needs the namespace of {@link Netns}). */
    @Param({"loopback"})
    public String net;

    /** The server process. */
    protected ServerProcess server;
    /** The connection to it. */
    protected Client client;
    /** The message sent. */
    protected byte[] msg;

    /**
     * Starts the server and connects.
     *
     * @param peer the transport
     * @param mode the server's mode ({@code sink} or {@code echo})
     * @throws Exception if either fails
     */
    protected final void start(String peer, String mode) throws Exception {
        server = ServerProcess.start(Peer.of(peer), mode, net, bufferSize);
        client = Client.connect(Peer.of(peer), "echo".equals(mode), server.host, server.port, bufferSize);
        msg = new byte[size];
        java.util.Arrays.fill(msg, (byte) 'y');
    }

    /**
     * Closes the connection and ends the server.
     *
     * @throws Exception if closing fails
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            client.flush();
            client.close();
        } finally {
            server.close();
        }
    }
}
