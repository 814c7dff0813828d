package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import jnr.ffi.Pointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ysuite.internal.Posix;
import org.ysuite.internal.SharedPipeDescriptor;
import org.ysuite.internal.Waits;

/**
 * The pollable shared pipe ({@link SharedYPipe.Builder#pollable()}) in this JVM: the writer's
 * wake-up makes the reader's FIFO readable, nothing is written while the reader is awake, no
 * wake-up is lost, hostile or missing FIFOs, and no descriptor is leaked.
 */
class SharedPipePollableTest extends SharedPipeFileFixture {

    /** A poll that must succeed: a lost wake-up fails here instead of hanging. */
    static final int LOST_MILLIS = 30_000;

    private final Pointer pollfd = Posix.allocate(Posix.POLLFD_SIZE);
    private final byte[] buf = new byte[64];

    SharedPipeReader pollableReader() throws IOException {
        return slowPeerCheck().pollable().openReader();
    }

    /** The FIFO's readiness now, without waiting. */
    boolean readable(SharedPipeReader in) {
        return (Posix.pollIn(in.wakeFd(), pollfd, 0) & Posix.POLLIN) != 0;
    }

    /** Waits for the FIFO; fails (naming {@code what}) if no wake-up came in {@link #LOST_MILLIS}. */
    void awaitReadable(SharedPipeReader in, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOST_MILLIS);
        int revents;
        do {
            revents = Posix.pollIn(in.wakeFd(), pollfd, LOST_MILLIS); // 0 on EINTR: again
        } while (revents == 0 && System.nanoTime() - deadline < 0);
        assertEquals(Posix.POLLIN, revents & (Posix.POLLIN | Posix.POLLERR | Posix.POLLHUP | Posix.POLLNVAL),
                "the FIFO did not become readable: a lost wake-up (" + what + ")");
    }

    @Test
    @Timeout(60)
    void aFlushToAnArmedReaderMakesTheFifoReadable() throws Exception {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = pollableReader()) {
            Path fifo = SharedPipeWakeFifo.pathOf(file);
            assertEquals(SharedPipeFileSystem.S_IFIFO, (Integer) Files.getAttribute(fifo, "unix:mode")
                    & SharedPipeFileSystem.S_IFMT, "a FIFO at " + fifo);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fifo)));
            assertTrue(in.prepareToPoll(), "nothing flushed: wait");
            assertFalse(readable(in), "no wake-up before the flush");
            assertTrue(out.write(new byte[] {42}));
            assertFalse(out.flush(), "the flush found the reader asleep");
            awaitReadable(in, "one flush");
            assertFalse(in.prepareToPoll(), "a message is there: do not wait");
            assertFalse(readable(in), "prepareToPoll drained the FIFO");
            assertEquals(1, in.read(buf));
            assertEquals(42, buf[0]);
            assertEquals(1, out.stats().wakeups());
        }
    }

    @Test
    @Timeout(60)
    void nothingIsWrittenToTheFifoWhileTheReaderIsAwake() throws Exception {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = pollableReader()) {
            assertTrue(in.prepareToPoll());
            out.write(new byte[] {1});
            out.flush();
            awaitReadable(in, "the first flush");
            assertFalse(in.prepareToPoll()); // drains; a message: awake from here on
            assertEquals(1, in.read(buf));
            for (int i = 0; i < 1000; i++) {
                out.write(new byte[] {(byte) i});
                assertTrue(out.flush(), "flush " + i + " found the reader awake");
                assertTrue(in.checkRead(), "message " + i);
                assertEquals(1, in.read(buf));
            }
            assertFalse(readable(in), "a byte in the FIFO after 1000 flushes to an awake reader");
            assertEquals(1, out.stats().wakeups());
        }
    }

    /**
     * A pollable reader that last prepared to poll, then waits in awaitMessage: it announces the
     * futex again, so the flush wakes it there (and writes no byte, which nobody would read).
     */
    @Test
    @Timeout(60)
    void aPollableReaderInAwaitMessageIsWokenThroughTheFutexAndGetsNoByte() throws Exception {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = pollableReader()) {
            AtomicReference<Object> result = new AtomicReference<>();
            Thread sleeper = new Thread(() -> {
                try {
                    // on this thread: its native name is set before the test looks for it
                    if (!in.prepareToPoll()) {
                        throw new AssertionError("nothing flushed, yet prepareToPoll said not to wait");
                    }
                    result.set(in.awaitMessage(LOST_MILLIS, TimeUnit.MILLISECONDS));
                } catch (Throwable t) {
                    result.set(t);
                }
            }, "pollable-futex-sleeper");
            sleeper.start();
            awaitSleepBit(SharedPipeDescriptor.READER_SLEEP_AT, sleeper);
            out.write(new byte[] {5});
            assertFalse(out.flush(), "the flush found the reader asleep");
            sleeper.join();
            assertEquals(Boolean.TRUE, result.get(), "woken through the futex (peer check: an hour)");
            assertFalse(readable(in), "no byte for a reader that waited in the futex");
            assertEquals(1, in.read(buf));
        }
    }

    @Test
    @Timeout(60)
    void theWritersCloseWakesAPollingReader() throws Exception {
        SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
        try (SharedPipeReader in = pollableReader()) {
            assertTrue(in.prepareToPoll());
            out.close();
            awaitReadable(in, "the writer's close");
            assertFalse(in.prepareToPoll(), "the writer closed: do not wait");
            assertTrue(in.isEndOfStream());
        } finally {
            out.close();
        }
    }

    /**
     * Each round the reader drains and arms (prepareToPoll), then waits in poll with no time
     * limit that matters, while the writer flushes one message at a random point of that: before
     * the arm, between the arm and the poll, or during the poll. A lost wake-up fails the round.
     */
    @Test
    @Timeout(300)
    void noWakeUpIsLostInManyRacingRounds() throws Exception {
        int rounds = 20_000;
        Semaphore consumed = new Semaphore(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = pollableReader()) {
            Thread writer = new Thread(() -> {
                try {
                    byte[] msg = new byte[8];
                    for (int i = 0; i < rounds; i++) {
                        consumed.acquire();
                        for (int spin = ThreadLocalRandom.current().nextInt(200); spin > 0; spin--) {
                            Thread.onSpinWait(); // a random point of the reader's round
                        }
                        msg[0] = (byte) i;
                        assertTrue(out.write(msg));
                        out.flush();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "pollable-writer");
            writer.start();
            for (int i = 0; i < rounds && failure.get() == null; i++) {
                while (in.prepareToPoll()) {
                    awaitReadable(in, "round " + i);
                }
                assertEquals(8, in.read(buf), "round " + i);
                assertEquals((byte) i, buf[0]);
                consumed.release();
            }
            writer.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(rounds, out.stats().messagesFlushed());
        }
    }

    @Test
    void aRegularFileOrDirectoryAtTheFifosNameIsAClearIOException() throws Exception {
        SharedYPipe.createWriter(file, 4096).close();
        Path fifo = SharedPipeWakeFifo.pathOf(file);
        Files.write(fifo, new byte[] {1, 2, 3});
        IOException e = assertThrows(IOException.class, this::pollableReader);
        assertTrue(e.getMessage().contains(fifo + " is not a FIFO"), e.getMessage());
        assertEquals(3, Files.size(fifo), "nothing written to the regular file");
        Files.delete(fifo);
        Files.createDirectory(fifo);
        e = assertThrows(IOException.class, this::pollableReader);
        assertTrue(e.getMessage().contains(fifo + " is a directory"), e.getMessage());
        Files.delete(fifo);
        Files.createSymbolicLink(fifo, file);
        e = assertThrows(IOException.class, this::pollableReader);
        assertTrue(e.getMessage().contains(fifo + " is a symbolic link"), e.getMessage());
        Files.delete(fifo);
        assertEquals(0, fifoDescriptors(fifo), "no descriptor kept by a failed open");
        try (SharedPipeReader in = pollableReader()) {
            assertTrue(in.wakeFd() >= 0, "the reader side was given back by the failed opens");
        }
    }

    @Test
    @Timeout(60)
    void aWriterWhoseFifoIsGoneWakesThroughTheFutexAlone() throws Exception {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = pollableReader()) {
            Files.delete(SharedPipeWakeFifo.pathOf(file)); // the reader's descriptor stays open
            assertTrue(in.prepareToPoll());
            out.write(new byte[] {7});
            assertFalse(out.flush(), "the flush woke the reader (futex), and did not throw");
            assertFalse(readable(in), "no FIFO for the writer to write: it wrote none");
            assertTrue(in.awaitMessage(LOST_MILLIS, TimeUnit.MILLISECONDS));
            assertEquals(1, in.read(buf));
        }
    }

    @Test
    void closeClosesTheFifoAndDeleteRemovesIt() throws Exception {
        Path fifo = SharedPipeWakeFifo.pathOf(file);
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter()) {
            SharedPipeReader in = pollableReader();
            assertTrue(in.prepareToPoll());
            out.write(new byte[] {1});
            out.flush(); // the writer opens the FIFO too
            assertEquals(2, fifoDescriptors(fifo), "the reader's and the writer's");
            in.close();
            assertEquals(1, fifoDescriptors(fifo), "the reader's closed");
            assertThrows(IllegalStateException.class, in::wakeFd);
        }
        assertEquals(0, fifoDescriptors(fifo), "the writer's closed");
        assertTrue(SharedYPipe.delete(file));
        assertFalse(Files.exists(fifo, java.nio.file.LinkOption.NOFOLLOW_LINKS), "delete removed " + fifo);
    }

    @Test
    void aReaderNotOpenedPollableHasNoFifoAndTheWriterMakesNone() throws Exception {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = slowPeerCheck().openReader()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, in::wakeFd);
            assertTrue(e.getMessage().contains("not opened pollable"), e.getMessage());
            assertThrows(IllegalStateException.class, in::prepareToPoll);
            assertFalse(in.checkRead()); // armed
            out.write(new byte[] {1});
            assertFalse(out.flush());
            assertFalse(Files.exists(SharedPipeWakeFifo.pathOf(file), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        }
    }

    /** This process's descriptors open on {@code fifo}. */
    static long fifoDescriptors(Path fifo) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith(fifo.toString());
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        }
    }
}
