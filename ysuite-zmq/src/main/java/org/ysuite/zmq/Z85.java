package org.ysuite.zmq;

import java.nio.charset.StandardCharsets;

/**
 * Z85 (ZeroMQ RFC 32), the text form of CURVE keys, as libzmq's {@code zmq_z85_encode} and
 * {@code zmq_z85_decode}: every 4 bytes become 5 printable characters, so a 32-byte key is 40
 * characters. RFC 32's example: the bytes {@code 86 4F D2 6F B5 59 F7 5B} are {@code "HelloWorld"}.
 */
public final class Z85 {

    private static final char[] ENCODER = ("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
            + ".-:+=^!/*?&<>()[]{}@%$#").toCharArray();
    private static final byte[] DECODER = new byte[128];

    static {
        java.util.Arrays.fill(DECODER, (byte) -1);
        for (int i = 0; i < ENCODER.length; i++) {
            DECODER[ENCODER[i]] = (byte) i;
        }
    }

    private Z85() {
    }

    /**
     * Encodes {@code data} (RFC 32: its length a multiple of 4).
     *
     * @throws IllegalArgumentException if the length is not a multiple of 4
     */
    public static String encode(byte[] data) {
        if (data.length % 4 != 0) {
            throw new IllegalArgumentException("data: " + data.length + " bytes, Z85 encodes a multiple of 4");
        }
        char[] out = new char[data.length / 4 * 5];
        int o = 0;
        for (int i = 0; i < data.length; i += 4) {
            long value = ((data[i] & 0xFFL) << 24) | ((data[i + 1] & 0xFFL) << 16) | ((data[i + 2] & 0xFFL) << 8)
                    | (data[i + 3] & 0xFFL);
            for (int d = 4; d >= 0; d--) {
                out[o + d] = ENCODER[(int) (value % 85)];
                value /= 85;
            }
            o += 5;
        }
        return new String(out);
    }

    /**
     * Decodes {@code text} (RFC 32: its length a multiple of 5, only Z85's 85 characters).
     *
     * @throws IllegalArgumentException if the length is not a multiple of 5, a character is not Z85's, or
     *                                  a group of 5 exceeds 32 bits
     */
    public static byte[] decode(String text) {
        if (text.length() % 5 != 0) {
            throw new IllegalArgumentException("text: " + text.length() + " characters, Z85 decodes a multiple of 5");
        }
        byte[] out = new byte[text.length() / 5 * 4];
        int o = 0;
        for (int i = 0; i < text.length(); i += 5) {
            long value = 0;
            for (int d = 0; d < 5; d++) {
                char c = text.charAt(i + d);
                int digit = c < 128 ? DECODER[c] : -1;
                if (digit < 0) {
                    throw new IllegalArgumentException("text: character " + (i + d) + " ('" + c + "') is not Z85");
                }
                value = value * 85 + digit;
            }
            if (value > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("text: characters " + i + " to " + (i + 4)
                        + " encode more than 32 bits");
            }
            out[o++] = (byte) (value >>> 24);
            out[o++] = (byte) (value >>> 16);
            out[o++] = (byte) (value >>> 8);
            out[o++] = (byte) value;
        }
        return out;
    }

    /**
     * A CURVE key given as 32 bytes or as 40 Z85 characters (a {@code byte[]} of 40 ASCII bytes, or a
     * {@code String}), as libzmq's {@code ZMQ_CURVE_*KEY} options take it.
     *
     * @param name the option, for the message
     * @throws IllegalArgumentException naming {@code name} if the key is neither
     */
    static byte[] key(String name, Object value) {
        if (value instanceof byte[] b && b.length == 32) {
            return b.clone();
        }
        String text = value instanceof String s ? s
                : value instanceof byte[] b && b.length == 40 ? new String(b, StandardCharsets.US_ASCII) : null;
        if (text == null || text.length() != 40) {
            throw new IllegalArgumentException(name + ": a key of 32 bytes or 40 Z85 characters, not "
                    + (value instanceof byte[] b ? b.length + " bytes" : value instanceof String s
                    ? s.length() + " characters" : String.valueOf(value)));
        }
        try {
            return decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }
}
