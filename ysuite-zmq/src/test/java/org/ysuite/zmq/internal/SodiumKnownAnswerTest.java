package org.ysuite.zmq.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.Z85;
import org.ysuite.zmq.ZmqCurve;

/**
 * The binding to libsodium and the key utilities against published vectors: NaCl's crypto_box test
 * (tests/box.c: Alice's secret key, Bob's public key, its nonce and 131-byte message give its 147-byte
 * box), its Curve25519 public keys, and RFC 32's Z85 example; both the array path (handshake) and the
 * {@link ByteBuffer} path at an offset (MESSAGE boxes).
 */
class SodiumKnownAnswerTest {

    private static final HexFormat HEX = HexFormat.of();
    static final byte[] ALICE_SECRET = HEX.parseHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    static final byte[] ALICE_PUBLIC = HEX.parseHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    static final byte[] BOB_SECRET = HEX.parseHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    static final byte[] BOB_PUBLIC = HEX.parseHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    static final byte[] NONCE = HEX.parseHex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37");
    static final byte[] MESSAGE = HEX.parseHex(
            "be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c6129"
            + "6cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde"
            + "048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705");
    static final byte[] BOX = HEX.parseHex(
            "f3ffc7703f9400e52a7dfb4b3d3305d98e993b9f48681273c29650ba32fc76ce48332ea7164d96a4476fb8c531a1186a"
            + "c0dfc17c98dce87b4da7f011ec48c97271d2c20f9b928fe2270d6fb863d51738b48eeee314a7cc8ab932164548e526ae"
            + "90224368517acfeabd6bb3732bc0e9da99832b61ca01b6de56244a9e88d5f9b37973f622a43d14a6599b1f654cb45a74"
            + "e355a5");

    @Test
    void naclBoxVector() {
        assertEquals(131, MESSAGE.length);
        byte[] c = new byte[147];
        assertEquals(0, Sodium.lib().crypto_box_easy(c, MESSAGE, 131, NONCE, BOB_PUBLIC, ALICE_SECRET));
        assertArrayEquals(BOX, c);
        byte[] m = new byte[131];
        assertEquals(0, Sodium.lib().crypto_box_open_easy(m, BOX, 147, NONCE, ALICE_PUBLIC, BOB_SECRET));
        assertArrayEquals(MESSAGE, m);
    }

    @Test
    void curve25519PublicKeysOfTheVector() {
        assertArrayEquals(ALICE_PUBLIC, ZmqCurve.publicKey(ALICE_SECRET));
        assertArrayEquals(BOB_PUBLIC, ZmqCurve.publicKey(BOB_SECRET));
    }

    @Test
    void messagePathInPlaceAtAnOffsetGivesTheSameBox() {
        byte[] k = new byte[32];
        Sodium.lib().crypto_box_beforenm(k, BOB_PUBLIC, ALICE_SECRET);
        ByteBuffer direct = ByteBuffer.allocateDirect(7 + 147);
        direct.position(7 + 16);
        direct.put(MESSAGE);
        ByteBuffer c = direct.duplicate().position(7).limit(7 + 147).slice();
        ByteBuffer m = direct.duplicate().position(7 + 16).limit(7 + 147).slice();
        assertEquals(0, Sodium.boxes().crypto_box_easy_afternm(c, m, 131, NONCE, k));
        byte[] out = new byte[147];
        direct.get(7, out);
        assertArrayEquals(BOX, out, "encrypted in place, from each buffer's position");

        byte[] kb = new byte[32];
        Sodium.lib().crypto_box_beforenm(kb, ALICE_PUBLIC, BOB_SECRET);
        assertEquals(0, Sodium.boxes().crypto_box_open_easy_afternm(m, c, 147, NONCE, kb));
        byte[] plain = new byte[131];
        direct.get(7 + 16, plain);
        assertArrayEquals(MESSAGE, plain, "decrypted in place");

        direct.put(7 + 40, (byte) (direct.get(7 + 40) ^ 1));
        assertNotEquals(0, Sodium.boxes().crypto_box_open_easy_afternm(m, c, 147, NONCE, kb), "a flipped bit fails the MAC");
    }

    @Test
    void z85OfRfc32() {
        byte[] hello = HEX.parseHex("864fd26fb559f75b");
        assertEquals("HelloWorld", Z85.encode(hello));
        assertArrayEquals(hello, Z85.decode("HelloWorld"));
    }

    @Test
    void z85RefusesWhatItCannotCode() {
        assertThrows(IllegalArgumentException.class, () -> Z85.encode(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> Z85.decode("Hello"  + "Worl"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Z85.decode("Hello Worl"));
        assertTrue(e.getMessage().contains("character 5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Z85.decode("%%%%%"), "over 32 bits");
    }

    @Test
    void keyPairsAreConsistentAndFresh() {
        ZmqCurve.KeyPair a = ZmqCurve.keyPair();
        ZmqCurve.KeyPair b = ZmqCurve.keyPair();
        assertArrayEquals(a.publicKey(), ZmqCurve.publicKey(a.secretKey()));
        assertFalse(java.util.Arrays.equals(a.secretKey(), b.secretKey()));
        assertEquals(40, a.publicKeyZ85().length());
        assertEquals(a, ZmqCurve.fromSecretKey(a.secretKeyZ85()));
        assertFalse(a.toString().contains(a.secretKeyZ85()), "toString leaves the secret out");
    }

    @Test
    void constantTimeCompare() {
        assertTrue(Sodium.equal32(ALICE_PUBLIC, ALICE_PUBLIC.clone()));
        assertFalse(Sodium.equal32(ALICE_PUBLIC, BOB_PUBLIC));
    }
}
