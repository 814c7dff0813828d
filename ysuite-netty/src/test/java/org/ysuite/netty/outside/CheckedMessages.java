package org.ysuite.netty.outside;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * Messages of random sizes that carry their own checksum: {@code [seq: int][crc32c of the
 * payload: int][payload]}, big-endian. The sender draws the sizes and picks the payload from a
 * block of random bytes; the receiver needs no generator: the sequence number checks the order,
 * the checksum the bytes. Nothing is allocated per message.
 */
final class CheckedMessages {

    /** Bytes before the payload. */
    static final int HEADER = 8;

    private final int maxLength;
    private final SplittableRandom random;
    private final byte[] block;
    private final CRC32C crc = new CRC32C();
    private int next;

    /**
     * @param maxLength the longest message, at least {@link #HEADER}
     * @param seed the sender's seed (sizes and payload offsets)
     */
    CheckedMessages(int maxLength, long seed) {
        if (maxLength < HEADER) {
            throw new IllegalArgumentException("maxLength must be >= " + HEADER + ", not " + maxLength);
        }
        this.maxLength = maxLength;
        this.random = new SplittableRandom(seed);
        this.block = new byte[2 * maxLength];
        new SplittableRandom(~seed).nextBytes(block);
    }

    /**
     * Writes the next message into {@code buf}: nine in ten of 8 … 71 bytes, nine in a hundred up
     * to 1 KiB, one in a hundred up to {@code maxLength}.
     *
     * @return its length
     */
    int fill(byte[] buf) {
        int roll = random.nextInt(100);
        int length = roll < 90 ? HEADER + random.nextInt(64)
                : roll < 99 ? HEADER + random.nextInt(Math.min(1024, maxLength - HEADER + 1))
                : HEADER + random.nextInt(maxLength - HEADER + 1);
        length = Math.min(length, maxLength);
        int payload = length - HEADER;
        System.arraycopy(block, random.nextInt(maxLength), buf, HEADER, payload);
        crc.reset();
        crc.update(buf, HEADER, payload);
        putInt(buf, 0, next++);
        putInt(buf, 4, (int) crc.getValue());
        return length;
    }

    /**
     * Checks that {@code buf[0, length)} is the next message in order with a good checksum.
     *
     * @return null if it is, else what is wrong
     */
    String check(byte[] buf, int length) {
        if (length < HEADER) {
            return "message " + next + ": " + length + " bytes, shorter than its header";
        }
        int seq = getInt(buf, 0);
        if (seq != next) {
            return "message " + next + " expected, " + seq + " arrived";
        }
        crc.reset();
        crc.update(buf, HEADER, length - HEADER);
        if ((int) crc.getValue() != getInt(buf, 4)) {
            return "message " + seq + " (" + length + " bytes): bad checksum";
        }
        next++;
        return null;
    }

    /** @return how many messages were filled or checked */
    int count() {
        return next;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static int getInt(byte[] b, int at) {
        return (b[at] << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }
}
