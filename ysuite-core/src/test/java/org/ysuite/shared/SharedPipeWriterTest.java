package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.ysuite.internal.SharedPipeDescriptor;

/** {@link SharedPipeWriter}: writing, claims, unwrite, and its wait for space. */
class SharedPipeWriterTest extends SharedPipeFileFixture {

    @Test
    void roundTripOfRandomSizesAndContentsInOneThread() throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 1024);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            byte[] dst = new byte[in.maxMessageLength()];
            for (int round = 0; round < 2000; round++) {
                byte[][] sent = new byte[1 + random.nextInt(6)][];
                int n = 0;
                for (; n < sent.length; n++) {
                    byte[] m = new byte[random.nextInt(out.maxMessageLength() / 3 + 1)];
                    random.nextBytes(m);
                    if (!out.write(m)) {
                        break;
                    }
                    sent[n] = m;
                }
                out.flush();
                for (int i = 0; i < n; i++) {
                    int len = in.read(dst);
                    assertEquals(sent[i].length, len, "round " + round + " message " + i);
                    assertArrayEquals(sent[i], java.util.Arrays.copyOf(dst, len));
                }
                assertEquals(-1, in.read(dst));
            }
        }
    }

    @Test
    void aWriterWaitingForSpaceIsWokenByTheReader() throws Exception {
        try (SharedPipeWriter out = slowPeerCheck().capacity(256).createWriter();
                SharedPipeReader in = slowPeerCheck().openReader()) {
            byte[] m = new byte[60];
            int written = 0;
            while (out.write(m)) {
                written++;
            }
            out.flush();
            AtomicReference<Object> got = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    out.awaitSpace(m.length);
                    got.set(out.write(m));
                } catch (Throwable t) {
                    got.set(t);
                }
            }, "waiting-writer");
            writer.setDaemon(true); // a thread stuck by a failed test cannot keep the JVM alive
            writer.start();
            awaitSleepBit(SharedPipeDescriptor.WRITER_SLEEP_AT, writer);
            assertEquals(60, in.read(new byte[64]));
            writer.join(5_000);
            assertFalse(writer.isAlive(), "the writer slept through the reader's wake-up");
            assertEquals(Boolean.TRUE, got.get());
            assertTrue(written > 1);
        }
    }

    @Test
    void aWriterWaitingForSpaceLearnsThatTheReaderClosedOrDied() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.builder(file).capacity(256)
                .peerCheck(20, TimeUnit.MILLISECONDS).createWriter()) {
            SharedPipeReader in = SharedYPipe.openReader(file);
            while (out.write(new byte[60])) {
                // fill the ring
            }
            out.flush();
            assertFalse(out.awaitSpace(60, 50, TimeUnit.MILLISECONDS), "no room while the reader is alive");
            in.close();
            PeerGoneException closed = assertThrows(PeerGoneException.class,
                    () -> out.awaitSpace(60, 10, TimeUnit.SECONDS));
            assertTrue(closed.getMessage().contains("reader") && closed.getMessage().contains("closed"),
                    closed.getMessage());
            // A death as the file shows it: the reader's lock is gone but its side is still OPEN.
            patch(SharedPipeDescriptor.READER_AT, intBytes(SharedPipeDescriptor.OPEN));
            PeerGoneException died = assertThrows(PeerGoneException.class,
                    () -> out.awaitSpace(60, 10, TimeUnit.SECONDS));
            assertTrue(died.getMessage().contains("reader") && died.getMessage().contains("died"), died.getMessage());
        }
    }

    @Test
    void claimCommitUnwriteAndBatches() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 1024);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            int at = out.claim(3);
            out.claimBuffer().put(at, (byte) 7).put(at + 1, (byte) 8).put(at + 2, (byte) 9);
            out.commit(false);
            assertTrue(out.write(ByteBuffer.wrap(new byte[] {1, 2}), true));
            assertTrue(out.unwrite(), "the incomplete part is taken back");
            assertTrue(out.write(new byte[] {5}));
            out.flush();
            assertFalse(out.unwrite(), "everything written was flushed");
            byte[][] got = new byte[2][];
            int[] n = {0};
            assertEquals(2, in.readBatch((b, off, len) -> {
                got[n[0]] = new byte[len];
                b.get(off, got[n[0]++]);
            }));
            assertArrayEquals(new byte[] {7, 8, 9}, got[0]);
            assertArrayEquals(new byte[] {5}, got[1]);
            assertFalse(in.checkRead());
        }
    }
}
