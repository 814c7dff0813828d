package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.ysuite.OffHeapYPipe;
import org.ysuite.PipeStats;
import org.ysuite.TestThreads;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * The shared pipe's counters ({@link SharedPipeWriter#stats()}, {@link SharedPipeReader#stats()}):
 * after known sequences, from both sides, across a restart, and from a file full of garbage.
 */
class SharedPipeStatsTest extends SharedPipeFileFixture {

    @Test
    void flushedConsumedAndDepthFollowTheMessagesBothSidesSeeTheSame() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            assertCounters(out.stats(), 0, 0, 0, 0, 0);
            for (int i = 0; i < 7; i++) {
                assertTrue(out.write(new byte[i]));
            }
            assertCounters(out.stats(), 0, 0, 0, 0, 0); // written, not flushed
            assertTrue(out.flush());
            assertCounters(out.stats(), 7, 0, 0, 0, 7);
            assertEquals(3, in.read(new byte[16]) + in.read(new byte[16]) + in.read(new byte[16]));
            assertCounters(in.stats(), 7, 0, 0, 0, 4);
            assertEquals(4, in.readBatch((b, o, l) -> { }));
            assertCounters(out.stats(), 7, 0, 0, 0, 0);
            assertCounters(in.stats(), 7, 0, 0, 0, 0);
        }
    }

    @Test
    void theCountsHoldOverManyLapsOfTheRingWherePaddingIsNoMessageAndAMessageInPartsIsOne() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            long flushed = 0;
            for (int i = 0; i < 3000; i++) { // lengths 0..99: padding records at the ring's end
                int parts = i % 10 == 0 ? 2 : 1;
                for (int p = 0; p < parts; p++) {
                    assertTrue(out.write(new byte[i % 100], 0, i % 100, p < parts - 1));
                }
                out.flush();
                flushed++; // one complete message, however many parts
                if (i % 3 == 2) { // behind by up to two flushes, read in batches and one by one
                    while (in.readBatch((b, o, l) -> { }) > 0) {
                        // drained
                    }
                }
                assertCounters(out.stats(), flushed, out.stats().wakeups(), 0, 0, out.stats().depth());
            }
            assertTrue(out.write(new byte[5]));
            assertTrue(out.write(new byte[5], 0, 5, true)); // an incomplete part: not flushed
            out.flush();
            PipeStats s = in.stats();
            assertEquals(flushed + 1, s.messagesFlushed(), s.toString());
            int unread = 0;
            while (in.read(new byte[100]) >= 0) {
                unread++;
            }
            assertEquals(unread, s.depth(), s.toString());
            assertEquals(0, out.stats().depth());
        }
        try (SharedPipeWriter again = SharedYPipe.builder(file).openWriter()) {
            assertEquals(3000 + 1, again.stats().messagesFlushed(), "a restarted writer continues the count");
        }
    }

    /**
     * One unit for both byte pipes: the same writes (messages of one to three parts, padding at
     * the ring's end) and the same reads, part by part, give the same messagesFlushed and depth.
     */
    @Test
    void theSharedPipeCountsTheSameWritesAndReadsAsTheOffHeapPipe() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file);
                OffHeapYPipe pipe = new OffHeapYPipe(4096)) {
            byte[] dst = new byte[64];
            for (int i = 0; i < 500; i++) {
                int parts = 1 + i % 3;
                for (int p = 0; p < parts; p++) {
                    boolean more = p < parts - 1;
                    assertTrue(out.write(new byte[i % 50], 0, i % 50, more));
                    assertTrue(pipe.write(new byte[i % 50], 0, i % 50, more));
                }
                out.flush();
                pipe.flush();
                for (int k = 0; k < i % 4 * 3; k++) { // behind by a few parts, or none
                    assertEquals(pipe.read(dst), in.read(dst));
                }
                PipeStats shared = out.stats();
                PipeStats offHeap = pipe.stats();
                assertEquals(offHeap.messagesFlushed(), shared.messagesFlushed(), i + ": " + shared + " vs " + offHeap);
                assertEquals(offHeap.depth(), shared.depth(), i + ": " + shared + " vs " + offHeap);
            }
            assertEquals(500, out.stats().messagesFlushed());
        }
    }

    @Test
    void aBatchWhoseHandlerThrewCountsTheMessagesHandedOverThrowingOneIncluded() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            for (int i = 0; i < 5; i++) {
                assertTrue(out.write(new byte[4]));
            }
            assertTrue(out.flush());
            int[] seen = {0};
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> in.readBatch((b, o, l) -> {
                if (++seen[0] == 2) {
                    throw new IllegalStateException("the handler's own");
                }
            }));
            assertEquals("the handler's own", thrown.getMessage());
            assertCounters(in.stats(), 5, 0, 0, 0, 3); // two consumed: the throwing one counts
            assertEquals(3, in.readBatch((b, o, l) -> { }));
            assertCounters(out.stats(), 5, 0, 0, 0, 0);
        }
    }

    @Test
    void aMessageInPartsCountsOnceWhenCompleteAsOffHeapYPipeCountsItAndUnwriteTakesItBack() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            assertTrue(out.write(new byte[1], 0, 1, true));
            assertTrue(out.write(new byte[1], 0, 1, true));
            assertTrue(out.flush());
            assertEquals(0, out.stats().messagesFlushed(), "incomplete parts are not flushed");
            assertTrue(out.write(new byte[1], 0, 1, false));
            assertTrue(out.write(new byte[2]));
            assertTrue(out.unwrite());
            assertTrue(out.unwrite()); // the message's last part: its two first parts are incomplete again
            assertTrue(out.write(new byte[1], 0, 1, false));
            assertTrue(out.flush());
            assertEquals(1, out.stats().messagesFlushed(), "three parts of one message: one message");
            RuntimeException boom = new RuntimeException("handler");
            assertThrows(RuntimeException.class, () -> in.readBatch((b, o, l) -> {
                throw boom;
            }));
            assertEquals(1, in.stats().depth(), "its first part consumed (the handler threw): the message is not yet");
            assertEquals(1, in.read(new byte[1]));
            assertEquals(1, in.stats().depth(), "two parts of three consumed");
            assertEquals(1, in.read(new byte[1]));
            assertEquals(0, in.stats().depth(), "its last part read: the message is consumed");
        }
    }

    @Test
    void aSleepingReaderWokenOnceCountsOneSleepOneWakeupAndTimeAsleep() throws Throwable {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = slowPeerCheck().openReader()) {
            TestThreads.Runner reader = TestThreads.start("stats-reader", () -> {
                assertTrue(in.awaitMessage());
                assertEquals(5, in.read(new byte[8]));
            });
            awaitSleepBit(SharedPipeDescriptor.READER_SLEEP_AT, reader.thread);
            assertTrue(out.write(new byte[5]));
            assertFalse(out.flush(), "the flush must find the reader asleep");
            reader.join();
            PipeStats s = out.stats();
            assertCounters(s, 1, 1, 1, 0, 0);
            assertTrue(s.sleepNanos() > 0, s.toString());
            assertEquals(s.toString(), in.stats().toString(), "each side reads the other's counters");
        }
    }

    @Test
    void aWriterThatWaitedForSpaceCountsOneWait() throws Throwable {
        try (SharedPipeWriter out = slowPeerCheck().capacity(4096).createWriter();
                SharedPipeReader in = slowPeerCheck().openReader()) {
            byte[] msg = new byte[out.maxMessageLength()];
            assertTrue(out.write(msg));
            assertTrue(out.write(msg));
            assertFalse(out.write(msg), "the ring is full");
            assertTrue(out.flush());
            assertFalse(out.awaitSpace(msg.length, 0, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, out.stats().writerWaits(), "a wait that did not wait does not count");
            TestThreads.Runner writer = TestThreads.start("stats-writer", () -> out.awaitSpace(msg.length));
            awaitSleepBit(SharedPipeDescriptor.WRITER_SLEEP_AT, writer.thread);
            assertEquals(msg.length, in.read(new byte[msg.length]));
            writer.join();
            assertCounters(in.stats(), 2, 0, 0, 1, 1);
        }
    }

    @Test
    void restartedSidesContinueTheirCountsAndAClosedSideNamesTheTool() throws Exception {
        SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
        assertTrue(out.write(new byte[1]));
        assertTrue(out.write(new byte[1]));
        out.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class, out::stats);
        assertTrue(closed.getMessage().contains("stat " + file), closed.getMessage());
        try (SharedPipeReader in = SharedYPipe.openReader(file)) {
            assertEquals(1, in.read(new byte[1]));
        }
        try (SharedPipeWriter again = SharedYPipe.builder(file).openWriter();
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            assertTrue(again.write(new byte[1]));
            assertTrue(again.flush());
            assertCounters(again.stats(), 3, 0, 0, 0, 2);
            assertEquals(2, in.readBatch((b, o, l) -> { }));
            assertCounters(in.stats(), 3, 0, 0, 0, 0);
        }
    }

    @Test
    void garbageCountersAreReportedNeverThrown() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            patchLong(SharedPipeDescriptor.ANCHOR_COUNT_AT, Long.MIN_VALUE);
            patchLong(SharedPipeDescriptor.SLEEP_NANOS_AT, -1);
            PipeStats s = in.stats();
            assertEquals(Long.MIN_VALUE, s.messagesFlushed());
            assertEquals(-1, s.sleepNanos());
            assertEquals(0, s.depth());
            patchLong(SharedPipeDescriptor.ANCHOR_COUNT_AT, Long.MAX_VALUE);
            assertTrue(out.write(new byte[1]));
            assertTrue(out.flush());
            assertEquals(0, out.stats().depth(), "MAX_VALUE + 1 flushed, MAX_VALUE consumed: clamped, without overflow");
            assertEquals(1, in.read(new byte[1]));
            patchLong(SharedPipeDescriptor.ANCHOR_AT, 12345); // no position: the walk gives up
            assertCounters(in.stats(), Long.MAX_VALUE, 0, 0, 0, 0);
            // the writer moves its anchor over the garbage at its next wake-up (or head it re-reads)
            assertFalse(in.checkRead()); // the reader is (going) asleep
            assertTrue(out.write(new byte[1]));
            assertFalse(out.flush());
            assertCounters(out.stats(), 2, 1, 0, 0, 1);
        }
    }

    private void patchLong(int offset, long v) throws java.io.IOException {
        patch(offset, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, v).array());
    }

    static void assertCounters(PipeStats s, long flushed, long wakeups, long sleeps, long writerWaits, long depth) {
        String got = s.toString();
        assertEquals(flushed, s.messagesFlushed(), got);
        assertEquals(wakeups, s.wakeups(), got);
        assertEquals(sleeps, s.sleeps(), got);
        assertEquals(writerWaits, s.writerWaits(), got);
        assertEquals(depth, s.depth(), got);
    }
}
