package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Map;

/**
 * PLAIN's client side (ZeroMQ RFC 24 "ZMTP-PLAIN"): sends HELLO with the username and password, takes
 * WELCOME, sends INITIATE with its metadata, and is done once the server's READY arrives. A refusal
 * comes as an ERROR command, which the engine handles.
 */
final class PlainClientMechanism implements ZmtpMechanism {

    static final String NAME = "PLAIN";

    private enum State { WAITING_WELCOME, WAITING_READY, DONE }

    private final ZmtpOptions options;
    private final ZmtpSecurity security;
    private State state = State.WAITING_WELCOME;
    private Map<String, byte[]> peerProperties;

    PlainClientMechanism(ZmtpOptions options) {
        this.options = options;
        this.security = options.security();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void start(Output out) {
        // RFC 24: hello = command-size "\\x05HELLO" username password; each a 1-byte length, then the bytes
        byte[] user = security.username();
        byte[] pass = security.password();
        byte[] data = new byte[2 + user.length + pass.length];
        data[0] = (byte) user.length;
        System.arraycopy(user, 0, data, 1, user.length);
        data[1 + user.length] = (byte) pass.length;
        System.arraycopy(pass, 0, data, 2 + user.length, pass.length);
        out.send(ZmtpCommands.command(out.alloc(), ZmtpCommands.HELLO, data));
        Arrays.fill(pass, (byte) 0); // our copies; the frame itself is released once written
        Arrays.fill(data, (byte) 0);
    }

    @Override
    public boolean command(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        if (state == State.WAITING_WELCOME && ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.WELCOME)) {
            // RFC 24: welcome = command-size "\\x07WELCOME", no data
            if (length != 1 + ZmtpCommands.WELCOME.length) {
                throw new ZmtpProtocolException("malformed WELCOME: " + (length - 1 - ZmtpCommands.WELCOME.length)
                        + " B of data where PLAIN's WELCOME has none", true);
            }
            out.send(ZmtpCommands.withMetadata(out.alloc(), ZmtpCommands.INITIATE, NullMechanism.properties(options)));
            state = State.WAITING_READY;
            return false;
        }
        if (state == State.WAITING_READY && ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.READY)) {
            // RFC 24: ready = command-size "\\x05READY" metadata
            peerProperties = ZmtpCommands.metadata(in, offset + 1 + ZmtpCommands.READY.length, offset + length);
            state = State.DONE;
            return true;
        }
        throw new ZmtpProtocolException("unexpected command " + ZmtpCommands.name(in, offset, length)
                + " in the PLAIN client's handshake (" + (state == State.WAITING_WELCOME ? "WELCOME" : "READY")
                + " expected)", true);
    }

    @Override
    public Map<String, byte[]> peerProperties() {
        return peerProperties;
    }
}
