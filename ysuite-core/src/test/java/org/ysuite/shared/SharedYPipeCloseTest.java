package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * {@link SharedYPipe}: a peer's close racing a sleeper, a close while an operation of the same
 * instance is inside (an open claim), and side states written by a third party.
 */
class SharedYPipeCloseTest extends SharedPipeFileFixture {

    /** Spins (bounded) until the sleep counter at {@code offset} is odd, then a random jitter. */
    private void awaitArmedThenJitter(int offset, Random jitter, int round) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((wordOfFile(offset) & 1) == 0) {
            assertTrue(System.nanoTime() < deadline, "round " + round + ": the sleeper never armed");
            Thread.onSpinWait();
        }
        long until = System.nanoTime() + jitter.nextInt(100_000);
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true); // a thread stuck by a failed test cannot keep the JVM alive
        t.start();
        return t;
    }

    /**
     * The writer's clean close lands anywhere on the reader's way into FUTEX_WAIT (its peer check
     * is an hour): the reader must see the end of the stream at once, in every round.
     */
    @Test
    void theWritersCloseRacingTheReaderOnItsWayIntoTheFutexEndsItsWait() throws Exception {
        Random jitter = new Random(7);
        SharedYPipe.builder(file).capacity(4096).createWriter().close();
        try (SharedPipeReader in = slowPeerCheck().openReader()) {
            for (int round = 0; round < 300; round++) {
                SharedPipeWriter out = slowPeerCheck().openWriter();
                AtomicReference<Object> got = new AtomicReference<>();
                Thread reader = daemon("racing-reader", () -> {
                    try {
                        got.set(in.awaitMessage());
                    } catch (Throwable t) {
                        got.set(t);
                    }
                });
                awaitArmedThenJitter(SharedPipeDescriptor.READER_SLEEP_AT, jitter, round);
                out.close();
                reader.join(10_000);
                assertFalse(reader.isAlive(), "round " + round + ": the reader slept through the writer's close");
                assertEquals(Boolean.FALSE, got.get(), "round " + round + ": end of stream");
            }
        }
    }

    /** The same the other way: the reader closes while the writer goes to sleep waiting for space. */
    @Test
    void theReadersCloseRacingAWriterOnItsWayIntoTheFutexEndsItsWait() throws Exception {
        Random jitter = new Random(8);
        try (SharedPipeWriter out = slowPeerCheck().capacity(256).createWriter()) {
            while (out.write(new byte[60])) {
                // fill the ring
            }
            out.flush();
            for (int round = 0; round < 300; round++) {
                SharedPipeReader in = slowPeerCheck().openReader();
                AtomicReference<Object> got = new AtomicReference<>();
                Thread writer = daemon("racing-writer", () -> {
                    try {
                        out.awaitSpace(60);
                        got.set("room");
                    } catch (Throwable t) {
                        got.set(t);
                    }
                });
                awaitArmedThenJitter(SharedPipeDescriptor.WRITER_SLEEP_AT, jitter, round);
                in.close();
                writer.join(10_000);
                assertFalse(writer.isAlive(), "round " + round + ": the writer slept through the reader's close");
                assertTrue(got.get() instanceof PeerGoneException, "round " + round + ": " + got.get());
            }
        }
    }

    @Test
    void closeWithAnOpenClaimFlushesTheMessagesWrittenBeforeIt() throws Exception {
        SharedPipeWriter out = SharedYPipe.createWriter(file, 1024);
        try (SharedPipeReader in = SharedYPipe.openReader(file)) {
            for (int i = 0; i < 3; i++) {
                assertTrue(out.write(new byte[] {(byte) i}));
            }
            int at = out.claim(4);
            out.claimBuffer().put(at, (byte) 9);
            out.close(); // from the claim's own thread: the claim is dropped, the rest flushed
            assertThrows(IllegalStateException.class, () -> out.commit(false));
            byte[] dst = new byte[8];
            for (int i = 0; i < 3; i++) {
                assertTrue(in.awaitMessage(10, TimeUnit.SECONDS), "message " + i + " was dropped by close");
                assertEquals(1, in.read(dst));
                assertEquals(i, dst[0]);
            }
            assertFalse(in.awaitMessage(10, TimeUnit.SECONDS), "the claimed message is discarded");
            assertTrue(in.isEndOfStream());
        }
    }

    /**
     * JDK 17 to 20 may throw a fault of the mapping at the entry of an operation's exit, which
     * then ends with the side still BUSY under its thread's mark. That thread's close leaves for
     * it: CLOSED is marked, and the lock and mapping are released (the file can be deleted).
     */
    @Test
    void closeOnTheThreadWhoseOperationLeftTheSideBusyFinishesAndReleases() throws Exception {
        SharedPipeWriter out = SharedYPipe.createWriter(file, 1024);
        try (SharedPipeReader in = SharedYPipe.openReader(file)) {
            assertTrue(out.write(new byte[] {7}));
            out.flush();
            long token = Thread.currentThread().getId() & org.ysuite.internal.SideGuard.PAYLOAD;
            SharedPipeEnd.SIDE.setVolatile(out, org.ysuite.internal.SideGuard.BUSY | token); // as a late fault leaves it
            out.close();
            assertTrue(out.isClosed());
            byte[] dst = new byte[8];
            assertTrue(in.awaitMessage(10, TimeUnit.SECONDS));
            assertEquals(1, in.read(dst));
            assertFalse(in.awaitMessage(10, TimeUnit.SECONDS), "the writer's close is marked");
            assertTrue(in.isEndOfStream());
        }
        assertTrue(SharedYPipe.delete(file), "both sides released their locks");
    }

    /**
     * A close from inside a batch's handler is an operation inside: the batch stops after that
     * message (the mapping stays until then), and its exit finishes the close.
     */
    @Test
    void closeFromInsideAHandlerWaitsForTheBatchToEnd() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 1024)) {
            SharedPipeReader in = SharedYPipe.openReader(file);
            for (int i = 0; i < 3; i++) {
                assertTrue(out.write(new byte[] {(byte) i}));
            }
            out.flush();
            int[] seen = new int[1];
            assertEquals(1, in.readBatch((ring, offset, length) -> {
                in.close(); // the first message's handler: its view stays mapped until it returns
                assertEquals(seen[0]++, ring.get(offset));
            }));
            assertEquals(1, seen[0]);
            assertTrue(in.isClosed());
            assertThrows(IllegalStateException.class, in::checkRead);
        }
        assertTrue(SharedYPipe.delete(file), "both sides released their locks");
    }

    @Test
    void closeFromAnotherThreadDuringAClaimFlushesWhenTheClaimEnds() throws Exception {
        SharedPipeWriter out = SharedYPipe.createWriter(file, 1024);
        try (SharedPipeReader in = SharedYPipe.openReader(file)) {
            for (int i = 0; i < 3; i++) {
                assertTrue(out.write(new byte[] {(byte) i}));
            }
            assertTrue(out.claim(4) >= 0);
            Thread closer = daemon("closer", out::close);
            closer.join(10_000);
            assertFalse(closer.isAlive(), "close must not wait for the claim");
            assertTrue(out.isClosed());
            IllegalStateException discarded = assertThrows(IllegalStateException.class, () -> out.commit(false));
            assertTrue(discarded.getMessage().contains("discarded"), discarded.getMessage());
            byte[] dst = new byte[8];
            for (int i = 0; i < 3; i++) {
                assertTrue(in.awaitMessage(10, TimeUnit.SECONDS), "message " + i + " was dropped by close");
                assertEquals(1, in.read(dst));
                assertArrayEquals(new byte[] {(byte) i}, java.util.Arrays.copyOf(dst, 1));
            }
            assertFalse(in.awaitMessage(10, TimeUnit.SECONDS));
            assertTrue(in.isEndOfStream());
        }
    }

    /**
     * A side state that is none of FREE, OPEN, CLOSED, written while mapped, with the peer gone
     * (its lock free): a wait reports the corruption instead of taking the peer for alive.
     */
    @Test
    void anUnknownPeerStateWhileMappedIsAnExceptionNotAWaitForever() throws Exception {
        for (int state : new int[] {3, -1, Integer.MAX_VALUE}) {
            file.toFile().delete();
            try (SharedPipeWriter out = SharedYPipe.builder(file).capacity(256)
                    .peerCheck(20, TimeUnit.MILLISECONDS).createWriter()) {
                SharedYPipe.openReader(file).close();
                while (out.write(new byte[60])) {
                    // fill the ring
                }
                out.flush();
                patchInt(SharedPipeDescriptor.READER_AT, state);
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> out.awaitSpace(60, 10, TimeUnit.SECONDS), "state " + state);
                assertTrue(e.getMessage().contains("reader's side state is " + state), e.getMessage());
            }
            patchInt(SharedPipeDescriptor.READER_AT, SharedPipeDescriptor.CLOSED); // (opening checks it)
            try (SharedPipeReader in = SharedYPipe.builder(file).peerCheck(20, TimeUnit.MILLISECONDS).openReader()) {
                while (in.readBatch((b, off, len) -> { }) > 0) {
                    // read what the writer flushed
                }
                patchInt(SharedPipeDescriptor.WRITER_AT, state);
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> in.awaitMessage(10, TimeUnit.SECONDS), "state " + state);
                assertTrue(e.getMessage().contains("writer's side state is " + state), e.getMessage());
            }
        }
    }
}
