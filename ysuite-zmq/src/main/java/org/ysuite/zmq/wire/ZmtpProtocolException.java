package org.ysuite.zmq.wire;

/**
 * A peer broke ZMTP (ZeroMQ RFC 23/37), or was refused by the security mechanism: the connection is
 * dropped with {@link #getMessage()} as the reason. {@link #tellPeer()} says whether an ERROR command goes
 * to the peer first (handshake failures once both greetings are known, as RFC 23 asks a peer that rejects
 * a handshake to do), carrying {@link #peerReason()}.
 */
final class ZmtpProtocolException extends Exception {

    private static final long serialVersionUID = 1L;

    private final boolean tellPeer;
    private final String peerReason;
    private final boolean refusal;

    ZmtpProtocolException(String reason, boolean tellPeer) {
        super(reason, null, false, false);
        this.tellPeer = tellPeer;
        this.peerReason = reason;
        this.refusal = false;
    }

    private ZmtpProtocolException(String reason, String peerReason) {
        super(reason, null, false, false);
        this.tellPeer = true;
        this.peerReason = peerReason;
        this.refusal = true;
    }

    /**
     * The peer followed the protocol but was refused (a ZAP status other than 200): the peer is told
     * {@code statusCode} alone, as libzmq tells it (RFC 27's three digits, which a libzmq client reports as
     * an authentication failure), and the local reason is {@code reason}.
     */
    static ZmtpProtocolException refused(String reason, String statusCode) {
        return new ZmtpProtocolException(reason, statusCode);
    }

    /** Whether the peer is sent an ERROR command with {@link #peerReason()} before the connection closes. */
    boolean tellPeer() {
        return tellPeer;
    }

    /** The reason the ERROR command carries. */
    String peerReason() {
        return peerReason;
    }

    /** Whether this is a refusal by the mechanism's authentication, not a broken rule. */
    boolean isRefusal() {
        return refusal;
    }
}
