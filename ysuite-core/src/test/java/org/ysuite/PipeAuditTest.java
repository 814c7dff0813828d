package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, defects 3 to 6: the shared mutable views of {@link OffHeapYPipe}, re-entrant reads from
 * inside a handler ({@link YPipe}, {@link OffHeapYPipe}, {@link YMailbox}), the writer-side guard of
 * {@link OffHeapYPipe#flush()}, and the leftovers of {@link OffHeapYPipe#awaitSpace(int)}.
 */
class PipeAuditTest {

    private static byte[] message(int seq, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seq * 31 + i);
        }
        return b;
    }

    private static void assertWholeRing(ByteBuffer buf, String where) {
        if (buf.position() != 0 || buf.limit() != buf.capacity() || buf.order() != ByteOrder.nativeOrder()) {
            fail(where + ": view has position " + buf.position() + ", limit " + buf.limit()
                    + " of " + buf.capacity() + ", " + buf.order() + "; documented: 0, capacity, native");
        }
    }

    // ------------------------------------------------------------------------------------------
    // Defect 3: every handler call and every claim sees the documented view
    // ------------------------------------------------------------------------------------------

    @Test
    void aHandlerThatMovesTheViewsPositionAndLimitBreaksNoLaterMessage() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(4096)) {
            SplittableRandom rnd = new SplittableRandom(8);
            int written = 0;
            int[] read = {0};
            List<Integer> lengths = new ArrayList<>();
            for (int round = 0; round < 200; round++) {
                for (int k = 0; k < 8; k++) {
                    int len = 1 + rnd.nextInt(200);
                    if (!pipe.write(message(written, len))) {
                        break;
                    }
                    lengths.add(len);
                    written++;
                }
                pipe.flush();
                pipe.readBatch((buf, off, len) -> {
                    int seq = read[0]++;
                    assertWholeRing(buf, "message " + seq);
                    assertEquals(lengths.get(seq), len, "length of message " + seq);
                    byte[] got = new byte[len];
                    if ((seq & 1) == 0) {
                        // the natural thing for a channel write: narrow the view to the message
                        buf.limit(off + len).position(off);
                        buf.mark();
                        buf.order(ByteOrder.BIG_ENDIAN == ByteOrder.nativeOrder()
                                ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
                        buf.get(got);
                    } else {
                        buf.get(off, got); // the documented absolute get
                    }
                    assertArrayEquals(message(seq, len), got, "content of message " + seq);
                });
            }
            assertEquals(written, read[0]);
            assertTrue(written > 1000, "enough messages went through: " + written);
        }
    }

    @Test
    void aWriterThatMovesTheClaimBuffersPositionAndLimitBreaksNoLaterClaim() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(4096)) {
            SplittableRandom rnd = new SplittableRandom(9);
            ByteBuffer cached = pipe.claimBuffer(); // a writer may keep the buffer it was given
            int seq = 0;
            for (int round = 0; round < 300; round++) {
                int len = 1 + rnd.nextInt(300);
                int at = pipe.claim(len);
                assertTrue(at >= 0, "room for claim " + seq);
                assertWholeRing(cached, "claim " + seq + " (buffer kept from before)");
                ByteBuffer buf = pipe.claimBuffer();
                assertWholeRing(buf, "claim " + seq);
                if ((seq & 1) == 0) {
                    buf.limit(at + len).position(at);
                    buf.put(message(seq, len));
                } else {
                    buf.put(at, message(seq, len)); // the documented absolute put
                }
                pipe.commit(false);
                pipe.flush();
                byte[] got = new byte[len];
                assertEquals(len, pipe.read(got));
                assertArrayEquals(message(seq, len), got, "content of message " + seq);
                seq++;
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Defect 4: re-entrant reads from inside a handler are rejected
    // ------------------------------------------------------------------------------------------

    @Test
    void yPipeRejectsReadsFromInsideItsReadBatchHandler() {
        YPipe<Integer> pipe = new YPipe<>(4);
        for (int i = 0; i < 10; i++) {
            pipe.write(i);
        }
        pipe.flush();
        List<Integer> got = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        int n = pipe.readBatch(v -> {
            got.add(v);
            if (v == 0) {
                expectIse(rejected, "read", pipe::read);
                expectIse(rejected, "readBatch", () -> pipe.readBatch(x -> fail("nested handler ran")));
                expectIse(rejected, "checkRead", pipe::checkRead);
                expectIse(rejected, "probe", () -> pipe.probe(x -> true));
            }
        });
        assertEquals(List.of("read", "readBatch", "checkRead", "probe"), rejected);
        assertEquals(10, n);
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), got);
        // the guard is released, also after a handler that threw
        pipe.write(10);
        pipe.flush();
        assertThrows(ArithmeticException.class, () -> pipe.readBatch(v -> {
            throw new ArithmeticException("handler failure");
        }));
        pipe.write(11);
        pipe.flush();
        assertEquals(11, pipe.read());
        assertEquals(null, pipe.read());
    }

    /** The audit's case: a handler that reads past the batch's end walked into unflushed slots. */
    @Test
    void yPipeHandlerReadingPastTheBatchEndCannotCorruptTheBatch() {
        YPipe<Integer> pipe = new YPipe<>(4);
        pipe.write(0);
        pipe.write(1);
        pipe.flush();
        List<Integer> got = new ArrayList<>();
        pipe.readBatch(v -> {
            got.add(v);
            if (v == 0) {
                pipe.write(2);
                pipe.flush();
                pipe.write(3); // written, never flushed: must never be read
                try {
                    got.add(pipe.read());
                    got.add(pipe.read());
                } catch (IllegalStateException expected) {
                    got.add(-1);
                }
            }
        });
        assertEquals(List.of(0, -1, 1), got);
        assertEquals(2, pipe.read());
        assertEquals(null, pipe.read());
    }

    @Test
    void offHeapYPipeRejectsReadsFromInsideItsReadBatchHandler() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(1024)) {
            for (int i = 0; i < 5; i++) {
                pipe.write(message(i, 10));
            }
            pipe.flush();
            List<String> rejected = new ArrayList<>();
            int[] seen = {0};
            int n = pipe.readBatch((buf, off, len) -> {
                if (seen[0]++ == 0) {
                    expectIse(rejected, "read", () -> pipe.read(new byte[64]));
                    expectIse(rejected, "readBatch", () -> pipe.readBatch((b, o, l) -> fail("nested")));
                    expectIse(rejected, "checkRead", pipe::checkRead);
                }
            });
            assertEquals(List.of("read", "readBatch", "checkRead"), rejected);
            assertEquals(5, n);
            assertEquals(-1, pipe.read(new byte[64]));
        }
    }

    @Test
    void yMailboxRejectsCheckAndPollFromInsideItsHandler() throws InterruptedException {
        YMailbox<Integer> mailbox = new YMailbox<>(new YPollset(WaitPolicy.purePark()));
        YMailbox.Writer<Integer> a = mailbox.newWriter();
        YMailbox.Writer<Integer> b = mailbox.newWriter();
        for (int i = 0; i < 3; i++) {
            a.send(i);
            b.send(100 + i);
        }
        List<Integer> got = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        int n = mailbox.check(v -> {
            got.add(v);
            if (v == 0) {
                expectIse(rejected, "check", () -> mailbox.check(x -> got.add(-x - 1000)));
                expectIse(rejected, "poll", () -> {
                    try {
                        mailbox.poll(x -> got.add(-x - 2000), 0, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                });
            }
        });
        assertEquals(List.of("check", "poll"), rejected);
        assertEquals(6, n);
        assertEquals(List.of(0, 1, 2, 100, 101, 102), got);
        a.send(3);
        assertEquals(1, mailbox.poll(got::add, 1, TimeUnit.SECONDS), "the guard was released");
        assertEquals(3, got.get(got.size() - 1));
    }

    private static void expectIse(List<String> rejected, String what, Runnable call) {
        try {
            call.run();
        } catch (IllegalStateException e) {
            rejected.add(what);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Defect 5: flush() from a second writer thread
    // ------------------------------------------------------------------------------------------

    @Test
    void offHeapFlushFromASecondThreadWhileTheWriterHoldsAClaimIsRejected() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(1024)) {
            pipe.write(message(0, 8));
            int at = pipe.claim(8);
            assertTrue(at >= 0);
            AtomicReference<Object> outcome = new AtomicReference<>();
            TestThreads.start("second-writer", () -> {
                try {
                    outcome.set(pipe.flush());
                } catch (IllegalStateException e) {
                    outcome.set(e);
                }
            }).join();
            assertTrue(outcome.get() instanceof IllegalStateException,
                    "flush from another thread during the writer's claim: " + outcome.get());
            assertTrue(pipe.flush(), "the claim's own thread may flush (message 0)");
            pipe.claimBuffer().put(at, message(1, 8));
            pipe.commit(false);
            assertTrue(pipe.flush());
            byte[] got = new byte[8];
            assertEquals(8, pipe.read(got));
            assertArrayEquals(message(0, 8), got);
            assertEquals(8, pipe.read(got));
            assertArrayEquals(message(1, 8), got);
            // handed over with a happens-before edge (the join), another thread may be the writer
            pipe.write(message(2, 8));
            TestThreads.start("next-writer", pipe::flush).join();
            assertEquals(8, pipe.read(got));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Defect 6: awaitSpace leftovers
    // ------------------------------------------------------------------------------------------

    @Test
    void aWriterWokenSpuriouslyThatFindsRoomLowersItsFlag() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            int count = 0;
            while (pipe.write(message(count, 28))) {
                count++;
            }
            pipe.flush();
            CountDownLatch returned = new CountDownLatch(1);
            TestThreads.Runner writer = TestThreads.start("writer", () -> {
                pipe.awaitSpace(28);
                returned.countDown();
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (LockSupport.getBlocker(writer.thread) != pipe || pipe.getAcquireWriterWaiting() != 1) {
                assertTrue(System.nanoTime() - deadline < 0, "the writer never went to sleep");
                Thread.yield();
            }
            int[] flagSeen = {-1};
            int[] seq = {0};
            int n = pipe.readBatch((buf, off, len) -> {
                if (seq[0]++ == 1) {
                    // Message 0 is consumed (space freed) but the reader has not yet left
                    // readBatch (whose exit wakes a waiting writer): wake the writer as a
                    // spurious unpark would.
                    LockSupport.unpark(writer.thread);
                    try {
                        assertTrue(returned.await(60, TimeUnit.SECONDS), "the writer found room");
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    flagSeen[0] = pipe.getAcquireWriterWaiting();
                }
            });
            writer.join();
            assertEquals(count, n);
            assertEquals(0, flagSeen[0], "writerWaiting after the writer returned with room");
            assertEquals(0, pipe.getAcquireWriterWaiting());
        }
    }

    @Test
    void aZeroTimeoutChecksOnceWithoutSpinning() {
        // Integer.MAX_VALUE spins would take tens of seconds: the watchdog catches any spin.
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.defaultPolicy(), WaitPolicy.spinThenPark(Integer.MAX_VALUE))) {
            assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
                assertTrue(pipe.awaitSpace(28, 0, TimeUnit.SECONDS), "an empty ring has room");
                while (pipe.write(message(0, 28))) {
                    // fill
                }
                pipe.flush();
                assertFalse(pipe.awaitSpace(28, 0, TimeUnit.SECONDS), "a full ring, no waiting");
                assertFalse(pipe.awaitSpace(28, 1, TimeUnit.NANOSECONDS), "a deadline met while spinning");
                assertEquals(0, pipe.getAcquireWriterWaiting(), "no flag left raised");
            }, "awaitSpace with a zero timeout spun instead of returning");
        }
    }
}
