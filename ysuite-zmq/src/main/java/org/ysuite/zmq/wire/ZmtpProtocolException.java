package org.ysuite.zmq.wire;

/**
 * A peer broke ZMTP (ZeroMQ RFC 23/37): the connection is dropped with {@link #getMessage()} as the
 * reason. {@link #tellPeer()} says whether an ERROR command goes to the peer first (handshake failures
 * once both greetings are known, as RFC 23 asks a peer that rejects a handshake to do).
 */
final class ZmtpProtocolException extends Exception {

    private static final long serialVersionUID = 1L;

    private final boolean tellPeer;

    ZmtpProtocolException(String reason, boolean tellPeer) {
        super(reason, null, false, false);
        this.tellPeer = tellPeer;
    }

    /** Whether the peer is sent an ERROR command with the reason before the connection closes. */
    boolean tellPeer() {
        return tellPeer;
    }
}
