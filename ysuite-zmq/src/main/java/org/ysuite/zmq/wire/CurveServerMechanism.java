package org.ysuite.zmq.wire;

import static org.ysuite.zmq.wire.CurveClientMechanism.nonce;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ysuite.zmq.internal.Sodium;

/**
 * CURVE's server side (ZeroMQ RFC 25 ZMTP-CURVE over RFC 26 CurveZMQ, libzmq's curve_server): takes one
 * HELLO (it must open under our long-term key S), answers WELCOME with a fresh short-term key S' and a
 * cookie (C' and s' in a secretbox under a key of this connection), takes INITIATE (the cookie must give
 * back C' and s'; the vouch must bind the client's long-term key C to C' and to S), asks the
 * {@link ZmtpAuthenticator} about C (ZAP, RFC 27: mechanism {@code "CURVE"}, credential the 32-byte key)
 * when a handler is there, and answers READY. As libzmq 4.3, with no handler every client whose handshake
 * is valid is in. Keys are compared in constant time ({@code crypto_verify_32}). Event loop only.
 */
final class CurveServerMechanism implements ZmtpMechanism {

    private enum State { WAITING_HELLO, WAITING_INITIATE, WAITING_ZAP, DONE }

    /** RFC 26: HELLO's body is exactly 200 bytes. */
    static final int HELLO_LENGTH = 200;
    /** RFC 26: INITIATE's body is at least 257 bytes (metadata follow). */
    static final int INITIATE_MIN = 257;

    private final ZmtpOptions options;
    private final ZmtpSecurity security;
    private final byte[] publicKey;
    private final byte[] secretKey;
    private final byte[] clientShort = new byte[32];
    private final byte[] shortPublic = new byte[32];
    private final byte[] shortSecret = new byte[32];
    private final byte[] cookieKey = new byte[32];
    private byte[] precomputed;
    private long received;
    private long sent;
    private State state = State.WAITING_HELLO;
    private Runnable cancelZap;
    private Map<String, byte[]> initiateProperties;
    private Map<String, byte[]> peerProperties;
    private CurveCodec codec;

    CurveServerMechanism(ZmtpOptions options) {
        this.options = options;
        this.security = options.security();
        this.publicKey = security.curve().publicKey();
        this.secretKey = security.curve().secretKey();
    }

    @Override
    public String name() {
        return CurveClientMechanism.NAME;
    }

    @Override
    public void start(Output out) {
        // the client speaks first (HELLO)
    }

