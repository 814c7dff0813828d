package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ysuite.zmq.SocketType;

/**
 * ZMTP's NULL mechanism (ZeroMQ RFC 23 "The NULL Security Mechanism"): each side sends READY with its
 * metadata and the handshake is complete once the peer's READY has arrived. The metadata are
 * {@code Socket-Type}, and {@code Identity} for REQ, DEALER and ROUTER sockets (as libzmq sends it, empty
 * when the socket has none).
 *
 * <p>ZAP (RFC 27), as libzmq 4.3's null_mechanism: a side with a ZAP domain set, whose authenticator has a
 * handler to ask, sends the request (mechanism {@code "NULL"}, no credentials) before its READY; READY goes
 * out only on 200, a refusal goes to the peer as an ERROR carrying the status code. Without a domain, or
 * without a handler, nothing is asked.
 */
final class NullMechanism implements ZmtpMechanism {

    static final String NAME = "NULL";
    static final String SOCKET_TYPE = "Socket-Type";
    static final String IDENTITY = "Identity";

    private final ZmtpOptions options;
    private Map<String, byte[]> peerProperties;
    /** The peer's READY metadata, kept until ZAP has answered. */
    private Map<String, byte[]> peerReady;
    private boolean zapPending;
    private Map<String, byte[]> zapProperties = Map.of();
    private Runnable cancelZap;

    NullMechanism(ZmtpOptions options) {
        this.options = options;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The properties our READY carries. */
    static Map<String, byte[]> properties(ZmtpOptions options) {
        Map<String, byte[]> p = new LinkedHashMap<>();
        SocketType type = options.socketType();
        p.put(SOCKET_TYPE, type.name().getBytes(StandardCharsets.US_ASCII));
        if (type == SocketType.REQ || type == SocketType.DEALER || type == SocketType.ROUTER) {
            p.put(IDENTITY, options.identity());
        }
        return p;
    }

    @Override
    public void start(Output out) {
        ZmtpSecurity security = options.security();
        ZmtpAuthenticator authenticator = security.authenticator();
        if (!security.zapDomain().isEmpty() && authenticator != null && authenticator.available()) {
            zapPending = true;
            ZmtpAuthenticator.Request request = new ZmtpAuthenticator.Request(security.zapDomain(),
                    out.peerAddress(), options.identity(), NAME, java.util.List.of());
            cancelZap = authenticator.authenticate(request, reply -> out.later(() -> zapReply(reply, out)));
            return;
        }
        out.send(ZmtpCommands.ready(out.alloc(), properties(options)));
    }

    private void zapReply(ZmtpAuthenticator.Reply reply, Output out) throws ZmtpProtocolException {
        if (!zapPending) {
            return;
        }
        cancelZap = null;
        zapProperties = ZapCheck.accepted(reply, NAME);
        zapPending = false;
        out.send(ZmtpCommands.ready(out.alloc(), properties(options)));
        if (peerReady != null) {
            complete();
            out.complete();
        }
    }

    private void complete() {
        Map<String, byte[]> p = new LinkedHashMap<>(peerReady);
        p.keySet().removeIf(k -> k.equalsIgnoreCase(PlainServerMechanism.USER_ID));
        p.putAll(zapProperties);
        peerProperties = java.util.Collections.unmodifiableMap(p);
    }

    @Override
    public void close() {
        Runnable c = cancelZap;
        cancelZap = null;
        if (c != null) {
            c.run();
        }
    }

    @Override
    public boolean command(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        if (peerReady != null || !ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.READY)) {
            throw new ZmtpProtocolException("unexpected command " + ZmtpCommands.name(in, offset, length)
                    + " in the NULL handshake (READY expected)", true);
        }
        int start = offset + 1 + ZmtpCommands.READY.length;
        peerReady = ZmtpCommands.metadata(in, start, offset + length);
        if (zapPending) {
            return false; // complete once ZAP has answered
        }
        if (zapProperties.isEmpty()) {
            peerProperties = peerReady;
        } else {
            complete();
        }
        return true;
    }

    @Override
    public Map<String, byte[]> peerProperties() {
        return peerProperties;
    }
}
