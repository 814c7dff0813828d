package org.ysuite.examples.shm;

import java.nio.ByteBuffer;

/**
 * The messages the two example services exchange: message {@code n} is 16 to 256 bytes, its
 * first 8 bytes the number {@code n}, the rest bytes computed from {@code n}, so the consumer can
 * check each message, their order and (with a CRC-32 over every message) the whole stream.
 */
final class Orders {

    /** The largest message. */
    static final int MAX = 256;

    private Orders() {
    }

    /**
     * Writes message {@code n} into {@code buf}.
     *
     * @param n the message's number
     * @param buf at least {@link #MAX} bytes
     * @return its length
     */
    static int fill(long n, byte[] buf) {
        long x = mix(n);
        int length = 16 + (int) ((x >>> 32) % (MAX - 15));
        ByteBuffer.wrap(buf).putLong(0, n);
        for (int i = 8; i < length; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            buf[i] = (byte) (x >>> 56);
        }
        return length;
    }

    /**
     * The number a message carries.
     *
     * @param buf the message
     * @return its first 8 bytes as a long
     */
    static long number(byte[] buf) {
        return ByteBuffer.wrap(buf).getLong(0);
    }

    private static long mix(long n) {
        long z = n + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Messages per second, for the summary lines.
     *
     * @param count messages
     * @param nanos elapsed time
     * @return the rate, rounded
     */
    static long rate(long count, long nanos) {
        return nanos <= 0 ? 0 : Math.round(count * 1e9 / nanos);
    }
}
