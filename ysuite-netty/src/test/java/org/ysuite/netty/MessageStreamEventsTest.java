package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/** A named {@link MessageStream}'s Flight Recorder events, recorded on a real connection and read back. */
class MessageStreamEventsTest {

    @Test
    void aNamedStreamsSleepingReaderAndItsWakeupsCarryTheName() throws Throwable {
        Path file = Files.createTempFile("ysuite-stream-events", ".jfr");
        try (MessageStreamTest.Pair pair = new MessageStreamTest.Pair(Transport.NIO, b -> b.name("rpc").readerSpin(0));
                Recording recording = new Recording()) {
            assertEquals("rpc", pair.accepted.name());
            recording.enable("org.ysuite.Park").withThreshold(java.time.Duration.ZERO);
            recording.enable("org.ysuite.Wakeup");
            recording.start();
            AtomicInteger got = new AtomicInteger(-2);
            Thread reader = new Thread(() -> {
                try {
                    got.set(pair.accepted.receive(new byte[16]));
                } catch (Exception e) {
                    got.set(-3);
                }
            }, "stream-reader");
            reader.setDaemon(true);
            reader.start();
            awaitParked(reader);
            pair.client.newWriter().send(new byte[5], 0, 5);
            MessageStreamTest.join(reader);
            assertEquals(5, got.get());
            recording.stop();
            recording.dump(file);
            List<String> events = RecordingFile.readAllEvents(file).stream()
                    .map(MessageStreamEventsTest::describe).collect(Collectors.toList());
            assertTrue(events.contains("org.ysuite.Park YSemaphore owner rpc signal"), events::toString);
            assertTrue(events.contains("org.ysuite.Wakeup OffHeapYPipe flush rpc"), events::toString);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String describe(RecordedEvent e) {
        String type = e.getEventType().getName();
        return type.equals("org.ysuite.Park")
                ? type + " " + e.getString("waiter") + " " + e.getString("name") + " " + e.getString("outcome")
                : type + " " + e.getString("waker") + " " + e.getString("name");
    }

    /** Waits (bounded, without sleeping) until {@code t} is parked. */
    private static void awaitParked(Thread t) {
        long deadline = System.nanoTime() + 60_000_000_000L; // a failure bound only
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(t.isAlive() && System.nanoTime() - deadline < 0, t.getName() + " never parked");
            Thread.yield();
        }
    }
}
