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
import org.ysuite.VirtualThreadsTest;
import org.ysuite.internal.SharedPipeDescriptor;

/** {@link SharedPipeReader}: its sleep, its wake-ups, its close, and records it must not trust. */
class SharedPipeReaderTest extends SharedPipeFileFixture {

    @Test
    void aSleepingReaderIsWokenByTheFlush() throws Exception {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = slowPeerCheck().openReader()) {
            CountDownLatch started = new CountDownLatch(1);
            AtomicReference<Object> got = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                started.countDown();
                try {
                    got.set(in.awaitMessage() ? in.read(new byte[16]) : "end");
                } catch (Throwable t) {
                    got.set(t);
                }
            }, "sleeping-reader");
            reader.setDaemon(true); // a thread stuck by a failed test cannot keep the JVM alive
            reader.start();
            assertTrue(started.await(10, TimeUnit.SECONDS));
            awaitSleepBit(SharedPipeDescriptor.READER_SLEEP_AT, reader);
            assertTrue(out.write(new byte[5]));
            assertFalse(out.flush(), "the flush must find the reader asleep (and wake it)");
            reader.join(5_000);
            assertFalse(reader.isAlive(), "the reader slept through the flush's wake-up");
            assertEquals(5, got.get());
            assertTrue(out.flush(), "nothing new: no wake-up");
        }
    }

    @Test
    void aVirtualThreadReaderParksInSlicesAndSeesTheFlush() throws Exception {
        VirtualThreadsTest.assumeVirtualThreads();
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = slowPeerCheck().openReader()) {
            AtomicReference<Object> got = new AtomicReference<>();
            Thread reader = VirtualThreadsTest.newVirtualThread("virtual-reader", () -> {
                try {
                    got.set(in.awaitMessage() ? in.read(new byte[16]) : "end");
                } catch (Throwable t) {
                    got.set(t);
                }
            });
            reader.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((wordOfFile(SharedPipeDescriptor.READER_SLEEP_AT) & 1) == 0) {
                assertTrue(System.nanoTime() < deadline, "the virtual reader never went asleep");
                Thread.yield();
            }
            assertTrue(out.write(new byte[7]));
            assertFalse(out.flush(), "the flush must find the reader asleep");
            reader.join(5_000);
            assertFalse(reader.isAlive(), "the virtual reader did not see the flush (it parks in slices of at most 1 ms)");
            assertEquals(7, got.get());
        }
    }

    @Test
    void aCorruptRecordLengthIsAnExceptionNotAWildAccess() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            out.write(new byte[10]);
            out.flush();
            patch(SharedPipeDescriptor.HEADER_SIZE, intBytes(0x3fff_ff00)); // the first record's length
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> in.read(new byte[4096]));
            assertTrue(e.getMessage().contains("corrupt") && e.getMessage().contains("record header"), e.getMessage());
            patch(SharedPipeDescriptor.HEADER_SIZE, intBytes(10));
            patch(SharedPipeDescriptor.C_AT, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder())
                    .putLong(0, 1L << 40).array());
            assertEquals(10, in.read(new byte[4096]), "prefetched before the scribble: still fine");
            IllegalStateException c = assertThrows(IllegalStateException.class, () -> in.read(new byte[4096]));
            assertTrue(c.getMessage().contains("corrupt") && c.getMessage().contains("c is"), c.getMessage());
        }
    }

    @Test
    void closeFromAnotherThreadEndsAWaitingReader() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            SharedPipeReader in = slowPeerCheck().openReader();
            AtomicReference<Throwable> got = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                try {
                    in.awaitMessage();
                } catch (Throwable t) {
                    got.set(t);
                }
            }, "closed-reader");
            reader.setDaemon(true); // a thread stuck by a failed test cannot keep the JVM alive
            reader.start();
            awaitSleepBit(SharedPipeDescriptor.READER_SLEEP_AT, reader);
            in.close();
            reader.join(5_000);
            assertFalse(reader.isAlive(), "close did not wake the waiting reader");
            assertTrue(got.get() instanceof IllegalStateException, String.valueOf(got.get()));
            assertTrue(out.write(new byte[1]));
        }
    }

    /**
     * A close that lands between the reader raising its sleep bit and entering FUTEX_WAIT must
     * still end the wait (the wait's slice here is an hour): close, in as many rounds, as soon as
     * the bit is up.
     */
    @Test
    void closeRacingAReaderOnItsWayIntoTheFutexEndsTheWait() throws Exception {
        java.util.Random jitter = new java.util.Random(42);
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            for (int round = 0; round < 1000; round++) {
                SharedPipeReader in = slowPeerCheck().openReader();
                AtomicReference<Throwable> got = new AtomicReference<>();
                Thread reader = new Thread(() -> {
                    try {
                        in.awaitMessage();
                    } catch (Throwable t) {
                        got.set(t);
                    }
                }, "racing-reader");
                reader.setDaemon(true);
                reader.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while ((wordOfFile(SharedPipeDescriptor.READER_SLEEP_AT) & 1) == 0) {
                    assertTrue(System.nanoTime() < deadline, "round " + round + ": the sleep bit never rose");
                    Thread.onSpinWait();
                }
                // (from the second round on the bit is still up from the last: the jitter spreads
                // the close over the reader's way in, guard, look, sleep)
                long until = System.nanoTime() + jitter.nextInt(100_000);
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                in.close();
                reader.join(5_000);
                assertFalse(reader.isAlive(), "round " + round + ": close did not end the waiting reader");
                assertTrue(got.get() instanceof IllegalStateException, String.valueOf(got.get()));
            }
        }
    }
}
