package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The counters of {@link OffHeapYPipe}, {@link YPipe} and {@link YMailbox}, after known sequences. */
class PipeStatsTest {

    private static String counters(PipeStats s) {
        return "flushed=" + s.messagesFlushed() + " wakeups=" + s.wakeups() + " sleeps=" + s.sleeps()
                + " writerWaits=" + s.writerWaits() + " depth=" + s.depth();
    }

    @Test
    void offHeapPipeCountsFlushesDepthWakeupsSleepsAndWaits() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            assertEquals("flushed=0 wakeups=0 sleeps=0 writerWaits=0 depth=0", counters(pipe.stats()));
            byte[] msg = new byte[pipe.maxMessageLength()];
            assertTrue(pipe.write(msg));
            assertEquals(0, pipe.stats().messagesFlushed(), "written, not flushed");
            assertTrue(pipe.write(msg));
            assertTrue(pipe.flush(), "a new pipe's reader counts as awake");
            assertEquals("flushed=2 wakeups=0 sleeps=0 writerWaits=0 depth=2", counters(pipe.stats()));
            // a writer that finds the ring full waits once, and the reader's read ends it
            TestThreads.Runner writer = TestThreads.start("writer", () -> pipe.awaitSpace(msg.length));
            TestThreads.awaitParked(writer.thread);
            assertEquals(msg.length, pipe.read(new byte[msg.length]));
            writer.join();
            assertEquals("flushed=2 wakeups=0 sleeps=0 writerWaits=1 depth=1", counters(pipe.stats()));
            assertEquals(1, pipe.readBatch((b, o, l) -> { }));
            // the reader sleeps in awaitMessage; a flush finds it asleep and wakes it
            TestThreads.Runner reader = TestThreads.start("reader", () -> {
                assertTrue(pipe.awaitMessage());
                assertEquals(1, pipe.read(new byte[8]));
            });
            TestThreads.awaitParked(reader.thread);
            assertTrue(pipe.write(new byte[1]));
            assertFalse(pipe.flush());
            reader.join();
            PipeStats s = pipe.stats();
            assertEquals("flushed=3 wakeups=1 sleeps=1 writerWaits=1 depth=0", counters(s));
            assertTrue(s.sleepNanos() > 0, s::toString);
        }
    }

    @Test
    void anOffHeapBatchWhoseHandlerThrewCountsTheMessagesHandedOverThrowingOneIncluded() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
            for (int i = 0; i < 5; i++) {
                assertTrue(pipe.write(new byte[4]));
            }
            assertTrue(pipe.flush());
            int[] seen = {0};
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> pipe.readBatch((b, o, l) -> {
                if (++seen[0] == 2) {
                    throw new IllegalStateException("the handler's own");
                }
            }));
            assertEquals("the handler's own", thrown.getMessage());
            assertEquals("flushed=5 wakeups=0 sleeps=0 writerWaits=0 depth=3", counters(pipe.stats()));
            assertEquals(3, pipe.readBatch((b, o, l) -> { }));
            assertEquals(0, pipe.stats().depth());
        }
    }

    @Test
    void ypipeCountsItemsFlushedDepthAndWakeupsAskedFor() {
        YPipe<String> pipe = new YPipe<>(4, WaitPolicy.purePark());
        for (int i = 0; i < 10; i++) {
            pipe.write("m" + i, false);
        }
        assertTrue(pipe.flush());
        assertEquals("flushed=10 wakeups=0 sleeps=0 writerWaits=0 depth=10", counters(pipe.stats()));
        assertEquals(10, pipe.readBatch(m -> { }));
        assertFalse(pipe.checkRead(), "empty: the reader goes to sleep");
        pipe.write("x", false);
        assertFalse(pipe.flush(), "the flush must ask for a signal");
        assertEquals("flushed=11 wakeups=1 sleeps=0 writerWaits=0 depth=1", counters(pipe.stats()));
    }

    @Test
    void mailboxSumsItsWritersAndCountsTheReadersSleeps() throws Throwable {
        YMailbox<String> box = new YMailbox<>();
        YMailbox.Writer<String> a = box.newWriter();
        YMailbox.Writer<String> b = box.newWriter();
        a.send("a1");
        a.send("a2");
        b.send("b1");
        assertEquals("flushed=3 wakeups=2 sleeps=0 writerWaits=0 depth=3", counters(box.stats()),
                "each new pipe's reader starts asleep: its first flush signals");
        List<String> got = new ArrayList<>();
        assertEquals(3, box.poll(got::add));
        assertEquals(0, box.stats().depth());
        TestThreads.Runner reader = TestThreads.start("reader", () -> box.poll(got::add));
        TestThreads.awaitParked(reader.thread);
        b.send("b2");
        reader.join();
        assertEquals(List.of("a1", "a2", "b1", "b2"), got);
        PipeStats s = box.stats();
        assertEquals(4, s.messagesFlushed());
        assertEquals(0, s.depth());
        assertTrue(s.sleeps() >= 1, s::toString);
        box.close();
    }

    /**
     * A mailbox's sleeps are parks: a wait that ends in the signaler's spin counts none. The
     * pollset spins (as good as) forever, so the reader never parks; the second message is sent
     * once the reader has put the pipe to sleep, after which it can only take the signal in the
     * pollset's poll (its spin, or the take before it), the wait that was counted as a sleep.
     */
    @Test
    void aMailboxWaitThatOnlySpunCountsNoSleep() throws Throwable {
        YMailbox<String> box = new YMailbox<>(new YPollset(WaitPolicy.spinThenPark(Integer.MAX_VALUE)));
        YMailbox.Writer<String> w = box.newWriter();
        List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        TestThreads.Runner reader = TestThreads.start("reader", () -> {
            while (got.size() < 2) {
                box.poll(got::add);
            }
        });
        w.send("a");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60); // a failure bound
        // Wait until the reader has handed "a" over and put the pipe to sleep again.
        while (got.isEmpty() || w.pipe.getAcquireC() != PipeShared.ASLEEP) {
            assertTrue(System.nanoTime() < deadline, "the reader never put the pipe to sleep");
            Thread.onSpinWait();
        }
        w.send("b");
        reader.join();
        assertEquals(List.of("a", "b"), got);
        PipeStats s = box.stats();
        assertEquals(0, s.sleeps(), s::toString);
        assertEquals(0, s.sleepNanos(), s::toString);
        box.close();
    }

    /** A wait that parked counts one sleep and its time. */
    @Test
    void aMailboxWaitThatParkedCountsASleep() throws Throwable {
        YMailbox<String> box = new YMailbox<>(new YPollset(), WaitPolicy.purePark());
        YMailbox.Writer<String> w = box.newWriter();
        List<String> got = new ArrayList<>();
        TestThreads.Runner reader = TestThreads.start("reader", () -> box.poll(got::add));
        TestThreads.awaitParked(reader.thread);
        w.send("a");
        reader.join();
        assertEquals(List.of("a"), got);
        PipeStats s = box.stats();
        assertEquals(1, s.sleeps(), s::toString);
        assertTrue(s.sleepNanos() > 0, s::toString);
        box.close();
    }
}
