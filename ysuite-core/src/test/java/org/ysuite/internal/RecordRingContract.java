package org.ysuite.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ysuite.MessageHandler;

/**
 * The record ring's contract, run by every pipe over a {@link RecordRing} (one sanity test every
 * ring runs): each subclass opens its pipe's two ends over a ring of a given size, one thread.
 */
public abstract class RecordRingContract {

    /** One pipe's writer and reader, as the ring's moves see them. */
    public interface Ends extends AutoCloseable {
        boolean write(byte[] src, int offset, int length, boolean incomplete);

        int claim(int length);

        ByteBuffer claimBuffer();

        void commit(boolean incomplete);

        boolean unwrite();

        void flush();

        int read(byte[] dst);

        int readBatch(MessageHandler handler);

        int maxMessageLength();

        @Override
        void close();
    }

    /** Opens a pipe of {@code capacityBytes} bytes, both ends in this thread. */
    protected abstract Ends open(int capacityBytes) throws Exception;

    private static byte[] message(SplittableRandom random, int length) {
        byte[] m = new byte[length];
        for (int i = 0; i < length; i++) {
            m[i] = (byte) random.nextInt();
        }
        return m;
    }

    /** Every length at every offset of the ring, across many wraps (padding records), in order. */
    @Test
    public void messagesOfEveryLengthComeBackWholeAndInOrderAcrossWraps() throws Exception {
        try (Ends pipe = open(256)) {
            SplittableRandom random = new SplittableRandom(42);
            byte[] dst = new byte[pipe.maxMessageLength()];
            for (int round = 0; round < 2_000; round++) {
                List<byte[]> sent = new ArrayList<>();
                int n = 1 + random.nextInt(3);
                for (int i = 0; i < n; i++) {
                    byte[] m = message(random, random.nextInt(pipe.maxMessageLength() / n + 1));
                    if (!pipe.write(m, 0, m.length, false)) {
                        break;
                    }
                    sent.add(m);
                }
                pipe.flush();
                for (byte[] m : sent) {
                    int length = pipe.read(dst);
                    assertEquals(m.length, length, "round " + round);
                    assertArrayEquals(m, Arrays.copyOf(dst, length), "round " + round);
                }
                assertEquals(-1, pipe.read(dst), "round " + round + ": nothing more");
            }
        }
    }

    /**
     * Every short length (the word-by-word copies, SmallCopy) from every offset of the source
     * array, byte for byte, through read and through readBatch's view; the bytes around the
     * message in the source must not leak in.
     */
    @Test
    public void shortMessagesFromAnyOffsetComeBackByteForByte() throws Exception {
        try (Ends pipe = open(256)) {
            SplittableRandom random = new SplittableRandom(11);
            byte[] dst = new byte[pipe.maxMessageLength()];
            for (int length = 0; length <= SmallCopy.MAX_BYTES + 9; length++) {
                for (int offset = 0; offset < 9; offset++) {
                    byte[] src = message(random, offset + length + 9);
                    byte[] m = Arrays.copyOfRange(src, offset, offset + length);
                    String at = "length " + length + ", offset " + offset;
                    assertTrue(pipe.write(src, offset, length, false), at);
                    assertTrue(pipe.write(src, offset, length, false), at);
                    pipe.flush();
                    assertEquals(length, pipe.read(dst), at);
                    assertArrayEquals(m, Arrays.copyOf(dst, length), at);
                    List<byte[]> viewed = new ArrayList<>();
                    assertEquals(1, pipe.readBatch((buffer, off, len) -> {
                        byte[] v = new byte[len];
                        buffer.get(off, v);
                        viewed.add(v);
                    }), at);
                    assertArrayEquals(m, viewed.get(0), at);
                }
            }
        }
    }

    /** The largest message fits an empty ring wherever its head is. */
    @Test
    public void theLargestMessageFitsAtEveryOffset() throws Exception {
        try (Ends pipe = open(256)) {
            SplittableRandom random = new SplittableRandom(7);
            byte[] dst = new byte[pipe.maxMessageLength()];
            for (int shift = 0; shift < 256 / 8; shift++) {
                byte[] small = message(random, 4);
                assertTrue(pipe.write(small, 0, small.length, false));
                pipe.flush();
                assertEquals(4, pipe.read(dst));
                byte[] big = message(random, pipe.maxMessageLength());
                assertTrue(pipe.write(big, 0, big.length, false), "shift " + shift);
                pipe.flush();
                assertEquals(big.length, pipe.read(dst), "shift " + shift);
                assertArrayEquals(big, dst, "shift " + shift);
            }
        }
    }

