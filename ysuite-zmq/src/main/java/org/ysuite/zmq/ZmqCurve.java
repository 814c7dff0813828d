package org.ysuite.zmq;

import java.util.Arrays;
import org.ysuite.zmq.internal.Sodium;

/**
 * CURVE keys (ZeroMQ RFC 26 CurveZMQ, RFC 25 ZMTP-CURVE): Curve25519 key pairs made and checked by
 * libsodium, as libzmq's {@code zmq_curve_keypair} and {@code zmq_curve_public} make them; their text
 * form is {@link Z85}. A key pair made here works with libzmq, and one made by libzmq works here.
 *
 * <p>A server needs its key pair ({@link ZmqSocket#setCurveServer}, {@link ZmqSocket#setCurveSecretKey});
 * a client its own key pair and the server's public key ({@link ZmqSocket#setCurveServerKey}).
 * Every method needs libsodium (Debian's libsodium23) and throws {@link UnsupportedOperationException}
 * "CURVE needs libsodium (libsodium23): ..." where it cannot be loaded.
 */
public final class ZmqCurve {

    private ZmqCurve() {
    }

    /**
     * A Curve25519 key pair.
     *
     * @param publicKey 32 bytes
     * @param secretKey 32 bytes; keep it secret
     */
    public record KeyPair(byte[] publicKey, byte[] secretKey) {

        /**
         * Checks the lengths.
         *
         * @throws IllegalArgumentException naming the key if it is not 32 bytes
         */
        public KeyPair {
            if (publicKey.length != 32 || secretKey.length != 32) {
                throw new IllegalArgumentException("publicKey and secretKey: " + publicKey.length + " and "
                        + secretKey.length + " bytes, 32 each");
            }
            publicKey = publicKey.clone();
            secretKey = secretKey.clone();
        }

        /** The public key (a copy). */
        @Override
        public byte[] publicKey() {
            return publicKey.clone();
        }

        /** The secret key (a copy). */
        @Override
        public byte[] secretKey() {
            return secretKey.clone();
        }

        /** The public key in Z85 (40 characters). */
        public String publicKeyZ85() {
            return Z85.encode(publicKey);
        }

        /** The secret key in Z85 (40 characters). */
        public String secretKeyZ85() {
            return Z85.encode(secretKey);
        }

        /** Zeroes this pair's secret key. */
        public void destroy() {
            Arrays.fill(secretKey, (byte) 0);
        }

        /** The public key only. */
        @Override
        public String toString() {
            return "KeyPair[" + publicKeyZ85() + "]";
        }

        /** Pairs are equal when their keys are. */
        @Override
        public boolean equals(Object o) {
            return o instanceof KeyPair k && Arrays.equals(publicKey, k.publicKey)
                    && Arrays.equals(secretKey, k.secretKey);
        }

        /** From the public key. */
        @Override
        public int hashCode() {
            return Arrays.hashCode(publicKey);
        }
    }

    /** A new random key pair ({@code crypto_box_keypair}), as {@code zmq_curve_keypair}. */
    public static KeyPair keyPair() {
        byte[] pk = new byte[32];
        byte[] sk = new byte[32];
        Sodium.lib().crypto_box_keypair(pk, sk);
        KeyPair pair = new KeyPair(pk, sk);
        Arrays.fill(sk, (byte) 0);
        return pair;
    }

    /**
     * The public key of {@code secretKey} ({@code crypto_scalarmult_base}), as {@code zmq_curve_public}.
     *
     * @throws IllegalArgumentException if {@code secretKey} is not 32 bytes
     */
    public static byte[] publicKey(byte[] secretKey) {
        if (secretKey.length != 32) {
            throw new IllegalArgumentException("secretKey: " + secretKey.length + " bytes, 32");
        }
        byte[] pk = new byte[32];
        Sodium.lib().crypto_scalarmult_base(pk, secretKey);
        return pk;
    }

    /** The key pair of a secret key given as 32 bytes or 40 Z85 characters. */
    public static KeyPair fromSecretKey(Object secretKey) {
        byte[] sk = Z85.key("secretKey", secretKey);
        KeyPair pair = new KeyPair(publicKey(sk), sk);
        Arrays.fill(sk, (byte) 0);
        return pair;
    }
}
