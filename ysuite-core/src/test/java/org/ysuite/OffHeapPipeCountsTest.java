package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link OffHeapYPipe#stats()}'s message counts, derived from the writer's anchor, head, c and a
 * walk of the ring (not counted per flush or read): exact against a model over many ring laps of
 * mixed sizes, parts, padding and unwrites; kept through a close; and sane from another thread.
 */
class OffHeapPipeCountsTest {

    /** The model's count of complete messages flushed. */
    private long flushed;

    @Test
    void exactOverManyLapsOfMixedSizesPartsPaddingAndUnwrites() {
        SplittableRandom random = new SplittableRandom(25);
        // Each record by whether it is a message's last part: written and unflushed, flushed and unread.
        ArrayDeque<Boolean> pending = new ArrayDeque<>();
        ArrayDeque<Boolean> published = new ArrayDeque<>();
        byte[] dst = new byte[128];
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            for (int step = 0; step < 20_000; step++) {
                int action = random.nextInt(10);
                if (action < 5) {
                    boolean more = trailingParts(pending) < 2 && random.nextInt(4) == 0;
                    int length = random.nextInt(pipe.maxMessageLength() / 3);
                    if (pipe.write(new byte[length], 0, length, more)) {
                        pending.addLast(!more);
                    } else if (trailingParts(pending) > 0) { // parts that cannot be completed
                        assertTrue(pipe.unwrite());
                        pending.removeLast();
                    } else {
                        flush(pipe, pending, published);
                        read(pipe, random, published, dst); // full: make room
                    }
                } else if (action < 7) {
                    if (!pending.isEmpty() && random.nextInt(3) == 0) {
                        assertTrue(pipe.unwrite(), "an unflushed record");
                        pending.removeLast();
                    } else {
                        flush(pipe, pending, published);
                    }
                } else {
                    read(pipe, random, published, dst);
                }
                long unread = published.stream().filter(last -> last).count();
                PipeStats s = pipe.stats();
                int at = step;
                assertEquals(flushed, s.messagesFlushed(), () -> "step " + at + ": " + s);
                assertEquals(unread, s.depth(), () -> "step " + at + ": " + s);
            }
            assertTrue(flushed > 3_000, "many laps of the ring: " + flushed);
        }
    }

    private static int trailingParts(ArrayDeque<Boolean> pending) {
        int n = 0;
        for (var it = pending.descendingIterator(); it.hasNext() && !it.next(); ) {
            n++;
        }
        return n;
    }

    /** Flushes; the model publishes the records up to the last complete message. */
    private void flush(OffHeapYPipe pipe, ArrayDeque<Boolean> pending, ArrayDeque<Boolean> published) {
        pipe.flush();
        int complete = pending.size() - trailingParts(pending);
        for (int i = 0; i < complete; i++) {
            boolean last = pending.removeFirst();
            published.addLast(last);
            if (last) {
                flushed++;
            }
        }
    }

    /** Reads one record or a batch, and takes them out of the model. */
    private static void read(OffHeapYPipe pipe, SplittableRandom random, ArrayDeque<Boolean> published, byte[] dst) {
        int n;
        if (random.nextBoolean()) {
            n = pipe.read(dst) >= 0 ? 1 : 0;
        } else {
            n = pipe.readBatch((buffer, offset, length) -> { });
        }
        for (int i = 0; i < n; i++) {
            published.removeFirst();
        }
    }

    @Test
    void aMessageInPartsCountsOnceWhenItsLastPartIsConsumed() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            assertTrue(pipe.write(new byte[3], 0, 3, true));
            assertTrue(pipe.write(new byte[3], 0, 3, true));
            assertTrue(pipe.write(new byte[3], 0, 3, false));
            assertEquals(0, pipe.stats().messagesFlushed(), "written, not flushed");
            assertTrue(pipe.flush());
            assertEquals("flushed 1 depth 1", brief(pipe.stats()));
            assertEquals(3, pipe.read(new byte[8]));
            assertEquals("flushed 1 depth 1", brief(pipe.stats()), "its first part read: still unread");
            assertEquals(2, pipe.readBatch((buffer, offset, length) -> { }));
            assertEquals("flushed 1 depth 0", brief(pipe.stats()));
        }
    }

    @Test
    void unwritingACompleteMessageTakesItOutOfTheCount() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            for (int i = 0; i < 200; i++) { // laps: the anchor moves, counting [w, f) at each
                assertTrue(pipe.write(new byte[20]));
                assertTrue(pipe.write(new byte[20]));
                assertTrue(pipe.unwrite());
                pipe.flush();
                assertEquals(1, pipe.readBatch((buffer, offset, length) -> { }));
            }
            assertEquals("flushed 200 depth 0", brief(pipe.stats()));
        }
    }

    @Test
    void aClosedPipeKeepsTheCountsItHadWhenItClosed() throws Exception {
        OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark());
        for (int i = 0; i < 40; i++) { // past a lap
            assertTrue(pipe.write(new byte[4]));
            pipe.flush();
            pipe.readBatch((buffer, offset, length) -> { });
        }
        assertTrue(pipe.write(new byte[4]));
        assertTrue(pipe.write(new byte[4]));
        pipe.flush();
        assertTrue(pipe.write(new byte[4])); // never flushed
        assertEquals(4, pipe.read(new byte[4]));
        pipe.close();
        assertTrue(pipe.memoryFreed());
        assertEquals("flushed 42 depth 1", brief(pipe.stats()));
        // From another thread, too.
        AtomicReference<PipeStats> seen = new AtomicReference<>();
        Thread t = new Thread(() -> seen.set(pipe.stats()));
        t.start();
        t.join();
        assertEquals("flushed 42 depth 1", brief(seen.get()));
    }

    @Test
    void aPipeClosedByItsHandlerCountsWhatWasReadBeforeTheClose() {
        OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark());
        for (int i = 0; i < 5; i++) {
            assertTrue(pipe.write(new byte[4]));
        }
        pipe.flush();
        int[] calls = {0};
        assertEquals(2, pipe.readBatch((buffer, offset, length) -> {
            if (++calls[0] == 2) {
                pipe.close();
            }
        }));
        assertEquals("flushed 5 depth 3", brief(pipe.stats()));
        assertTrue(pipe.memoryFreed());
    }

    @Test
    void aSleepingReaderCountsNothingUnread() throws Exception {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            for (int i = 0; i < 100; i++) {
                assertTrue(pipe.write(new byte[9]));
                pipe.flush();
                assertEquals(1, pipe.readBatch((buffer, offset, length) -> { }));
                assertEquals(0, pipe.readBatch((buffer, offset, length) -> { }), "empty: asleep");
                assertEquals("flushed " + (i + 1) + " depth 0", brief(pipe.stats()));
                assertFalse(pipe.awaitMessage(0, TimeUnit.NANOSECONDS));
            }
        }
    }

    @Test
    void snapshotsOnAnotherThreadWhileThePipeRunsAndCloses() throws Exception {
        int messages = 300_000;
        OffHeapYPipe pipe = new OffHeapYPipe(1 << 12, WaitPolicy.spinThenPark(1_000));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] snapshots = {0};
        AtomicBoolean closed = new AtomicBoolean();
        CountDownLatch snapshotsAfterClose = new CountDownLatch(100);
        Thread watcher = new Thread(() -> {
            try {
                long last = 0;
                while (!stop.get()) {
                    boolean afterClose = closed.get();
                    PipeStats s = pipe.stats();
                    if (s.messagesFlushed() < last || s.messagesFlushed() > messages
                            || s.depth() > (1 << 12) / 8) {
                        throw new AssertionError("after " + last + ": " + s);
                    }
                    last = s.messagesFlushed();
                    snapshots[0]++;
                    if (afterClose) {
                        snapshotsAfterClose.countDown();
                    }
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        Thread reader = new Thread(() -> {
            try {
                long read = 0;
                while (read < messages) {
                    int n = pipe.readBatch((buffer, offset, length) -> { });
                    if (n == 0) {
                        pipe.awaitMessage();
                    }
                    read += n;
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        watcher.start();
        reader.start();
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < messages; i++) {
            int length = random.nextInt(40);
            while (!pipe.write(new byte[length], 0, length, false)) {
                pipe.flush();
                pipe.awaitSpace(length);
            }
            if ((i & 3) == 0) {
                pipe.flush();
            }
        }
        pipe.flush();
        reader.join(60_000);
        assertFalse(reader.isAlive());
        assertEquals("flushed " + messages + " depth 0", brief(pipe.stats()));
        pipe.close(); // while the watcher's snapshots go on
        closed.set(true);
        // the watcher must take snapshots of the closed pipe (or fail) before it is stopped
        assertTrue(snapshotsAfterClose.await(60, TimeUnit.SECONDS) || failure.get() != null,
                "no snapshot of the closed pipe in 60 s");
        stop.set(true);
        watcher.join(60_000);
        assertNull(failure.get());
        assertTrue(snapshots[0] > 0);
        assertTrue(pipe.memoryFreed());
        assertEquals("flushed " + messages + " depth 0", brief(pipe.stats()));
        assertThrows(IllegalStateException.class, () -> pipe.write(new byte[1]));
    }

    private static String brief(PipeStats s) {
        return "flushed " + s.messagesFlushed() + " depth " + s.depth();
    }
}