    @Override
    public boolean command(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        boolean hello = ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.HELLO);
        if (state == State.WAITING_HELLO && hello) {
            hello(in, offset, length, out);
            state = State.WAITING_INITIATE;
            return false;
        }
        if (hello) {
            throw new ZmtpProtocolException("a second HELLO in the CURVE handshake (replayed)", true);
        }
        if (state == State.WAITING_INITIATE && ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.INITIATE)) {
            return initiate(in, offset, length, out);
        }
        throw new ZmtpProtocolException("unexpected command " + ZmtpCommands.name(in, offset, length)
                + " in the CURVE server's handshake (" + (state == State.WAITING_HELLO ? "HELLO expected"
                : state == State.WAITING_INITIATE ? "INITIATE expected" : "nothing expected while the key is checked")
                + ")", true);
    }

    /**
     * RFC 26: hello = %x05 "HELLO" version padding(72) C'(32) short-nonce(8) hello-box(80), where the box
     * holds 64 zero bytes from C' to S: it opens only for the holder of s.
     */
    private void hello(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        if (length != HELLO_LENGTH) {
            throw new ZmtpProtocolException("malformed HELLO: " + length + " B, CURVE's is " + HELLO_LENGTH, true);
        }
        int major = in.getUnsignedByte(offset + 6);
        int minor = in.getUnsignedByte(offset + 7);
        if (major != 1 || minor != 0) {
            throw new ZmtpProtocolException("CURVE HELLO version " + major + "." + minor + ", 1.0 expected", true);
        }
        in.getBytes(offset + 80, clientShort);
        long n = in.getLong(offset + 112);
        byte[] box = new byte[80];
        in.getBytes(offset + 120, box);
        Sodium.Lib na = Sodium.lib();
        byte[] zeros = new byte[64];
        if (na.crypto_box_open_easy(zeros, box, 80, nonce("CurveZMQHELLO---", null, n), clientShort, secretKey) != 0) {
            throw new ZmtpProtocolException("HELLO box does not open: the client does not know this server's public"
                    + " key", true);
        }
        received = n;
        // welcome = %x07 "WELCOME" long-nonce(16) box[S'(32) cookie(96)](S->C')
        na.crypto_box_keypair(shortPublic, shortSecret);
        na.randombytes_buf(cookieKey, 32);
        byte[] cookieNonce = Sodium.random(16);
        byte[] cookiePlain = new byte[64];
        System.arraycopy(clientShort, 0, cookiePlain, 0, 32);
        System.arraycopy(shortSecret, 0, cookiePlain, 32, 32);
        byte[] cookieBox = new byte[80];
        na.crypto_secretbox_easy(cookieBox, cookiePlain, 64, nonce("COOKIE--", cookieNonce, 0), cookieKey);
        Arrays.fill(cookiePlain, (byte) 0);
        byte[] welcomePlain = new byte[128];
        System.arraycopy(shortPublic, 0, welcomePlain, 0, 32);
        System.arraycopy(cookieNonce, 0, welcomePlain, 32, 16);
        System.arraycopy(cookieBox, 0, welcomePlain, 48, 80);
        byte[] welcomeNonce = Sodium.random(16);
        byte[] welcomeBox = new byte[144];
        na.crypto_box_easy(welcomeBox, welcomePlain, 128, nonce("WELCOME-", welcomeNonce, 0), clientShort, secretKey);
        byte[] data = new byte[160];
        System.arraycopy(welcomeNonce, 0, data, 0, 16);
        System.arraycopy(welcomeBox, 0, data, 16, 144);
        out.send(ZmtpCommands.command(out.alloc(), ZmtpCommands.WELCOME, data));
    }

    /**
     * RFC 26: initiate = %x08 "INITIATE" cookie(96) short-nonce(8) box[C(32) vouch-nonce(16) vouch(80)
     * metadata](C'->S'); vouch = box[C' S](C->S').
     */
    private boolean initiate(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException {
        if (length < INITIATE_MIN) {
            throw new ZmtpProtocolException("malformed INITIATE: " + length + " B, at least " + INITIATE_MIN, true);
        }
        Sodium.Lib na = Sodium.lib();
        byte[] cookieNonce = new byte[16];
        in.getBytes(offset + 9, cookieNonce);
        byte[] cookieBox = new byte[80];
        in.getBytes(offset + 25, cookieBox);
        byte[] cookie = new byte[64];
        if (na.crypto_secretbox_open_easy(cookie, cookieBox, 80, nonce("COOKIE--", cookieNonce, 0), cookieKey) != 0) {
            throw new ZmtpProtocolException("INITIATE's cookie does not open (not this connection's)", true);
        }
        boolean same = Sodium.equal32(Arrays.copyOfRange(cookie, 0, 32), clientShort)
                & Sodium.equal32(Arrays.copyOfRange(cookie, 32, 64), shortSecret);
        Arrays.fill(cookie, (byte) 0);
        if (!same) {
            throw new ZmtpProtocolException("INITIATE's cookie names other keys than this connection's", true);
        }
        long n = in.getLong(offset + 105);
        // RFC 26: the client's short nonces strictly increase (HELLO's, then INITIATE's)
        if (Long.compareUnsigned(n, received) <= 0) {
            throw new ZmtpProtocolException("INITIATE short nonce " + Long.toUnsignedString(n)
                    + " not above HELLO's, " + Long.toUnsignedString(received), true);
        }
        precomputed = new byte[32];
        na.crypto_box_beforenm(precomputed, clientShort, shortSecret);
        byte[] box = new byte[length - 113];
        in.getBytes(offset + 113, box);
        byte[] plain = new byte[box.length - Sodium.MAC_BYTES];
        if (na.crypto_box_open_easy_afternm(plain, box, box.length, nonce("CurveZMQINITIATE", null, n), precomputed)
                != 0) {
            throw new ZmtpProtocolException("INITIATE box does not open (bad MAC)", true);
        }
        received = n;
        byte[] clientKey = Arrays.copyOfRange(plain, 0, 32);
        byte[] vouchNonce = Arrays.copyOfRange(plain, 32, 48);
        byte[] vouchBox = Arrays.copyOfRange(plain, 48, 128);
        byte[] vouch = new byte[64];
        if (na.crypto_box_open_easy(vouch, vouchBox, 80, nonce("VOUCH---", vouchNonce, 0), clientKey, shortSecret)
                != 0) {
            throw new ZmtpProtocolException("INITIATE's vouch does not open under the client's key", true);
        }
        boolean vouched = Sodium.equal32(Arrays.copyOfRange(vouch, 0, 32), clientShort)
                & Sodium.equal32(Arrays.copyOfRange(vouch, 32, 64), publicKey);
        if (!vouched) {
            throw new ZmtpProtocolException("INITIATE's vouch names another short-term key or server", true);
        }
        Map<String, byte[]> props = new LinkedHashMap<>(ZmtpCommands.metadata(Unpooled.wrappedBuffer(plain), 128,
                plain.length));
        props.keySet().removeIf(k -> k.equalsIgnoreCase(PlainServerMechanism.USER_ID));
        initiateProperties = props;
        ZmtpAuthenticator authenticator = security.authenticator();
        if (authenticator == null || !authenticator.available()) {
            return ready(Map.of(), out); // libzmq 4.3: no ZAP handler, no check
        }
        state = State.WAITING_ZAP;
        ZmtpAuthenticator.Request request = new ZmtpAuthenticator.Request(security.zapDomain(), out.peerAddress(),
                options.identity(), CurveClientMechanism.NAME, List.of(clientKey));
        cancelZap = authenticator.authenticate(request, reply -> out.later(() -> zapReply(reply, out)));
        return false;
    }

    private void zapReply(ZmtpAuthenticator.Reply reply, Output out) throws ZmtpProtocolException {
        if (state != State.WAITING_ZAP) {
            return;
        }
        cancelZap = null;
        if (ready(ZapCheck.accepted(reply, "CURVE"), out)) {
            out.complete();
        }
    }

    /** RFC 26: ready = %x05 "READY" short-nonce(8) box[metadata](S'->C'), nonce "CurveZMQREADY---". */
    private boolean ready(Map<String, byte[]> zap, Output out) {
        Map<String, byte[]> p = new LinkedHashMap<>(initiateProperties);
        p.putAll(zap);
        peerProperties = Collections.unmodifiableMap(p);
        byte[] meta = ZmtpCommands.metadataBytes(NullMechanism.properties(options));
        long n = ++sent;
        byte[] box = new byte[Sodium.MAC_BYTES + meta.length];
        Sodium.lib().crypto_box_easy_afternm(box, meta, meta.length, nonce("CurveZMQREADY---", null, n), precomputed);
        byte[] data = new byte[8 + box.length];
        CurveCodec.putLong(data, 0, n);
        System.arraycopy(box, 0, data, 8, box.length);
        out.send(ZmtpCommands.command(out.alloc(), ZmtpCommands.READY, data));
        codec = new CurveCodec(precomputed, false, sent, received);
        wipeHandshake();
        state = State.DONE;
        return true;
    }

    private void wipeHandshake() {
        Arrays.fill(shortSecret, (byte) 0);
        Arrays.fill(cookieKey, (byte) 0);
        if (precomputed != null) {
            Arrays.fill(precomputed, (byte) 0);
        }
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
        Runnable c = cancelZap;
        cancelZap = null;
        if (c != null) {
            c.run();
        }
        Arrays.fill(secretKey, (byte) 0);
        wipeHandshake();
        if (codec != null) {
            codec.destroy();
        }
    }
}
