package org.ysuite.shared;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The messages of the shared-pipe tests: {@code [seq: long][crc: int][payload]}, little-endian,
 * the payload's size and bytes random, the CRC32C over the sequence number and the payload. The
 * reader checks that every message is whole, correct and the next in sequence.
 */
final class SharedMessages {

    static final int HEADER = 12;

    private final SplittableRandom random;
    private final int maxLength;
    private final CRC32C crc = new CRC32C();
    private final byte[] buf;
    private final ByteBuffer wrap;

    /** A new directory for pipe files: under /dev/shm where there is one. */
    static Path newDir(String prefix) throws IOException {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) ? Files.createTempDirectory(shm, prefix) : Files.createTempDirectory(prefix);
    }

    /** Deletes {@code dir} and the files in it. */
    static void removeDir(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.collect(Collectors.toList())) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    SharedMessages(long seed, int maxLength) {
        this.random = new SplittableRandom(seed);
        this.maxLength = maxLength;
        this.buf = new byte[maxLength];
        this.wrap = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Builds message {@code seq} in {@link #bytes()}; returns its length. */
    int make(long seq) {
        int length = HEADER + (random.nextInt(8) == 0
                ? random.nextInt(maxLength - HEADER + 1) : random.nextInt(Math.min(64, maxLength - HEADER) + 1));
        for (int i = HEADER; i < length; i += 8) {
            long v = random.nextLong();
            for (int j = i; j < Math.min(length, i + 8); j++, v >>>= 8) {
                buf[j] = (byte) v;
            }
        }
        wrap.putLong(0, seq);
        crc.reset();
        crc.update(buf, 0, 8);
        crc.update(buf, HEADER, length - HEADER);
        wrap.putInt(8, (int) crc.getValue());
        return length;
    }

    byte[] bytes() {
        return buf;
    }

    /** Checks a received message; returns its sequence number, or throws naming what is wrong. */
    static long check(ByteBuffer view, int offset, int length, CRC32C crc) {
        if (length < HEADER) {
            throw new AssertionError("message of " + length + " bytes: shorter than its header");
        }
        ByteBuffer b = view.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long seq = b.getLong(offset);
        int expected = b.getInt(offset + 8);
        crc.reset();
        b.limit(offset + 8).position(offset);
        crc.update(b);
        b.limit(offset + length).position(offset + HEADER);
        crc.update(b);
        if ((int) crc.getValue() != expected) {
            throw new AssertionError("message " + seq + " (" + length + " bytes): bad CRC32C");
        }
        return seq;
    }
}
