package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.ysuite.zmq.internal.Sodium;

/**
 * CURVE's client side (ZeroMQ RFC 25 ZMTP-CURVE over RFC 26 CurveZMQ, libzmq's curve_client): sends
 * HELLO with a fresh short-term key C', takes WELCOME (the server's short-term key S' and a cookie, boxed
 * to C' by the server's long-term key S, which proves the server holds S's secret), sends INITIATE (the
 * cookie, our long-term key C and a vouch binding C' to C, and our metadata), and is done once the
 * server's READY opens. Every box is libsodium's {@code crypto_box}; a box that does not open ends the
 * connection with that reason. Event loop only.
 */
final class CurveClientMechanism implements ZmtpMechanism {

    static final String NAME = "CURVE";

    private enum State { WAITING_WELCOME, WAITING_READY, DONE }

    private final ZmtpOptions options;
    private final byte[] publicKey;
    private final byte[] secretKey;
    private final byte[] serverKey;
    /** C', c': this connection's short-term key pair (RFC 26). */
    private final byte[] shortPublic = new byte[32];
    private final byte[] shortSecret = new byte[32];
    /** The key precomputed from S' and c'. */
    private byte[] precomputed;
    private long sent;
    private State state = State.WAITING_WELCOME;
    private Map<String, byte[]> peerProperties;
    private CurveCodec codec;

    CurveClientMechanism(ZmtpOptions options) {
        this.options = options;
        ZmtpSecurity.CurveKeys keys = options.security().curve();
        this.publicKey = keys.publicKey();
        this.secretKey = keys.secretKey();
        this.serverKey = keys.serverKey();
    }

    @Override
    public String name() {
        return NAME;
    }

    static byte[] nonce(String prefix, byte[] tail, long shortNonce) {
        byte[] n = new byte[Sodium.NONCE_BYTES];
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(p, 0, n, 0, p.length);
        if (tail != null) {
            System.arraycopy(tail, 0, n, p.length, tail.length);
        } else {
            CurveCodec.putLong(n, 16, shortNonce);
        }
        return n;
    }

    @Override
    public void start(Output out) {
        Sodium.Lib na = Sodium.lib();
        na.crypto_box_keypair(shortPublic, shortSecret);
        // RFC 26: hello = %x05 "HELLO" version(%x1 %x0) padding(72 zero) C' short-nonce(8)
        //                 box[64 zero](C'->S), nonce "CurveZMQHELLO---" short-nonce
        long n = ++sent;
        byte[] box = new byte[Sodium.MAC_BYTES + 64];
        na.crypto_box_easy(box, new byte[64], 64, nonce("CurveZMQHELLO---", null, n), serverKey, shortSecret);
        ByteBuf data = out.alloc().buffer(194);
        data.writeByte(1).writeByte(0).writeZero(72).writeBytes(shortPublic).writeLong(n).writeBytes(box);
        send(out, ZmtpCommands.HELLO, data);
    }

    private static void send(Output out, byte[] name, ByteBuf data) {
        byte[] bytes = new byte[data.readableBytes()];
        data.readBytes(bytes);
        data.release();
        out.send(ZmtpCommands.command(out.alloc(), name, bytes));
    }

