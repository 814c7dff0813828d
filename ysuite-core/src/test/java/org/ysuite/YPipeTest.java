package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class YPipeTest {

    @Test
    void emptyPipeReadsNothingAndPutsTheReaderToSleep() {
        YPipe<String> pipe = new YPipe<>();
        assertFalse(pipe.checkRead());
        assertNull(pipe.read());
        assertEquals(0, pipe.readBatch(x -> { throw new AssertionError("no item expected"); }));
        pipe.write("a");
        assertFalse(pipe.flush(), "the reader went to sleep, so the flush must ask for a signal");
        assertEquals("a", pipe.read());
    }

    @Test
    void flushFindsAnAwakeReaderAwake() {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("a");
        assertTrue(pipe.flush(), "a new pipe's reader starts awake");
        pipe.write("b");
        assertTrue(pipe.flush(), "the reader has not looked yet, so it is still awake");
        assertEquals("a", pipe.read());
        assertEquals("b", pipe.read());
        assertNull(pipe.read());
        pipe.write("c");
        assertFalse(pipe.flush());
        pipe.write("d");
        assertTrue(pipe.flush(), "only the first flush after the reader slept asks for a signal");
        assertEquals("c", pipe.read());
        assertEquals("d", pipe.read());
    }

    @Test
    void flushWithNothingNewReturnsTrueEvenWhenTheReaderSleeps() {
        YPipe<String> pipe = new YPipe<>();
        assertNull(pipe.read());
        assertTrue(pipe.flush());
        pipe.write("x", true);
        assertTrue(pipe.flush(), "an incomplete item is not flushed, so there is nothing to signal");
        assertNull(pipe.read());
    }

    @Test
    void unflushedItemsAreInvisible() {
        YPipe<Integer> pipe = new YPipe<>();
        pipe.write(1);
        assertFalse(pipe.checkRead());
        assertNull(pipe.read());
        assertFalse(pipe.flush());
        assertEquals(1, pipe.read());
    }

    @Test
    void incompleteItemsTravelWithTheNextCompleteOne() {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("part1", true);
        pipe.write("part2", true);
        pipe.flush();
        assertNull(pipe.read(), "a multipart message is not visible before its last part");
        pipe.write("part3", false);
        assertFalse(pipe.flush());
        assertEquals("part1", pipe.read());
        assertEquals("part2", pipe.read());
        assertEquals("part3", pipe.read());
        assertNull(pipe.read());
    }

    @Test
    void unwriteTakesBackTheOnlyItem() {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("only");
        assertEquals("only", pipe.unwrite());
        assertNull(pipe.unwrite());
        assertTrue(pipe.flush(), "nothing left to flush");
        assertNull(pipe.read());
    }

    @Test
    void unwriteTakesBackCompleteAndIncompleteItemsButNeverFlushedOnes() {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("a");
        pipe.flush();
        pipe.write("b");
        pipe.write("c", true);
        assertEquals("c", pipe.unwrite());
        assertEquals("b", pipe.unwrite());
        assertNull(pipe.unwrite(), "a is flushed and belongs to the reader");
        pipe.write("d");
        pipe.flush();
        assertEquals("a", pipe.read());
        assertEquals("d", pipe.read());
        assertNull(pipe.read());
    }

    @Test
    void unwriteOfACompleteItemAfterAnIncompleteOneKeepsThePartUnflushed() {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("p", true);
        pipe.write("q");
        assertEquals("q", pipe.unwrite());
        pipe.flush();
        assertNull(pipe.read(), "p is incomplete again");
        pipe.write("r");
        pipe.flush();
        assertEquals("p", pipe.read());
        assertEquals("r", pipe.read());
    }

    @Test
    void unwriteAcrossAChunkEdgeAndWriteAgain() {
        YPipe<Integer> pipe = new YPipe<>(2);
        for (int i = 0; i < 5; i++) {
            pipe.write(i);
        }
        for (int i = 4; i >= 1; i--) {
            assertEquals(i, pipe.unwrite());
        }
        for (int i = 1; i < 9; i++) {
            pipe.write(i * 10);
        }
        pipe.flush();
        List<Integer> got = new ArrayList<>();
        pipe.readBatch(got::add);
        assertEquals(List.of(0, 10, 20, 30, 40, 50, 60, 70, 80), got);
    }

    @Test
    void itemsCrossManyChunksInOrderAndChunksAreReused() {
        YPipe<Integer> pipe = new YPipe<>(4);
        int next = 0;
        int expected = 0;
        for (int round = 0; round < 1000; round++) {
            int count = round % 13;
            for (int i = 0; i < count; i++) {
                pipe.write(next++);
            }
            pipe.flush();
            Integer v;
            while ((v = pipe.read()) != null) {
                assertEquals(expected++, v);
            }
        }
        assertEquals(next, expected);
    }

    @Test
    void readBatchHandsOverEverythingFlushedAndReturnsZeroOnlyWhenEmpty() {
        YPipe<Integer> pipe = new YPipe<>(8);
        for (int i = 0; i < 100; i++) {
            pipe.write(i);
        }
        pipe.flush();
        List<Integer> got = new ArrayList<>();
        assertEquals(100, pipe.readBatch(got::add));
        assertEquals(100, got.size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i, got.get(i));
        }
        assertEquals(0, pipe.readBatch(got::add));
        pipe.write(100);
        assertFalse(pipe.flush(), "readBatch returning 0 put the reader to sleep");
    }

    @Test
    void readBatchAwakeNeverPutsTheReaderToSleep() {
        YPipe<Integer> pipe = new YPipe<>(4);
        List<Integer> got = new ArrayList<>();
        assertEquals(0, pipe.readBatchAwake(got::add), "nothing flushed yet");
        for (int i = 0; i < 10; i++) {
            pipe.write(i);
        }
        assertTrue(pipe.flush(), "an empty readBatchAwake left the reader awake: no signal");
        assertEquals(10, pipe.readBatchAwake(got::add));
        assertEquals(0, pipe.readBatchAwake(got::add));
        pipe.write(10);
        assertTrue(pipe.flush(), "still awake after finding the pipe empty");
        assertEquals(1, pipe.readBatchAwake(got::add));
        assertEquals(0, pipe.readBatch(got::add), "the sleeping look");
        pipe.write(11);
        assertFalse(pipe.flush(), "readBatch returning 0 put the reader to sleep");
        assertEquals(1, pipe.readBatchAwake(got::add), "the signalled item, taken without sleeping");
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), got);
    }

    @Test
    void readBatchAfterPartialReadHandsOverThePrefetchedRest() {
        YPipe<Integer> pipe = new YPipe<>();
        for (int i = 0; i < 5; i++) {
            pipe.write(i);
        }
        pipe.flush();
        assertEquals(0, pipe.read());
        pipe.write(5);
        pipe.flush();
        List<Integer> got = new ArrayList<>();
        assertEquals(4, pipe.readBatch(got::add), "the prefetched items first");
        assertEquals(1, pipe.readBatch(got::add), "then what was flushed since");
        assertEquals(List.of(1, 2, 3, 4, 5), got);
    }

    @Test
    void probeLooksWithoutReading() {
        YPipe<String> pipe = new YPipe<>();
        assertFalse(pipe.probe(s -> true), "empty pipe");
        pipe.write("hello");
        pipe.flush();
        assertTrue(pipe.probe(s -> s.startsWith("he")));
        assertFalse(pipe.probe(s -> s.isEmpty()));
        assertEquals("hello", pipe.read());
    }

    @Test
    void readerThatStartsAsleepGetsTheFirstFlushSignalled() {
        YPipe<String> pipe = new YPipe<>(16, true, WaitPolicy.defaultPolicy());
        assertNull(pipe.read());
        pipe.write("a");
        assertFalse(pipe.flush());
        assertEquals("a", pipe.read());
    }

    @Test
    void badArgumentsAreRejectedWithTheirNames() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> new YPipe<>(0));
        assertTrue(zero.getMessage().contains("chunkSize") && zero.getMessage().contains("1048576"),
                zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new YPipe<>(-1));
        assertThrows(IllegalArgumentException.class, () -> new YPipe<>(YPipe.MAX_CHUNK_SIZE + 1));
        YPipe<String> pipe = new YPipe<>();
        NullPointerException npe = assertThrows(NullPointerException.class, () -> pipe.write(null));
        assertEquals("value", npe.getMessage());
        assertThrows(NullPointerException.class, () -> pipe.write(null, true));
        assertThrows(NullPointerException.class, () -> pipe.readBatch(null));
        assertThrows(NullPointerException.class, () -> pipe.readBatchAwake(null));
        assertThrows(NullPointerException.class, () -> pipe.probe(null));
    }

    @Test
    void handlerExceptionConsumesOnlyTheItemItWasGiven() {
        YPipe<Integer> pipe = new YPipe<>();
        for (int i = 0; i < 3; i++) {
            pipe.write(i);
        }
        pipe.flush();
        assertThrows(IllegalStateException.class, () -> pipe.readBatch(i -> {
            if (i == 1) {
                throw new IllegalStateException("boom");
            }
        }));
        assertEquals(2, pipe.read());
        assertNull(pipe.read());
    }

    @Test
    void handlerExceptionOnAChunksLastItemLeavesTheRestReadable() {
        YPipe<Integer> pipe = new YPipe<>(4);
        for (int i = 0; i < 10; i++) {
            pipe.write(i);
        }
        pipe.flush();
        for (int edge : new int[] {3, 7}) {
            assertThrows(IllegalStateException.class, () -> pipe.readBatch(i -> {
                if (i == edge) {
                    throw new IllegalStateException("boom at " + edge);
                }
            }));
        }
        assertTrue(pipe.probe(i -> i == 8));
        assertEquals(8, pipe.read());
        List<Integer> rest = new ArrayList<>();
        assertEquals(1, pipe.readBatch(rest::add));
        assertEquals(List.of(9), rest);
        pipe.write(10);
        pipe.flush();
        assertEquals(10, pipe.read());
    }
}
