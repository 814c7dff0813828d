package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link OffHeapYPipe#awaitMessage()}: the reader's wait, woken by the writer's flush alone.
 * Every waiting thread is seen parked ({@link TestThreads#awaitParked}) before the other side
 * acts, so each test exercises the sleeping path without depending on timing.
 */
class OffHeapYPipeAwaitTest {

    private static final WaitPolicy PARK = WaitPolicy.purePark();

    @Test
    void aMessageAlreadyFlushedIsReadyAtOnce() throws InterruptedException {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            pipe.write(new byte[] {7});
            pipe.flush();
            assertTrue(pipe.awaitMessage());
            assertEquals(1, pipe.readBatch((b, o, l) -> assertEquals(7, b.get(o))));
        }
    }

    /** Fails (the reader never returns) if flush() does not wake a reader asleep in awaitMessage. */
    @Test
    void theFlushThatFindsTheReaderAsleepWakesIt() throws Throwable {
        for (WaitPolicy policy : new WaitPolicy[] {PARK, WaitPolicy.defaultPolicy()}) {
            try (OffHeapYPipe pipe = new OffHeapYPipe(256, policy, policy)) {
                long[] got = new long[1];
                TestThreads.Runner reader = TestThreads.start("reader", () -> {
                    assertTrue(pipe.awaitMessage());
                    assertEquals(1, pipe.readBatch((b, o, l) -> got[0] = b.getLong(o)));
                });
                TestThreads.awaitParked(reader.thread); // asleep in the protocol, parked
                ByteBuffer msg = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, 42);
                assertTrue(pipe.write(msg, false));
                assertFalse(pipe.flush(), "the reader was asleep: this flush must wake it");
                reader.join();
                assertEquals(42, got[0]);
            }
        }
    }

    @Test
    void aReaderThatWentToSleepInReadBatchIsWokenInAwaitMessage() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            int rounds = 1000;
            TestThreads.Runner reader = TestThreads.start("reader", () -> {
                int[] next = {0};
                while (next[0] < rounds) {
                    if (pipe.readBatch((b, o, l) -> assertEquals(next[0]++, b.getInt(o))) == 0) {
                        assertTrue(pipe.awaitMessage());
                    }
                }
            });
            ByteBuffer msg = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder());
            for (int i = 0; i < rounds; i++) {
                msg.clear();
                msg.putInt(0, i);
                while (!pipe.write(msg, false)) {
                    pipe.flush();
                    // bounded only so that a broken wake-up fails instead of hanging the build
                    assertTrue(pipe.awaitSpace(4, 20, TimeUnit.SECONDS), "the reader stopped reading");
                }
                pipe.flush(); // its answer is not needed: a reader in awaitMessage is woken by it
            }
            reader.join();
        }
    }

    /** Fails if readBatch(handler, max) ignores its limit or loses what it left in the pipe. */
    @Test
    void aLimitedBatchHandsAtMostItsLimitAndLeavesTheRestInOrder() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            for (byte i = 0; i < 5; i++) {
                assertTrue(pipe.write(new byte[] {i}));
            }
            pipe.flush();
            int[] next = {0};
            MessageHandler inOrder = (b, o, l) -> assertEquals(next[0]++, b.get(o));
            assertEquals(2, pipe.readBatch(inOrder, 2));
            assertEquals(2, next[0]);
            assertEquals(1, pipe.readBatch(inOrder, 1));
            assertEquals(2, pipe.readBatch(inOrder, 10));
            assertEquals(5, next[0]);
            assertEquals(0, pipe.readBatch(inOrder, 10));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pipe.readBatch(inOrder, 0));
            assertEquals("maxMessages must be >= 1: 0", e.getMessage());
        }
    }

    /** Fails (the writer never returns) if a limited batch's exit does not wake a writer asleep for space. */
    @Test
    void aLimitedBatchWakesAWriterAsleepForSpace() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK, PARK)) {
            byte[] message = new byte[16];
            while (pipe.write(message)) {
                // until the ring is full
            }
            pipe.flush();
            TestThreads.Runner writer = TestThreads.start("writer", () -> {
                pipe.awaitSpace(message.length);
                assertTrue(pipe.write(message));
            });
            TestThreads.awaitParked(writer.thread); // asleep for space, WAITING raised
            assertEquals(1, pipe.readBatch((b, o, l) -> assertEquals(16, l), 1));
            writer.join();
        }
    }

    @Test
    void aTimedWaitRunsOutWithoutAMessage() throws InterruptedException {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            long start = System.nanoTime();
            assertFalse(pipe.awaitMessage(20, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20),
                    "a timed wait never returns early without a message");
            assertFalse(pipe.awaitMessage(0, TimeUnit.SECONDS));
            pipe.write(new byte[1]);
            assertFalse(pipe.flush(), "the reader is asleep after the timed-out waits");
            assertTrue(pipe.awaitMessage(0, TimeUnit.SECONDS));
        }
    }

    @Test
    void aTimedWaitIsWokenByAFlush() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            TestThreads.Runner reader = TestThreads.start("reader",
                    () -> assertTrue(pipe.awaitMessage(1, TimeUnit.HOURS)));
            TestThreads.awaitParked(reader.thread);
            pipe.write(new byte[1]);
            pipe.flush();
            reader.join();
        }
    }

    @Test
    void closeWakesAWaitingReaderWhichThrows() throws Throwable {
        OffHeapYPipe pipe = new OffHeapYPipe(256, PARK);
        TestThreads.Runner reader = TestThreads.start("reader", () -> {
            IllegalStateException e = assertThrows(IllegalStateException.class, pipe::awaitMessage);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        });
        TestThreads.awaitParked(reader.thread);
        pipe.close();
        reader.join();
        assertThrows(IllegalStateException.class, pipe::awaitMessage);
    }

    @Test
    void interruptEndsTheWaitAndClearsTheStatus() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            TestThreads.Runner reader = TestThreads.start("reader", () -> {
                assertThrows(InterruptedException.class, pipe::awaitMessage);
                assertFalse(Thread.currentThread().isInterrupted(), "the interrupt status is cleared");
            });
            TestThreads.awaitParked(reader.thread);
            reader.thread.interrupt();
            reader.join();
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, pipe::awaitMessage);
            // the interrupted waits took nothing: a flush still reaches the reader
            pipe.write(new byte[1]);
            pipe.flush();
            assertTrue(pipe.awaitMessage());
        }
    }

    @Test
    void aSecondReaderWhileOneWaitsIsRefusedNamingTheContract() throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            TestThreads.Runner reader = TestThreads.start("reader", () -> assertTrue(pipe.awaitMessage()));
            TestThreads.awaitParked(reader.thread);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pipe.read(new byte[1]));
            assertTrue(e.getMessage().contains("second reader thread"), e.getMessage());
            e = assertThrows(IllegalStateException.class, pipe::awaitMessage);
            assertTrue(e.getMessage().contains("second reader thread"), e.getMessage());
            pipe.write(new byte[1]);
            pipe.flush();
            reader.join();
        }
    }

    @Test
    void awaitMessageFromInsideAHandlerIsRejected() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            pipe.write(new byte[1]);
            pipe.flush();
            assertThrows(IllegalStateException.class, () -> pipe.readBatch((b, o, l) -> {
                try {
                    pipe.awaitMessage();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }));
        }
    }

    @Test
    void badTimeoutArgumentsAreNamed() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(256, PARK)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pipe.awaitMessage(-1, TimeUnit.SECONDS));
            assertTrue(e.getMessage().contains("timeout") && e.getMessage().contains("-1"), e.getMessage());
            assertThrows(NullPointerException.class, () -> pipe.awaitMessage(1, null));
        }
    }

    @Test
    void onePolicyGivesTheWriterItsOwnState() {
        WaitPolicy adaptive = WaitPolicy.adaptive();
        try (OffHeapYPipe pipe = new OffHeapYPipe(OffHeapYPipe.MIN_CAPACITY_BYTES, adaptive)) {
            assertSame(adaptive, pipe.readerPolicy);
            assertNotSame(adaptive, pipe.writerPolicy, "an adaptive policy's state is per side");
            assertEquals(adaptive.getClass(), pipe.writerPolicy.getClass());
        }
        WaitPolicy fixed = WaitPolicy.spinThenPark(7); // keeps no state: one instance serves both
        try (OffHeapYPipe pipe = new OffHeapYPipe(OffHeapYPipe.MIN_CAPACITY_BYTES, fixed)) {
            assertSame(fixed, pipe.readerPolicy);
            assertSame(fixed, pipe.writerPolicy);
        }
        assertThrows(NullPointerException.class,
                () -> new OffHeapYPipe(OffHeapYPipe.MIN_CAPACITY_BYTES, null));
    }
}
