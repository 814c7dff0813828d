package org.ysuite.zmq.wire;

import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.command;
import static org.ysuite.zmq.wire.ZmtpWire.concat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.ysuite.zmq.internal.Sodium;

/**
 * A CURVE client written for the tests straight from RFC 26 over libsodium, byte arrays in and out, so
 * that a test can send what a real client never would: a vouch for another server, metadata that lie
 * about their length, a MESSAGE with a flipped bit or a repeated nonce.
 */
final class CurveTestClient {

    final Sodium.Lib na = Sodium.lib();
    final byte[] serverKey;
    final byte[] publicKey = new byte[32];
    final byte[] secretKey = new byte[32];
    final byte[] shortPublic = new byte[32];
    final byte[] shortSecret = new byte[32];
    byte[] precomputed;
    long nonce;
    /** The server's short nonce seen last (READY's, then each MESSAGE's). */
    long serverNonce;

    CurveTestClient(byte[] serverKey) {
        this.serverKey = serverKey;
        na.crypto_box_keypair(publicKey, secretKey);
        na.crypto_box_keypair(shortPublic, shortSecret);
    }

    static byte[] nonce(String prefix, byte[] tail) {
        return concat(ascii(prefix), tail);
    }

    static byte[] shortNonce(long n) {
        return ByteBuffer.allocate(8).putLong(n).array();
    }

    /** The HELLO command frame (RFC 26: 200 bytes of body). */
    byte[] hello() {
        byte[] sn = shortNonce(++nonce);
        byte[] box = new byte[80];
        na.crypto_box_easy(box, new byte[64], 64, nonce("CurveZMQHELLO---", sn), serverKey, shortSecret);
        return command("HELLO", concat(new byte[] {1, 0}, new byte[72], shortPublic, sn, box));
    }

    /** Opens the WELCOME command frame; returns S' then the cookie (128 bytes), or null if it does not open. */
    byte[] welcome(byte[] frame) {
        byte[] body = Arrays.copyOfRange(frame, 2, frame.length);
        byte[] plain = new byte[128];
        int rc = na.crypto_box_open_easy(plain, Arrays.copyOfRange(body, 24, 168), 144,
                nonce("WELCOME-", Arrays.copyOfRange(body, 8, 24)), serverKey, shortSecret);
        if (rc != 0) {
            return null;
        }
        precomputed = new byte[32];
        na.crypto_box_beforenm(precomputed, Arrays.copyOfRange(plain, 0, 32), shortSecret);
        return plain;
    }

    /** The INITIATE command frame for {@code welcome} (from {@link #welcome}), vouching for {@code vouchedServer}. */
    byte[] initiate(byte[] welcome, byte[] metadata, byte[] vouchedServer) {
        byte[] serverShort = Arrays.copyOfRange(welcome, 0, 32);
        byte[] cookie = Arrays.copyOfRange(welcome, 32, 128);
        byte[] vouchNonce = new byte[16];
        na.randombytes_buf(vouchNonce, 16);
        byte[] vouch = new byte[80];
        na.crypto_box_easy(vouch, concat(shortPublic, vouchedServer), 64, nonce("VOUCH---", vouchNonce), serverShort,
                secretKey);
        byte[] plain = concat(publicKey, vouchNonce, vouch, metadata);
        byte[] sn = shortNonce(++nonce);
        byte[] box = new byte[16 + plain.length];
        na.crypto_box_easy_afternm(box, plain, plain.length, nonce("CurveZMQINITIATE", sn), precomputed);
        return command("INITIATE", concat(cookie, sn, box));
    }

    /** Opens the READY command frame; returns its metadata, or null. */
    byte[] ready(byte[] frame) {
        int header = 2;
        byte[] body = Arrays.copyOfRange(frame, header, frame.length);
        byte[] sn = Arrays.copyOfRange(body, 6, 14);
        byte[] box = Arrays.copyOfRange(body, 14, body.length);
        byte[] plain = new byte[box.length - 16];
        if (na.crypto_box_open_easy_afternm(plain, box, box.length, nonce("CurveZMQREADY---", sn), precomputed) != 0) {
            return null;
        }
        serverNonce = ByteBuffer.wrap(sn).getLong();
        return plain;
    }

    /** A MESSAGE body (flags then data) under short nonce {@code n}. */
    byte[] messageBody(int flags, byte[] data, long n) {
        byte[] plain = concat(new byte[] {(byte) flags}, data);
        byte[] box = new byte[16 + plain.length];
        byte[] sn = shortNonce(n);
        na.crypto_box_easy_afternm(box, plain, plain.length, nonce("CurveZMQMESSAGEC", sn), precomputed);
        return concat(new byte[] {7}, ascii("MESSAGE"), sn, box);
    }

    /** The next MESSAGE as libzmq 4.3 sends it: a message frame. */
    byte[] message(int flags, byte[] data) {
        return ZmtpWire.message(messageBody(flags, data, ++nonce), false);
    }

    /** Opens one MESSAGE body from the server (flags then data); null if it does not open. */
    byte[] open(byte[] body) {
        byte[] sn = Arrays.copyOfRange(body, 8, 16);
        byte[] box = Arrays.copyOfRange(body, 16, body.length);
        byte[] plain = new byte[box.length - 16];
        if (na.crypto_box_open_easy_afternm(plain, box, box.length, nonce("CurveZMQMESSAGES", sn), precomputed) != 0) {
            return null;
        }
        serverNonce = ByteBuffer.wrap(sn).getLong();
        return plain;
    }
}
