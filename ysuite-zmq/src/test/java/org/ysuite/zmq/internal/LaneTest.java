package org.ysuite.zmq.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lane's wake-ups: the reader once per flush that finds it asleep, a waiting writer at half the mark. */
class LaneTest {

    private final AtomicInteger readerWakes = new AtomicInteger();
    private final AtomicInteger writerWakes = new AtomicInteger();

    private Lane lane(int hwm) {
        return new Lane(hwm, readerWakes::incrementAndGet, writerWakes::incrementAndGet);
    }

    @Test
    void aWriterAtTheMarkIsWokenOnceTheLaneDrainedToHalfTheMark() {
        Lane lane = lane(4);
        for (int i = 0; i < 4; i++) {
            assertTrue(lane.tryReserve(), "room for message " + i);
            lane.write(i);
        }
        assertFalse(lane.tryReserve(), "at the mark the writer waits");
        assertEquals(0, lane.read());
        assertEquals(0, writerWakes.get(), "3 queued, over the low-water mark of 2: not yet");
        assertEquals(1, lane.read());
        assertEquals(1, writerWakes.get(), "2 queued: woken once");
        assertEquals(2, lane.read());
        assertEquals(3, lane.read());
        assertEquals(1, writerWakes.get(), "one wake-up per wait");
        assertTrue(lane.tryReserve());
    }

    @Test
    void aWriterAtAMarkOfOneIsWokenWhenTheLaneIsEmpty() {
        Lane lane = lane(1);
        lane.write("a");
        assertFalse(lane.tryReserve());
        assertEquals("a", lane.read());
        assertEquals(1, writerWakes.get());
    }

    @Test
    void appendedMessagesAreSeenAndWakeTheReaderOnlyAtTheFlush() {
        Lane lane = lane(0);
        assertFalse(lane.checkRead(), "empty: the reader is asleep");
        lane.append("a");
        lane.append("b");
        assertEquals(2, lane.queued(), "appended messages count against the mark at once");
        assertNull(lane.read(), "not published before the flush");
        assertEquals(0, readerWakes.get());
        lane.flush();
        assertEquals(1, readerWakes.get(), "one wake-up for the batch");
        assertEquals("a", lane.read());
        assertEquals("b", lane.read());
        assertNull(lane.read());
    }
}
