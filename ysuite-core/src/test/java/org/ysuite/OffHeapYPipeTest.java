package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class OffHeapYPipeTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> drain(OffHeapYPipe pipe) {
        List<String> got = new ArrayList<>();
        while (pipe.readBatch((buf, off, len) -> {
            byte[] b = new byte[len];
            buf.get(off, b);
            got.add(new String(b, StandardCharsets.UTF_8));
        }) > 0) {
            // keep draining until the pipe is empty (and the reader asleep)
        }
        return got;
    }

    @Test
    void emptyPipeReadsNothingAndPutsTheReaderToSleep() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            assertFalse(pipe.checkRead());
            assertEquals(-1, pipe.read(new byte[8]));
            assertEquals(0, pipe.readBatch((b, o, l) -> { throw new AssertionError(); }));
            assertTrue(pipe.write(bytes("a")));
            assertFalse(pipe.flush(), "the reader went to sleep, so the flush must ask for a signal");
            assertTrue(pipe.checkRead());
            byte[] dst = new byte[8];
            assertEquals(1, pipe.read(dst));
            assertEquals('a', dst[0]);
        }
    }

    @Test
    void messagesArriveInOrderAndUnflushedOnesAreInvisible() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(1024)) {
            pipe.write(bytes("one"));
            pipe.write(bytes("two"));
            assertTrue(pipe.flush(), "a new pipe's reader starts awake");
            pipe.write(bytes("three"));
            assertEquals(List.of("one", "two"), drain(pipe));
            assertFalse(pipe.flush());
            assertEquals(List.of("three"), drain(pipe));
        }
    }

    @Test
    void emptyMessagesAreMessages() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            pipe.write(new byte[0]);
            pipe.flush();
            assertEquals(0, pipe.read(new byte[0]));
            assertEquals(-1, pipe.read(new byte[0]));
        }
    }

    @Test
    void wrapAroundPadsTheRingEndAndKeepsEveryMessageContiguous() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            List<String> expected = new ArrayList<>();
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String m = "message-" + i + "-" + "x".repeat(i % 50);
                assertTrue(pipe.write(bytes(m)), "the reader keeps up, so there is always room");
                expected.add(m);
                pipe.flush();
                got.addAll(drain(pipe));
            }
            assertEquals(expected, got);
        }
    }

    @Test
    void exactlyFullRingRefusesTheNextByteAndTakesItAfterARead() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            // 8 records of 32 bytes (4 header + 28 payload) fill 256 bytes exactly.
            for (int i = 0; i < 8; i++) {
                assertTrue(pipe.write(new byte[28]), "record " + i);
            }
            assertFalse(pipe.write(new byte[0]), "exactly full: not even an empty message fits");
            assertFalse(pipe.write(ByteBuffer.allocate(1), false));
            assertEquals(-1, pipe.claim(0));
            pipe.flush();
            assertEquals(28, pipe.read(new byte[28]));
            assertTrue(pipe.write(new byte[28]), "one record freed, one record fits");
            assertFalse(pipe.write(new byte[0]));
        }
    }

    @Test
    void largestMessageFitsWhereverTheRingHeadIs() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            assertEquals(124, pipe.maxMessageLength());
            assertEquals(124, OffHeapYPipe.maxMessageLength(256));
            byte[] big = new byte[124];
            for (int offset = 0; offset < 256; offset += 8) {
                // move the head to every record boundary, then the largest message must fit
                pipe.write(new byte[Math.max(0, offset % 64)]);
                pipe.flush();
                drain(pipe);
                assertTrue(pipe.write(big), "offset " + offset);
                pipe.flush();
                assertEquals(1, drain(pipe).size());
            }
        }
    }

    @Test
    void multipartMessageAcrossTheRingEndIsDeliveredWhole() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            pipe.write(new byte[92]);
            pipe.write(new byte[92]);
            pipe.flush();
            drain(pipe); // head now at 192: the second part must cross the end
            assertTrue(pipe.write(bytes("part1-" + "a".repeat(40)), 0, 46, true));
            assertTrue(pipe.write(bytes("part2-" + "b".repeat(40)), 0, 46, true));
            pipe.flush();
            assertEquals(List.of(), drain(pipe), "incomplete parts are never flushed");
            assertTrue(pipe.write(bytes("part3"), 0, 5, false));
            assertFalse(pipe.flush());
            assertEquals(List.of("part1-" + "a".repeat(40), "part2-" + "b".repeat(40), "part3"),
                    drain(pipe));
        }
    }

    @Test
    void unwriteTakesBackTheOnlyMessage() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            pipe.write(bytes("only"));
            assertTrue(pipe.unwrite());
            assertFalse(pipe.unwrite());
            assertTrue(pipe.flush(), "nothing to flush");
            assertEquals(List.of(), drain(pipe));
            pipe.write(bytes("again"));
            pipe.flush();
            assertEquals(List.of("again"), drain(pipe));
        }
    }

    @Test
    void unwriteRewindsPastIncompletePartsButNeverFlushedMessages() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            pipe.write(bytes("a"));
            pipe.flush();
            pipe.write(bytes("p"), 0, 1, true);
            pipe.write(bytes("q"));
            assertTrue(pipe.unwrite(), "q");
            pipe.flush();
            assertEquals(List.of("a"), drain(pipe), "p is incomplete again");
            assertTrue(pipe.unwrite(), "p");
            assertFalse(pipe.unwrite(), "a was flushed");
            pipe.write(bytes("r"));
            pipe.flush();
            assertEquals(List.of("r"), drain(pipe));
        }
    }

    @Test
    void claimAndCommitBuildAMessageInPlace() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(512)) {
            int at = pipe.claim(16);
            assertTrue(at >= 0);
            ByteBuffer buf = pipe.claimBuffer();
            buf.putLong(at, 0x1122334455667788L);
            buf.putLong(at + 8, -1L);
            assertThrows(IllegalStateException.class, () -> pipe.write(new byte[1]),
                    "the writer side stays claimed until commit");
            assertTrue(pipe.flush(), "flush is allowed during a claim and publishes nothing new");
            pipe.commit(false);
            assertThrows(IllegalStateException.class, () -> pipe.commit(false));
            pipe.flush();
            long[] seen = new long[2];
            assertEquals(1, pipe.readBatch((b, o, l) -> {
                assertEquals(16, l);
                seen[0] = b.getLong(o);
                seen[1] = b.getLong(o + 8);
            }));
            assertEquals(0x1122334455667788L, seen[0]);
            assertEquals(-1L, seen[1]);
        }
    }

    @Test
    void byteBufferWriteConsumesTheSourceOnlyWhenWritten() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            ByteBuffer src = ByteBuffer.wrap(bytes("xxhello"));
            src.position(2);
            assertTrue(pipe.write(src, false));
            assertEquals(0, src.remaining());
            ByteBuffer tooBig = ByteBuffer.allocateDirect(124);
            assertTrue(pipe.write(tooBig, false));
            tooBig.flip();
            assertFalse(pipe.write(ByteBuffer.allocateDirect(124), false), "full");
            pipe.flush();
            byte[] dst = new byte[200];
            assertEquals(5, pipe.read(dst));
            assertEquals("hello", new String(dst, 0, 5, StandardCharsets.UTF_8));
        }
    }

    @Test
    void readIntoAShortArrayKeepsTheMessage() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            pipe.write(bytes("0123456789"));
            pipe.flush();
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> pipe.read(new byte[4]));
            assertTrue(e.getMessage().contains("dst.length 4") && e.getMessage().contains("10"),
                    e.getMessage());
            byte[] dst = new byte[10];
            assertEquals(10, pipe.read(dst));
            assertArrayEquals(bytes("0123456789"), dst);
        }
    }

    @Test
    void badArgumentsNameTheArgumentAndTheLimit() {
        for (int bad : new int[] {0, -256, 100, 255, 384, Integer.MIN_VALUE}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> new OffHeapYPipe(bad));
            assertTrue(e.getMessage().contains("capacityBytes") && e.getMessage().contains("256")
                    && e.getMessage().contains("1073741824"), e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> new OffHeapYPipe(256, (WaitPolicy) null));
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> pipe.write(new byte[125]));
            assertTrue(e.getMessage().contains("length") && e.getMessage().contains("124"),
                    e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> pipe.claim(-1));
            assertThrows(IllegalArgumentException.class, () -> pipe.claim(125));
            assertThrows(IllegalArgumentException.class, () -> pipe.awaitSpace(125));
            assertThrows(IllegalArgumentException.class,
                    () -> pipe.awaitSpace(1, -1, TimeUnit.SECONDS));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> pipe.write(new byte[4], 2, 3, false));
            assertThrows(NullPointerException.class, () -> pipe.write((byte[]) null));
            assertThrows(NullPointerException.class, () -> pipe.write((ByteBuffer) null, false));
            assertThrows(NullPointerException.class, () -> pipe.read(null));
            assertThrows(NullPointerException.class, () -> pipe.readBatch(null));
        }
    }

    @Test
    void everyOperationAfterCloseIsAnIllegalStateException() {
        OffHeapYPipe pipe = new OffHeapYPipe(256);
        pipe.write(bytes("left behind"));
        pipe.close();
        pipe.close(); // idempotent
        assertTrue(pipe.isClosed());
        assertThrows(IllegalStateException.class, () -> pipe.write(new byte[1]));
        assertThrows(IllegalStateException.class, () -> pipe.write(ByteBuffer.allocate(1), false));
        assertThrows(IllegalStateException.class, () -> pipe.claim(1));
        assertThrows(IllegalStateException.class, pipe::claimBuffer);
        assertThrows(IllegalStateException.class, () -> pipe.commit(false));
        assertThrows(IllegalStateException.class, pipe::unwrite);
        assertThrows(IllegalStateException.class, pipe::flush);
        assertThrows(IllegalStateException.class, pipe::checkRead);
        assertThrows(IllegalStateException.class, () -> pipe.read(new byte[8]));
        assertThrows(IllegalStateException.class, () -> pipe.readBatch((b, o, l) -> { }));
        assertThrows(IllegalStateException.class, () -> pipe.awaitSpace(1));
    }

    @Test
    void commitAfterCloseReleasesTheClaimAndSaysTheMessageIsDiscarded() {
        OffHeapYPipe pipe = new OffHeapYPipe(256);
        assertTrue(pipe.claim(8) >= 0);
        pipe.close();
        assertThrows(IllegalStateException.class, pipe::claimBuffer);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pipe.commit(false));
        assertTrue(e.getMessage().contains("discarded"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> pipe.commit(false));
        assertThrows(IllegalStateException.class, () -> pipe.write(new byte[1]));
    }

    @Test
    void closeFromInsideAHandlerStopsTheBatch() {
        OffHeapYPipe pipe = new OffHeapYPipe(256);
        for (int i = 0; i < 3; i++) {
            pipe.write(new byte[] {(byte) i});
        }
        pipe.flush();
        assertEquals(1, pipe.readBatch((b, o, l) -> pipe.close()));
        assertTrue(pipe.isClosed());
        assertThrows(IllegalStateException.class, () -> pipe.read(new byte[1]));
    }

    @Test
    void aCallFromInsideAHandlerIsRejected() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            pipe.write(new byte[1]);
            pipe.flush();
            assertThrows(IllegalStateException.class,
                    () -> pipe.readBatch((b, o, l) -> pipe.read(new byte[1])));
        }
    }

    @Test
    void awaitSpaceNeedsAFlushFirst() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            pipe.write(new byte[1]);
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> pipe.awaitSpace(1));
            assertTrue(e.getMessage().contains("flush"), e.getMessage());
        }
    }

    @Test
    void awaitSpaceRejectsAMessageThatCanNeverFitBehindIncompleteParts() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            assertTrue(pipe.write(new byte[100], 0, 100, true));
            assertTrue(pipe.write(new byte[100], 0, 100, true));
            assertThrows(IllegalArgumentException.class, () -> pipe.awaitSpace(100));
        }
    }

    @Test
    void awaitSpaceTimesOutWhenTheReaderDoesNotRead() throws InterruptedException {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            while (pipe.write(new byte[28])) {
                // fill
            }
            pipe.flush();
            long start = System.nanoTime();
            assertFalse(pipe.awaitSpace(28, 20, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20),
                    "a timed wait never returns early without space");
            assertTrue(pipe.awaitSpace(0, 0, TimeUnit.SECONDS) == false);
        }
    }

    @Test
    void theReaderWakesAWriterThatSleptOnAFullPipe() throws Exception {
        for (int spin : new int[] {0, WaitPolicy.DEFAULT_SPINS}) {
            try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.defaultPolicy(), WaitPolicy.spinThenPark(spin))) {
                while (pipe.write(new byte[28])) {
                    // fill
                }
                pipe.flush();
                CountDownLatch writerWaiting = new CountDownLatch(1);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread writer = new Thread(() -> {
                    try {
                        writerWaiting.countDown();
                        pipe.awaitSpace(28); // no time limit: only the reader can end this
                        assertTrue(pipe.write(new byte[28]));
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                writer.start();
                assertTrue(writerWaiting.await(60, TimeUnit.SECONDS));
                assertEquals(28, pipe.read(new byte[28]));
                writer.join(60_000);
                assertFalse(writer.isAlive(), "the reader's read must wake the waiting writer");
                if (failure.get() != null) {
                    throw new AssertionError(failure.get());
                }
            }
        }
    }

    @Test
    void closeWakesAWriterWaitingForSpace() throws Exception {
        OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark());
        while (pipe.write(new byte[28])) {
            // fill
        }
        pipe.flush();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            started.countDown();
            try {
                pipe.awaitSpace(28);
                outcome.set(new AssertionError("awaitSpace returned on a full, closed pipe"));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        writer.start();
        assertTrue(started.await(60, TimeUnit.SECONDS));
        pipe.close();
        writer.join(60_000);
        assertFalse(writer.isAlive(), "close must wake the waiting writer");
        assertTrue(outcome.get() instanceof IllegalStateException, String.valueOf(outcome.get()));
    }

    @Test
    void interruptEndsAWaitForSpace() throws Exception {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            while (pipe.write(new byte[28])) {
                // fill
            }
            pipe.flush();
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> pipe.awaitSpace(28));
            assertFalse(Thread.currentThread().isInterrupted(), "the interrupt status is cleared");
        }
    }

    @Test
    void aSecondWriterThreadInsideTheSideIsDetected() throws Exception {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256)) {
            assertTrue(pipe.claim(8) >= 0);
            AtomicReference<Throwable> seen = new AtomicReference<>();
            Thread other = new Thread(() -> {
                try {
                    pipe.write(new byte[1]);
                } catch (Throwable t) {
                    seen.set(t);
                }
            });
            other.start();
            other.join(60_000);
            assertTrue(seen.get() instanceof IllegalStateException, String.valueOf(seen.get()));
            pipe.commit(false);
        }
    }

    @Test
    void theRingIsCacheLineAligned() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(4096)) {
            assertEquals(0, pipe.claimBuffer().alignmentOffset(0, 64));
            assertTrue(pipe.claimBuffer().isDirect());
        }
    }

    @Test
    void closeReleasesDirectMemory() {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                    .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                    .filter(p -> p.getName().equals("direct")).findFirst().orElseThrow();
            long before = direct.getMemoryUsed();
            for (int i = 0; i < 200; i++) {
                try (OffHeapYPipe pipe = new OffHeapYPipe(1 << 20)) {
                    pipe.write(new byte[100]);
                }
            }
            // 200 MiB went through; at most a few pipes' worth may be outstanding.
            assertTrue(direct.getMemoryUsed() - before < (4L << 20),
                    "direct memory grew by " + (direct.getMemoryUsed() - before));
        });
    }
}
