package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The reader's batching delay: its rule, and how a pipe's reader keeps it. */
class BatchDelayTest {

    @Test
    void growsWhileTheWriterIsAheadOfTheLook() {
        assertEquals(1, BatchDelay.afterLook(0, 1), "one item at an eager look");
        assertEquals(3, BatchDelay.afterLook(1, 2), "several items after a delay");
        assertEquals(BatchDelay.MAX_PAUSES, BatchDelay.afterLook(BatchDelay.MAX_PAUSES, 10));
    }

    @Test
    void shrinksWhenWaitingGainsNothing() {
        assertEquals(4, BatchDelay.afterLook(8, 1), "a single reply after a delay");
        assertEquals(4, BatchDelay.afterLook(8, BatchDelay.TARGET), "the reader is behind");
        assertEquals(0, BatchDelay.afterLook(0, BatchDelay.TARGET));
        assertEquals(4, BatchDelay.afterSpin(8), "items came only during the spin");
    }

    @Test
    void aPipeReaderGrowsItInAStreamAndDropsItWhenItSleeps() {
        YPipe<Integer> pipe = new YPipe<>();
        for (int i = 0; i < 3; i++) {
            pipe.write(i);
        }
        pipe.flush();
        assertEquals(3, pipe.readBatch(x -> { }));
        assertEquals(1, pipe.batchPauses, "3 items at the first, undelayed look");
        pipe.write(3);
        pipe.write(4);
        pipe.flush();
        assertEquals(2, pipe.readBatch(x -> { }));
        assertEquals(3, pipe.batchPauses, "2 items after a delay of 1");
        pipe.write(5);
        pipe.flush();
        assertEquals(1, pipe.readBatch(x -> { }));
        assertEquals(1, pipe.batchPauses, "a single item after a delay halves it");
        assertEquals(0, pipe.readBatch(x -> { }), "empty: the reader spins, then sleeps");
        assertEquals(0, pipe.batchPauses, "a reader that went to sleep pays no delay");
    }

    @Test
    void aReaderThatMayNotSpinNeverPauses() {
        YPipe<Integer> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());
        for (int round = 0; round < 3; round++) {
            pipe.write(1);
            pipe.write(2);
            pipe.flush();
            assertEquals(2, pipe.readBatch(x -> { }));
            assertEquals(0, pipe.batchPauses, "purePark: two items at the first look, still no delay");
        }
    }

    @Test
    void anOffHeapReaderCountsRecordsNotBytes() {
        try (OffHeapYPipe pipe = new OffHeapYPipe(4096, WaitPolicy.defaultPolicy(), WaitPolicy.purePark())) {
            byte[] big = new byte[1000];
            pipe.write(big);
            pipe.flush();
            assertEquals(1, pipe.readBatch((ByteBuffer b, int off, int len) -> { }));
            assertEquals(1, pipe.batchPauses, "one record, no delay: grows once");
            pipe.write(big);
            pipe.flush();
            assertEquals(1, pipe.readBatch((ByteBuffer b, int off, int len) -> { }));
            assertEquals(0, pipe.batchPauses, "one 1000-byte record after a delay is one item");
        }
    }
}
