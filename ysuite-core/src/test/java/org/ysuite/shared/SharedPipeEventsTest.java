package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.ysuite.FlightEvents;
import org.ysuite.TestThreads;
import org.ysuite.WaitPolicy;
import org.ysuite.internal.SharedPipeDescriptor;

/** The shared pipe's Flight Recorder events, recorded for real and read back. */
class SharedPipeEventsTest extends SharedPipeFileFixture {

    @Test
    void aSleepingReaderWokenByAFlushRecordsItsParkAndTheWakeup() throws Throwable {
        try (SharedPipeWriter out = slowPeerCheck().name("sp").capacity(4096).createWriter();
                SharedPipeReader in = slowPeerCheck().name("sp").readerPolicy(WaitPolicy.purePark()).openReader();
                FlightEvents rec = new FlightEvents(true)) {
            assertEquals("sp", in.name());
            TestThreads.Runner reader = TestThreads.start("reader", () -> {
                assertTrue(in.awaitMessage());
                assertEquals(1, in.read(new byte[8]));
            });
            awaitSleepBit(SharedPipeDescriptor.READER_SLEEP_AT, reader.thread);
            assertTrue(out.write(new byte[1]));
            assertFalse(out.flush(), "the reader was asleep");
            reader.join();
            List<RecordedEvent> events = rec.stop();
            assertEquals(List.of("waiter=SharedPipeReader name=sp outcome=signal"),
                    FlightEvents.of(events, "org.ysuite.Park", "waiter", "name", "outcome"));
            assertEquals(List.of("waker=SharedPipeWriter flush name=sp"),
                    FlightEvents.of(events, "org.ysuite.Wakeup", "waker", "name"));
        }
    }

    @Test
    void aWriterWhoseReaderClosesRecordsTheBlockThePeerGoneAndItsFile() throws Throwable {
        try (SharedPipeWriter out = slowPeerCheck().name("full").capacity(4096)
                        .writerPolicy(WaitPolicy.purePark()).createWriter();
                FlightEvents rec = new FlightEvents(true)) {
            SharedPipeReader in = slowPeerCheck().openReader();
            byte[] msg = new byte[out.maxMessageLength()];
            assertTrue(out.write(msg));
            assertTrue(out.write(msg));
            assertFalse(out.write(msg), "the ring is full");
            out.flush();
            TestThreads.Runner writer = TestThreads.start("writer",
                    () -> assertThrows(PeerGoneException.class, () -> out.awaitSpace(msg.length)));
            awaitSleepBit(SharedPipeDescriptor.WRITER_SLEEP_AT, writer.thread);
            in.close();
            writer.join();
            List<RecordedEvent> events = rec.stop();
            assertEquals(List.of("side=SharedPipeWriter name=full file=" + file + " reason=the reader closed its side"),
                    FlightEvents.of(events, "org.ysuite.PeerGone", "side", "name", "file", "reason"));
            assertEquals(List.of("writer=SharedPipeWriter name=full outcome=close"),
                    FlightEvents.of(events, "org.ysuite.WriterBlocked", "writer", "name", "outcome"));
            assertEquals(List.of("waiter=SharedPipeWriter name=full outcome=close"),
                    FlightEvents.of(events, "org.ysuite.Park", "waiter", "name", "outcome"));
        }
    }
}
