package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.ysuite.zmq.internal.Sodium;

/**
 * CURVE's traffic phase for one connection (ZeroMQ RFC 26 "MESSAGE", libzmq's curve_encoding_t): each
 * frame, and each command of the traffic phase, travels as a MESSAGE box
 * {@code "\x07MESSAGE" short-nonce box(flags data)} under the key both sides precomputed from their
 * short-term keys. flags is 0x01 MORE, 0x02 COMMAND. The nonce is {@code "CurveZMQMESSAGEC"} (from the
 * client) or {@code "CurveZMQMESSAGES"} (from the server) then the 8-byte short nonce.
 *
 * <p><b>Nonces.</b> RFC 26: a short nonce is never reused under one key, so each direction's counter goes
 * up by one per box from where the handshake left it, and a box whose short nonce is not above the last
 * one accepted is refused (a replay or a reordering) before its MAC is checked.
 *
 * <p><b>Memory.</b> A box is built in one pooled direct buffer: the frame header, the name and nonce,
 * then the plain text is copied behind the MAC's place and encrypted in place (libsodium's {@code _easy}
 * functions allow overlap); opening copies the box into a pooled direct buffer and decrypts in place.
 * The nonces and the key live in a small direct block of their own, and libsodium is called with
 * addresses ({@link Sodium#raw()}), so a box costs no Java allocation beyond Netty's pooled buffer; where
 * Netty cannot give addresses (no {@code Unsafe}) two {@link java.nio.ByteBuffer} views per box are passed
 * instead. All of it on the connection's I/O thread, none on the application's. Event loop only.
 */
final class CurveCodec {

    /** flags bit: more frames of this message follow. */
    static final int FLAG_MORE = 0x01;
    /** flags bit: the box carries a command (PING, PONG, SUBSCRIBE, ...). */
    static final int FLAG_COMMAND = 0x02;
    /** "\x07MESSAGE" then the 8-byte short nonce. */
    static final int HEADER = 1 + 7 + 8;
    /** The smallest MESSAGE body: its header, the MAC and the flags byte. */
    static final int MIN_BODY = HEADER + Sodium.MAC_BYTES + 1;

    private final byte[] key;
    private final byte[] sendNonce = new byte[Sodium.NONCE_BYTES];
    private final byte[] receiveNonce = new byte[Sodium.NONCE_BYTES];
    private long sent;
    private long received;
    /** The send nonce (24 B), the receive nonce (24 B) and the key (32 B) in direct memory; null until used or without addresses. */
    private ByteBuf secrets;
    private long secretsAddress;
    /** Whether the by-address path is unavailable (no 64-bit pointers, or Netty gives no addresses). */
    private boolean noAddresses;
    private static final int SEND_NONCE = 0;
    private static final int RECEIVE_NONCE = 24;
    private static final int KEY = 48;