    @Override
    public boolean command(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        if (state == State.WAITING_WELCOME && ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.WELCOME)) {
            welcome(in, offset, length, out);
            state = State.WAITING_READY;
            return false;
        }
        if (state == State.WAITING_READY && ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.READY)) {
            ready(in, offset, length);
            state = State.DONE;
            return true;
        }
        throw new ZmtpProtocolException("unexpected command " + ZmtpCommands.name(in, offset, length)
                + " in the CURVE client's handshake (" + (state == State.WAITING_WELCOME ? "WELCOME" : "READY")
                + " expected)", true);
    }

    /** RFC 26: welcome = %x07 "WELCOME" long-nonce(16) box[S' cookie](S->C'), nonce "WELCOME-" long-nonce. */
    private void welcome(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        if (length != 168) {
            throw new ZmtpProtocolException("malformed WELCOME: " + length + " B, CURVE's is 168", true);
        }
        byte[] longNonce = new byte[16];
        in.getBytes(offset + 8, longNonce);
        byte[] box = new byte[144];
        in.getBytes(offset + 24, box);
        byte[] plain = new byte[128];
        Sodium.Lib na = Sodium.lib();
        if (na.crypto_box_open_easy(plain, box, box.length, nonce("WELCOME-", longNonce, 0), serverKey,
                shortSecret) != 0) {
            throw new ZmtpProtocolException("WELCOME box does not open: the server does not hold the secret key of"
                    + " ZMQ_CURVE_SERVERKEY", true);
        }
        byte[] serverShort = Arrays.copyOfRange(plain, 0, 32);
        byte[] cookie = Arrays.copyOfRange(plain, 32, 128);
        Arrays.fill(plain, (byte) 0);
        precomputed = new byte[32];
        na.crypto_box_beforenm(precomputed, serverShort, shortSecret);
        // vouch = box[C' S](C->S'), nonce "VOUCH---" long-nonce (RFC 26: proves C' belongs to C)
        byte[] vouchNonce = Sodium.random(16);
        byte[] vouchPlain = new byte[64];
        System.arraycopy(shortPublic, 0, vouchPlain, 0, 32);
        System.arraycopy(serverKey, 0, vouchPlain, 32, 32);
        byte[] vouch = new byte[Sodium.MAC_BYTES + 64];
        na.crypto_box_easy(vouch, vouchPlain, 64, nonce("VOUCH---", vouchNonce, 0), serverShort, secretKey);
        // initiate = %x08 "INITIATE" cookie(96) short-nonce box[C vouch-nonce vouch metadata](C'->S')
        byte[] meta = ZmtpCommands.metadataBytes(NullMechanism.properties(options));
        byte[] initiatePlain = new byte[32 + 16 + 80 + meta.length];
        System.arraycopy(publicKey, 0, initiatePlain, 0, 32);
        System.arraycopy(vouchNonce, 0, initiatePlain, 32, 16);
        System.arraycopy(vouch, 0, initiatePlain, 48, 80);
        System.arraycopy(meta, 0, initiatePlain, 128, meta.length);
        long n = ++sent;
        byte[] initiateBox = new byte[Sodium.MAC_BYTES + initiatePlain.length];
        na.crypto_box_easy_afternm(initiateBox, initiatePlain, initiatePlain.length,
                nonce("CurveZMQINITIATE", null, n), precomputed);
        ByteBuf data = out.alloc().buffer(96 + 8 + initiateBox.length);
        data.writeBytes(cookie).writeLong(n).writeBytes(initiateBox);
        send(out, ZmtpCommands.INITIATE, data);
        Arrays.fill(shortSecret, (byte) 0); // c' is not needed once the key is precomputed
    }

    /** RFC 26: ready = %x05 "READY" short-nonce box[metadata](S'->C'), nonce "CurveZMQREADY---" short-nonce. */
    private void ready(ByteBuf in, int offset, int length) throws ZmtpProtocolException {
        if (length < 6 + 8 + Sodium.MAC_BYTES) {
            throw new ZmtpProtocolException("malformed READY: " + length + " B, at least 30", true);
        }
        long n = in.getLong(offset + 6);
        byte[] box = new byte[length - 14];
        in.getBytes(offset + 14, box);
        byte[] plain = new byte[box.length - Sodium.MAC_BYTES];
        if (Sodium.lib().crypto_box_open_easy_afternm(plain, box, box.length, nonce("CurveZMQREADY---", null, n),
                precomputed) != 0) {
            throw new ZmtpProtocolException("READY box does not open (bad MAC)", true);
        }
        peerProperties = ZmtpCommands.metadata(Unpooled.wrappedBuffer(plain), 0, plain.length);
        codec = new CurveCodec(precomputed, true, sent, n);
        Arrays.fill(precomputed, (byte) 0);
    }

    @Override
    public Map<String, byte[]> peerProperties() {
        return peerProperties;
    }

    @Override
    public CurveCodec codec() {
        return codec;
    }

    @Override
    public void close() {
        Arrays.fill(secretKey, (byte) 0);
        Arrays.fill(shortSecret, (byte) 0);
        if (precomputed != null) {
            Arrays.fill(precomputed, (byte) 0);
        }
        if (codec != null) {
            codec.destroy();
        }
    }
}
