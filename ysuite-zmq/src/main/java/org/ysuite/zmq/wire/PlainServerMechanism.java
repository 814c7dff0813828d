package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PLAIN's server side (ZeroMQ RFC 24 "ZMTP-PLAIN"): takes one HELLO, asks the {@link ZmtpAuthenticator}
 * (ZAP, RFC 27) without blocking the loop, then sends WELCOME (status 200) or an ERROR carrying the ZAP
 * status code (300, 400, 500, as libzmq's plain_server does), takes INITIATE with the client's metadata
 * and answers READY with its own.
 *
 * <p>Every length in HELLO is the peer's and is checked against the command's size before a byte is read;
 * a second HELLO, or any command while the credentials are being checked, is a protocol error. With no
 * authenticator every client is refused, as libzmq 4.3 refuses PLAIN clients when no ZAP handler is bound.
 *
 * <p>The peer's properties are INITIATE's metadata, plus {@code User-Id} and the ZAP reply's metadata.
 */
final class PlainServerMechanism implements ZmtpMechanism {

    /** The property that carries the user id the ZAP handler returned (libzmq's {@code zmq_msg_gets} name). */
    static final String USER_ID = "User-Id";

    private enum State { WAITING_HELLO, WAITING_ZAP, WAITING_INITIATE, DONE }

    private final ZmtpOptions options;
    private final ZmtpSecurity security;
    private State state = State.WAITING_HELLO;
    private Runnable cancelZap;
    private Map<String, byte[]> zapProperties = Map.of();
    private Map<String, byte[]> peerProperties;

    PlainServerMechanism(ZmtpOptions options) {
        this.options = options;
        this.security = options.security();
    }

    @Override
    public String name() {
        return PlainClientMechanism.NAME;
    }

    @Override
    public void start(Output out) {
        // the client speaks first (HELLO)
    }

    @Override
    public boolean command(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        boolean hello = ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.HELLO);
        switch (state) {
            case WAITING_HELLO:
                if (!hello) {
                    throw unexpected(in, offset, length, "HELLO expected");
                }
                hello(in, offset, length, out);
                return false;
            case WAITING_ZAP:
                throw unexpected(in, offset, length, "nothing expected while the credentials are checked");
            case WAITING_INITIATE:
                if (hello) {
                    throw new ZmtpProtocolException("a second HELLO in the PLAIN handshake", true);
                }
                if (!ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.INITIATE)) {
                    throw unexpected(in, offset, length, "INITIATE expected");
                }
                // RFC 24: initiate = command-size "\\x08INITIATE" metadata
                Map<String, byte[]> p = new LinkedHashMap<>(ZmtpCommands.metadata(in,
                        offset + 1 + ZmtpCommands.INITIATE.length, offset + length));
                p.keySet().removeIf(k -> k.equalsIgnoreCase(USER_ID)); // only the ZAP handler names the user
                p.putAll(zapProperties);
                peerProperties = Collections.unmodifiableMap(p);
                // RFC 24: ready = command-size "\\x05READY" metadata
                out.send(ZmtpCommands.ready(out.alloc(), NullMechanism.properties(options)));
                state = State.DONE;
                return true;
            default:
                throw unexpected(in, offset, length, "the handshake is complete");
        }
    }

    /** RFC 24: hello = command-size "\x05HELLO" username password; username = 1-byte length, 0-255 bytes; password the same. */
    private void hello(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        int end = offset + length;
        int at = offset + 1 + ZmtpCommands.HELLO.length;
        if (end - at < 1) {
            throw new ZmtpProtocolException("malformed HELLO: no username length", true);
        }
        int userLength = in.getUnsignedByte(at++);
        if (userLength > end - at - 1) {
            throw new ZmtpProtocolException("malformed HELLO: a username of " + userLength + " B and a password"
                    + " length where " + (end - at) + " B remain", true);
        }
        byte[] user = new byte[userLength];
        in.getBytes(at, user);
        at += userLength;
        int passLength = in.getUnsignedByte(at++);
        if (passLength != end - at) {
            throw new ZmtpProtocolException("malformed HELLO: a password of " + passLength + " B where "
                    + (end - at) + " B remain", true);
        }
        byte[] pass = new byte[passLength];
        in.getBytes(at, pass);
        state = State.WAITING_ZAP;
        ZmtpAuthenticator authenticator = security.authenticator();
        if (authenticator == null) {
            Arrays.fill(pass, (byte) 0);
            throw ZmtpProtocolException.refused("authentication failed: no ZAP handler to check PLAIN credentials",
                    "500");
        }
        ZmtpAuthenticator.Request request = new ZmtpAuthenticator.Request(security.zapDomain(), out.peerAddress(),
                options.identity(), PlainClientMechanism.NAME, List.of(user, pass));
        cancelZap = authenticator.authenticate(request, reply -> out.later(() -> zapReply(reply, out)));
    }

    /** RFC 27: the handler's answer, on the loop. */
    private void zapReply(ZmtpAuthenticator.Reply reply, Output out) throws ZmtpProtocolException {
        if (state != State.WAITING_ZAP) {
            return;
        }
        cancelZap = null;
        if (!reply.statusCode().equals("200")) {
            String code = reply.statusCode().matches("[345]00") ? reply.statusCode() : "500";
            throw ZmtpProtocolException.refused("authentication failed: ZAP " + reply.statusCode() + " "
                    + printable(reply.statusText()), code);
        }
        Map<String, byte[]> p = new LinkedHashMap<>();
        byte[] metadata = reply.metadata();
        try {
            p.putAll(ZmtpCommands.metadata(Unpooled.wrappedBuffer(metadata), 0, metadata.length));
        } catch (ZmtpProtocolException e) {
            throw ZmtpProtocolException.refused("authentication failed: the ZAP reply's " + e.getMessage(), "500");
        }
        if (reply.userId().length > 0) {
            p.put(USER_ID, reply.userId());
        }
        zapProperties = p;
        // RFC 24: welcome = command-size "\x07WELCOME"
        out.send(ZmtpCommands.command(out.alloc(), ZmtpCommands.WELCOME, new byte[0]));
        state = State.WAITING_INITIATE;
    }

    private static String printable(String s) {
        return s.replaceAll("[^\\x20-\\x7e]", "?");
    }

    private ZmtpProtocolException unexpected(ByteBuf in, int offset, int length, String expected) {
        return new ZmtpProtocolException("unexpected command " + ZmtpCommands.name(in, offset, length)
                + " in the PLAIN server's handshake (" + expected + ")", true);
    }

    @Override
    public Map<String, byte[]> peerProperties() {
        return peerProperties;
    }

    @Override
    public void close() {
        Runnable c = cancelZap;
        cancelZap = null;
        if (c != null) {
            c.run();
        }
    }
}