    /** A full ring refuses, and takes the message once the reader has consumed. */
    @Test
    public void aFullRingRefusesUntilTheReaderConsumes() throws Exception {
        try (Ends pipe = open(256)) {
            byte[] m = new byte[60]; // a 64-byte record: four fill the ring
            int written = 0;
            while (written <= 4 && pipe.write(m, 0, m.length, false)) { // bounded: a ring that never refuses fails below
                written++;
            }
            assertEquals(4, written, "records taken by a 256-byte ring");
            pipe.flush();
            assertEquals(60, pipe.read(new byte[60]));
            assertTrue(pipe.write(m, 0, m.length, false), "room after one read");
            assertFalse(pipe.write(m, 0, m.length, false), "full again");
        }
    }

    /** readBatch hands out each message as a view with the right offset and length. */
    @Test
    public void readBatchHandsOutEveryMessageAsAView() throws Exception {
        try (Ends pipe = open(256)) {
            SplittableRandom random = new SplittableRandom(3);
            for (int round = 0; round < 500; round++) {
                List<byte[]> sent = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    byte[] m = message(random, random.nextInt(40));
                    if (!pipe.write(m, 0, m.length, false)) {
                        break;
                    }
                    sent.add(m);
                }
                pipe.flush();
                List<byte[]> got = new ArrayList<>();
                int n = pipe.readBatch((buffer, offset, length) -> {
                    byte[] b = new byte[length];
                    buffer.get(offset, b);
                    got.add(b);
                });
                assertEquals(sent.size(), n, "round " + round);
                for (int i = 0; i < n; i++) {
                    assertArrayEquals(sent.get(i), got.get(i), "round " + round + " message " + i);
                }
            }
        }
    }

    /** A message built in place by claim and commit reads back as built. */
    @Test
    public void aClaimedMessageReadsBackAsBuilt() throws Exception {
        try (Ends pipe = open(256)) {
            byte[] dst = new byte[pipe.maxMessageLength()];
            for (int round = 0; round < 100; round++) {
                int length = 1 + round % 50;
                int at = pipe.claim(length);
                ByteBuffer buffer = pipe.claimBuffer();
                for (int i = 0; i < length; i++) {
                    buffer.put(at + i, (byte) (round + i));
                }
                pipe.commit(false);
                pipe.flush();
                assertEquals(length, pipe.read(dst), "round " + round);
                for (int i = 0; i < length; i++) {
                    assertEquals((byte) (round + i), dst[i], "round " + round + " byte " + i);
                }
            }
        }
    }

    /**
     * unwrite takes back the last unflushed message, complete or not, and leaves what came
     * before (also over a padding record): only the complete messages before it are flushed.
     */
    @Test
    public void unwriteTakesBackTheLastMessageOnly() throws Exception {
        try (Ends pipe = open(256)) {
            byte[] dst = new byte[pipe.maxMessageLength()];
            byte[] fill = new byte[100];
            assertTrue(pipe.write(fill, 0, fill.length, false));
            pipe.flush();
            assertEquals(100, pipe.read(dst)); // the ring's end is now 104 bytes on
            byte[] a = {1, 2, 3};
            byte[] partOne = {4};
            byte[] partTwo = new byte[120]; // does not fit before the end: padding first
            assertTrue(pipe.write(a, 0, a.length, false));
            assertTrue(pipe.write(partOne, 0, partOne.length, true));
            assertTrue(pipe.write(partTwo, 0, partTwo.length, true));
            assertTrue(pipe.unwrite(), "the second part");
            assertTrue(pipe.unwrite(), "the first part");
            pipe.flush();
            assertEquals(3, pipe.read(dst));
            assertArrayEquals(a, Arrays.copyOf(dst, 3));
            assertEquals(-1, pipe.read(dst), "the parts were taken back");
            assertFalse(pipe.unwrite(), "everything written was flushed");
            byte[] b = {9, 9};
            assertTrue(pipe.write(b, 0, b.length, false));
            pipe.flush();
            assertEquals(2, pipe.read(dst));
        }
    }

    /** The parts of a message are held back until its last part is written. */
    @Test
    public void incompletePartsWaitForTheLastPart() throws Exception {
        try (Ends pipe = open(256)) {
            byte[] dst = new byte[pipe.maxMessageLength()];
            byte[] p = {5, 6};
            assertTrue(pipe.write(p, 0, 2, true));
            pipe.flush();
            assertEquals(-1, pipe.read(dst), "an incomplete part is not flushed");
            assertTrue(pipe.write(p, 0, 1, false));
            pipe.flush();
            assertEquals(2, pipe.read(dst));
            assertEquals(1, pipe.read(dst));
        }
    }
}
