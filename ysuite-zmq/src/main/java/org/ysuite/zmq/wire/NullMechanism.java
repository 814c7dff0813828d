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
 */
final class NullMechanism implements ZmtpMechanism {

    static final String NAME = "NULL";
    static final String SOCKET_TYPE = "Socket-Type";
    static final String IDENTITY = "Identity";

    private final ZmtpOptions options;
    private Map<String, byte[]> peerProperties;

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
        out.send(ZmtpCommands.ready(out.alloc(), properties(options)));
    }

    @Override
    public boolean command(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        if (peerProperties != null || !ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.READY)) {
            throw new ZmtpProtocolException("unexpected command " + ZmtpCommands.name(in, offset, length)
                    + " in the NULL handshake (READY expected)", true);
        }
        int start = offset + 1 + ZmtpCommands.READY.length;
        peerProperties = ZmtpCommands.metadata(in, start, offset + length);
        return true;
    }

    @Override
    public Map<String, byte[]> peerProperties() {
        return peerProperties;
    }
}
