package org.ysuite.zmq;

import java.util.Set;
import org.ysuite.zmq.internal.FairQueue;
import org.ysuite.zmq.internal.LoadBalancer;
import org.ysuite.zmq.internal.Peer;
import org.ysuite.zmq.internal.SocketOptions;

/**
 * The send and receive rules of one {@link SocketType} (libzmq's per-type classes under
 * {@code socket_base_t}): a {@link ZmqSocket} owns one, made by {@link #of}, and calls it on the socket's
 * thread for each whole message. The socket keeps the API, the frames of a message, waiting and the peers'
 * arrival; the rules decide which peer a message goes to and which comes back, from the peers in
 * {@link #out} and {@link #in}.
 *
 * <p>Cost: a send or receive makes one virtual call ({@link #trySend}/{@link #tryReceive}), inlined where
 * the call site sees one or two socket types; {@link #checkSend} is final and reads two fields.
 */
abstract class SocketRules {

    /** What {@link #pollIn()} returns when a receive would not block and no message was taken. */
    static final Object READY = new Object();

    final SocketType type;
    /** Every peer whose transport is up (any thread); the socket's set, shared. */
    final Set<Peer> live;
    /** The peers that take messages, in turn. */
    final LoadBalancer out = new LoadBalancer();
    /** The peers whose inbound lanes may hold messages. */
    final FairQueue in = new FairQueue();
    private final boolean sends;
    private final boolean sendState;

    /**
     * @param sends false for the types that never send (ENOTSUP)
     * @param sendState whether {@link #checkSendState()} guards the first frame of a message
     */
    SocketRules(SocketType type, Set<Peer> live, boolean sends, boolean sendState) {
        this.type = type;
        this.live = live;
        this.sends = sends;
        this.sendState = sendState;
    }

    /** The rules of {@code type}. */
    static SocketRules of(SocketType type, SocketOptions options, Set<Peer> live) {
        return switch (type) {
            case PAIR -> new PairRules(live);
            case PUB, XPUB -> new PubRules(type, live);
            case SUB, XSUB -> new SubRules(type, live);
            case REQ -> new ReqRules(live);
            case REP -> new RepRules(live);
            case DEALER -> new DealerRules(live);
            case ROUTER -> new RouterRules(options, live);
            case PULL -> new PullRules(live);
            case PUSH -> new PushRules(live);
        };
    }

    // ---------------------------------------------------------------- send

    /**
     * Throws where the type forbids a send now: ENOTSUP for a type that never sends, and at the first frame
     * of a message ({@code messageStart}) what {@link #checkSendState()} says.
     */
    final void checkSend(boolean messageStart) {
        if (!sends) {
            throw new ZmqException(ZmqError.ENOTSUP, type + " sockets do not send");
        }
        if (messageStart && sendState) {
            checkSendState();
        }
    }

    /** Throws EFSM where the type's state forbids starting a message (REQ, REP). */
    void checkSendState() {
    }

    /** One attempt at sending a whole message ({@code byte[]} or {@code byte[][]}); false if it must wait. */
    abstract boolean trySend(Object message);

    /** Whether a send would not block now (ZMQ_POLLOUT). */
    boolean canSend() {
        return out.canSend();
    }

    // ---------------------------------------------------------------- receive

    /** One attempt at receiving a whole message; null if none is there. */
    abstract Object tryReceive();

    /**
     * Whether a receive would not block now (ZMQ_POLLIN): null if it would, {@link #READY} if it would not,
     * or the message itself where the rules had to take it to know (filters, envelopes); the socket then
     * keeps it for the next receive.
     */
    Object pollIn() {
        return in.hasInput() ? READY : null;
    }

    // ---------------------------------------------------------------- peers

    /** A new peer's transport is up (any thread, before {@link #attached}): adds it to {@link #live}. */
    void goingLive(Peer peer) {
        live.add(peer);
    }

    /** Whether the socket takes {@code peer} (PAIR takes one); a refused peer is closed. Socket thread. */
    boolean accepts(Peer peer) {
        return true;
    }

    /** Adds an accepted peer to {@link #out} and {@link #in}. Socket thread. */
    void attached(Peer peer) {
        out.add(peer);
        in.add(peer);
    }

    /**
     * Removes a peer whose transport ended from {@link #out}; it stays in {@link #in} until its messages
     * are read, unless the type reads nothing of use from it. Socket thread.
     */
    void detached(Peer peer) {
        out.remove(peer);
    }

    /** SUB/XSUB: adds or cancels a subscription; ENOTSUP for the other types. */
    void subscription(byte[] prefix, boolean on) {
        throw new ZmqException(ZmqError.ENOTSUP, (on ? "subscribe" : "unsubscribe")
                + " is for SUB and XSUB sockets, not " + type);
    }
}
