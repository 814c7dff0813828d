package org.ysuite.zmq.wire;

import io.netty.buffer.Unpooled;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A ZAP answer (ZeroMQ RFC 27) as the CURVE server and NULL sides use it, as libzmq's zap_client does: 200
 * lets the peer in with the user id and metadata the handler gave; 300, 400 and 500 refuse it, and the
 * peer is told the status code in an ERROR command; anything else counts as 500.
 */
final class ZapCheck {

    private ZapCheck() {
    }

    /**
     * The properties a 200 reply adds to the peer's ({@code User-Id} and the reply's metadata).
     *
     * @throws ZmtpProtocolException a refusal carrying the status code, if the reply is not 200
     */
    static Map<String, byte[]> accepted(ZmtpAuthenticator.Reply reply, String mechanism)
            throws ZmtpProtocolException {
        if (!reply.statusCode().equals("200")) {
            String code = reply.statusCode().matches("[345]00") ? reply.statusCode() : "500";
            throw ZmtpProtocolException.refused(mechanism + " authentication failed: ZAP " + reply.statusCode() + " "
                    + reply.statusText().replaceAll("[^\\x20-\\x7e]", "?"), code);
        }
        Map<String, byte[]> p = new LinkedHashMap<>();
        byte[] metadata = reply.metadata();
        try {
            p.putAll(ZmtpCommands.metadata(Unpooled.wrappedBuffer(metadata), 0, metadata.length));
        } catch (ZmtpProtocolException e) {
            throw ZmtpProtocolException.refused("authentication failed: the ZAP reply's " + e.getMessage(), "500");
        }
        if (reply.userId().length > 0) {
            p.put(PlainServerMechanism.USER_ID, reply.userId());
        }
        return p;
    }
}
