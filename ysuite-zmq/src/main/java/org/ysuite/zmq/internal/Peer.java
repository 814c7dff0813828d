package org.ysuite.zmq.internal;

/**
 * One peer of a socket: a connection over TCP/IPC, or the other socket of an inproc pipe. The socket
 * writes {@link #out} and reads {@link #in}; both are created before the peer is handed to the socket.
 */
public final class Peer {

    /** The socket's messages to the peer. */
    public final Lane out;
    /** The peer's messages to the socket. */
    public final Lane in;
    /** The endpoint this peer came from (bind or connect address). */
    public final String endpoint;
    /** Closes the transport under the peer (any thread); the peer then detaches. */
    private final Runnable closer;
    /** The routing id a ROUTER uses for the peer (its Identity, or a generated one); set by the socket. */
    public byte[] routingId;
    /** The peer's announced Identity (empty if none). */
    public final byte[] identity;
    /** What the peer subscribed to (PUB/XPUB sockets; socket thread only). */
    public final Subscriptions subscriptions = new Subscriptions();
    /** Set once the transport is gone: nothing more will be written to {@link #in}. */
    public volatile boolean gone;
    /**
     * Arrays of messages already written to the network, handed back for reuse by the socket's sends (a
     * {@link Lane} of {@code byte[]} from the I/O thread to the socket's thread); null where not used.
     */
    public volatile Lane recycle;
    /** Whether the peer is another socket of the context (its application gets the arrays written here). */
    public boolean inproc;
    /** Whether the peer is in the socket's outbound rotation (socket thread only). */
    public boolean attached;

    /**
     * @param out the lane the socket writes
     * @param in the lane the socket reads
     * @param endpoint where the peer came from
     * @param identity the peer's Identity property (empty for none)
     * @param closer closes the transport
     */
    public Peer(Lane out, Lane in, String endpoint, byte[] identity, Runnable closer) {
        this.out = out;
        this.in = in;
        this.endpoint = endpoint;
        this.identity = identity;
        this.closer = closer;
    }

    /** Whether everything the socket queued for the peer was written (TCP/IPC) or handed over (inproc). */
    public volatile java.util.function.BooleanSupplier drainedCheck = () -> true;

    /** Whether everything queued for the peer has left: {@link #drainedCheck}. */
    public boolean drained() {
        return drainedCheck.getAsBoolean();
    }

    /** Closes the transport under the peer (any thread). */
    public void close() {
        closer.run();
    }
}