    /**
     * @param key the precomputed key ({@code crypto_box_beforenm} of the peer's short-term public key and ours); copied
     * @param client whether this side is the client
     * @param lastSent the short nonce of this side's last handshake box
     * @param lastReceived the short nonce of the peer's last handshake box
     */
    CurveCodec(byte[] key, boolean client, long lastSent, long lastReceived) {
        this.key = key.clone();
        System.arraycopy(ascii(client ? "CurveZMQMESSAGEC" : "CurveZMQMESSAGES"), 0, sendNonce, 0, 16);
        System.arraycopy(ascii(client ? "CurveZMQMESSAGES" : "CurveZMQMESSAGEC"), 0, receiveNonce, 0, 16);
        this.sent = lastSent;
        this.received = lastReceived;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The block of nonces and key by address, made on first use; null where addresses are not to be had. */
    private ByteBuf secrets(ByteBufAllocator alloc) {
        if (secrets != null || noAddresses) {
            return secrets;
        }
        ByteBuf b = alloc.directBuffer(80, 80);
        if (!b.hasMemoryAddress() || Sodium.raw() == null) {
            b.release();
            noAddresses = true;
            return null;
        }
        b.writeBytes(sendNonce, 0, 24).writeBytes(receiveNonce, 0, 24).writeBytes(key);
        secrets = b;
        secretsAddress = b.memoryAddress();
        return b;
    }

    /** The short nonce of the last box sent. */
    long lastSent() {
        return sent;
    }

    /**
     * A whole ZMTP frame (header included) carrying {@code length} bytes of {@code data} from
     * {@code offset} in a MESSAGE box with {@code flags}. The outer frame is a message frame without MORE,
     * as libzmq 4.3 sends it. {@code data} is not released.
     */
    ByteBuf seal(ByteBufAllocator alloc, ByteBuf data, int offset, int length, int flags) {
        int body = HEADER + Sodium.MAC_BYTES + 1 + length;
        int header = ZmtpConnection.frameHeaderLength(body);
        ByteBuf out = alloc.directBuffer(header + body);
        boolean done = false;
        try {
            ZmtpConnection.writeFrameHeader(out, body, false);
            out.writeByte(7);
            out.writeBytes(ZmtpCommands.MESSAGE);
            long nonce = ++sent; // RFC 26: strictly increasing, never reused under this key
            if (nonce == 0) {
                throw new IllegalStateException("CURVE short nonce exhausted (2^64 boxes)");
            }
            out.writeLong(nonce);
            int boxAt = out.writerIndex();
            out.writerIndex(boxAt + Sodium.MAC_BYTES);
            out.writeByte(flags);
            out.writeBytes(data, offset, length);
            ByteBuf s = secrets(alloc);
            int rc;
            if (s != null && out.hasMemoryAddress()) {
                s.setLong(SEND_NONCE + 16, nonce);
                long c = out.memoryAddress() + boxAt;
                rc = Sodium.raw().crypto_box_easy_afternm(c, c + Sodium.MAC_BYTES, 1 + length,
                        secretsAddress + SEND_NONCE, secretsAddress + KEY);
            } else {
                putLong(sendNonce, 16, nonce);
                rc = Sodium.boxes().crypto_box_easy_afternm(out.nioBuffer(boxAt, Sodium.MAC_BYTES + 1 + length),
                        out.nioBuffer(boxAt + Sodium.MAC_BYTES, 1 + length), 1 + length, sendNonce, key);
            }
            if (rc != 0) {
                throw new IllegalStateException("crypto_box_easy_afternm failed: " + rc);
            }
            done = true;
            return out;
        } finally {
            if (!done) {
                out.release();
            }
        }
    }

    /**
     * Opens the MESSAGE body of {@code length} bytes at {@code offset}: a buffer whose first readable
     * byte is the flags, then the data (the caller releases it).
     *
     * @throws ZmtpProtocolException if it is not a MESSAGE, is too short, repeats or goes back on a short
     *                               nonce, or its MAC does not verify
     */
    ByteBuf open(ByteBufAllocator alloc, ByteBuf in, int offset, int length) throws ZmtpProtocolException {
        if (!ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.MESSAGE)) {
            throw new ZmtpProtocolException("unexpected " + (length > 0 ? "command " + ZmtpCommands.name(in, offset,
                    length) : "empty frame") + " after the CURVE handshake (MESSAGE expected)", false);
        }
        if (length < MIN_BODY) {
            throw new ZmtpProtocolException("malformed MESSAGE: " + length + " B, at least " + MIN_BODY, false);
        }
        long nonce = in.getLong(offset + 8);
        // RFC 26: the short nonce is strictly increasing; a replayed or reordered box is refused
        if (Long.compareUnsigned(nonce, received) <= 0) {
            throw new ZmtpProtocolException("MESSAGE short nonce " + Long.toUnsignedString(nonce)
                    + " not above the last one, " + Long.toUnsignedString(received) + " (replayed or reordered)", false);
        }
        int clen = length - HEADER;
        ByteBuf box = alloc.directBuffer(clen);
        boolean done = false;
        try {
            box.writeBytes(in, offset + HEADER, clen);
            ByteBuf s = secrets(alloc);
            int rc;
            if (s != null && box.hasMemoryAddress()) {
                s.setLong(RECEIVE_NONCE + 16, nonce);
                long c = box.memoryAddress();
                rc = Sodium.raw().crypto_box_open_easy_afternm(c + Sodium.MAC_BYTES, c, clen,
                        secretsAddress + RECEIVE_NONCE, secretsAddress + KEY);
            } else {
                putLong(receiveNonce, 16, nonce);
                rc = Sodium.boxes().crypto_box_open_easy_afternm(box.nioBuffer(Sodium.MAC_BYTES,
                        clen - Sodium.MAC_BYTES), box.nioBuffer(0, clen), clen, receiveNonce, key);
            }
            if (rc != 0) {
                throw new ZmtpProtocolException("MESSAGE box does not verify (bad MAC) at short nonce "
                        + Long.toUnsignedString(nonce), false);
            }
            received = nonce;
            box.readerIndex(Sodium.MAC_BYTES);
            done = true;
            return box;
        } finally {
            if (!done) {
                box.release();
            }
        }
    }

    /** Zeroes the key (both copies) and releases the direct block. */
    void destroy() {
        Arrays.fill(key, (byte) 0);
        ByteBuf s = secrets;
        secrets = null;
        if (s != null) {
            s.setZero(0, s.capacity());
            s.release();
        }
    }

    static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }
}
