package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/** {@link OffHeapYPipe}'s Flight Recorder events, recorded for real and read back. */
class OffHeapYPipeEventsTest {

    @Test
    void aSleepingReaderWokenByAFlushRecordsItsParkAndTheWakeup() throws Throwable {
        try (FlightEvents rec = new FlightEvents(true);
                OffHeapYPipe pipe = new OffHeapYPipe(1024, WaitPolicy.purePark()).named("orders")) {
            TestThreads.Runner reader = TestThreads.start("reader", () -> {
                assertTrue(pipe.awaitMessage());
                assertEquals(1, pipe.read(new byte[8]));
            });
            TestThreads.awaitParked(reader.thread);
            assertTrue(pipe.write(new byte[1]));
            assertFalse(pipe.flush(), "the reader was asleep");
            reader.join();
            List<RecordedEvent> events = rec.stop();
            assertEquals(List.of("waiter=OffHeapYPipe reader name=orders outcome=signal"),
                    FlightEvents.of(events, "org.ysuite.Park", "waiter", "name", "outcome"));
            assertEquals(List.of("waker=OffHeapYPipe flush name=orders"),
                    FlightEvents.of(events, "org.ysuite.Wakeup", "waker", "name"));
        }
    }

    @Test
    void aTimedOutWaitRecordsItsOutcome() throws Exception {
        try (FlightEvents rec = new FlightEvents(true);
                OffHeapYPipe pipe = new OffHeapYPipe(1024, WaitPolicy.purePark())) {
            assertFalse(pipe.awaitMessage(1, TimeUnit.MILLISECONDS));
            assertEquals(List.of("waiter=OffHeapYPipe reader name=null outcome=timeout"),
                    FlightEvents.of(rec.stop(), "org.ysuite.Park", "waiter", "name", "outcome"));
        }
    }

    @Test
    void aWriterWaitingForSpaceRecordsTheBlockAndItsPark() throws Throwable {
        try (FlightEvents rec = new FlightEvents(true);
                OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark()).named("full")) {
            byte[] msg = new byte[pipe.maxMessageLength()];
            assertTrue(pipe.write(msg));
            assertTrue(pipe.write(msg));
            assertFalse(pipe.write(msg), "the ring is full");
            pipe.flush();
            TestThreads.Runner writer = TestThreads.start("writer", () -> pipe.awaitSpace(msg.length));
            TestThreads.awaitParked(writer.thread);
            assertEquals(msg.length, pipe.read(new byte[msg.length]));
            writer.join();
            List<RecordedEvent> events = rec.stop();
            assertEquals(List.of("writer=OffHeapYPipe writer name=full length=" + msg.length + " outcome=signal"),
                    FlightEvents.of(events, "org.ysuite.WriterBlocked", "writer", "name", "length", "outcome"));
            assertEquals(List.of("waiter=OffHeapYPipe writer name=full outcome=signal"),
                    FlightEvents.of(events, "org.ysuite.Park", "waiter", "name", "outcome"));
        }
    }

    @Test
    void aCloseEndsTheParkWithOutcomeClose() throws Throwable {
        try (FlightEvents rec = new FlightEvents(true)) {
            OffHeapYPipe pipe = new OffHeapYPipe(1024, WaitPolicy.purePark());
            TestThreads.Runner reader = TestThreads.start("reader", () -> {
                try {
                    pipe.awaitMessage();
                } catch (IllegalStateException expected) {
                    // closed while waiting
                }
            });
            TestThreads.awaitParked(reader.thread);
            pipe.close();
            reader.join();
            assertEquals(List.of("outcome=close"), FlightEvents.of(rec.stop(), "org.ysuite.Park", "outcome"));
        }
    }

    @Test
    void theEventsAreOffByDefault() throws Throwable {
        try (FlightEvents rec = new FlightEvents(false);
                OffHeapYPipe pipe = new OffHeapYPipe(1024, WaitPolicy.purePark())) {
            assertFalse(pipe.awaitMessage(1, TimeUnit.MILLISECONDS));
            assertTrue(pipe.write(new byte[1]));
            assertFalse(pipe.flush());
            assertEquals(List.of(), rec.stop());
        }
    }
}
