package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/** The signalers' and the mailbox's Flight Recorder events, recorded for real and read back. */
class SignalerEventsTest {

    @Test
    void aSemaphoreOwnerWokenByASignalRecordsItsParkAndTheWakeup() throws Throwable {
        YSemaphore s = new YSemaphore().named("sem");
        try (FlightEvents rec = new FlightEvents(true)) {
            TestThreads.Runner owner = TestThreads.start("owner", s::await);
            TestThreads.awaitParked(owner.thread);
            s.signal(0);
            owner.join();
            List<RecordedEvent> events = rec.stop();
            assertEquals(List.of("waiter=YSemaphore owner name=sem outcome=signal"),
                    FlightEvents.of(events, "org.ysuite.Park", "waiter", "name", "outcome"));
            assertEquals(List.of("waker=YSemaphore signal name=sem"),
                    FlightEvents.of(events, "org.ysuite.Wakeup", "waker", "name"));
        }
    }

    @Test
    void aPollsetOwnerThatTimesOutRecordsTheTimeout() throws Exception {
        YPollset p = new YPollset().named("set");
        try (FlightEvents rec = new FlightEvents(true)) {
            assertEquals(0, p.poll(1, TimeUnit.MILLISECONDS));
            assertEquals(List.of("waiter=YPollset owner name=set outcome=timeout"),
                    FlightEvents.of(rec.stop(), "org.ysuite.Park", "waiter", "name", "outcome"));
        }
    }

    @Test
    void aSocketPairOwnerWokenThroughItsDescriptorRecordsTheWakeup() throws Throwable {
        try (YSocketPair s = new YSocketPair().named("fd"); FlightEvents rec = new FlightEvents(true)) {
            TestThreads.Runner owner = TestThreads.start("owner", () -> assertEquals(1, s.poll(id -> { })));
            TestThreads.awaitParked(owner.thread);
            s.signal(0);
            owner.join();
            List<RecordedEvent> events = rec.stop();
            assertEquals(List.of("waiter=YSocketPair owner name=fd outcome=signal"),
                    FlightEvents.of(events, "org.ysuite.Park", "waiter", "name", "outcome"));
            assertEquals(List.of("waker=YSocketPair signal name=fd"),
                    FlightEvents.of(events, "org.ysuite.Wakeup", "waker", "name"));
        }
    }

    @Test
    void aMailboxNamesItsReadersSleepAndItsWritersWakeups() throws Throwable {
        YMailbox<String> box = new YMailbox<String>().named("inbox");
        YMailbox.Writer<String> w = box.newWriter();
        List<String> got = new ArrayList<>();
        try (FlightEvents rec = new FlightEvents(true)) {
            TestThreads.Runner reader = TestThreads.start("reader", () -> {
                while (got.isEmpty()) {
                    box.poll(got::add);
                }
            });
            TestThreads.awaitParked(reader.thread);
            w.send("x");
            reader.join();
            List<RecordedEvent> events = rec.stop();
            assertEquals(List.of("x"), got);
            assertTrue(FlightEvents.of(events, "org.ysuite.Park", "waiter", "name", "outcome")
                    .contains("waiter=YMailbox reader name=inbox outcome=signal"), events::toString);
            assertTrue(FlightEvents.of(events, "org.ysuite.Wakeup", "waker", "name")
                    .contains("waker=YPipe flush name=inbox"), events::toString);
        } finally {
            box.close();
        }
    }

    @Test
    void namesAreCheckedAndKept() {
        assertEquals("n", new YPipe<String>().named("n").name());
        assertEquals(null, new YPollset().name());
        NullPointerException e = org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class,
                () -> new YSemaphore().named(null));
        assertEquals("name", e.getMessage());
        assertFalse(new YMailbox<String>().named("m").newWriter().pipe.name() == null);
    }
}
