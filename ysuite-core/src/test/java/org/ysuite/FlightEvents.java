package org.ysuite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** A real Flight Recorder recording of ysuite's events, for the tests that read them back. */
public final class FlightEvents implements AutoCloseable {

    /** Every ysuite event type. */
    public static final String[] TYPES = {"org.ysuite.Park", "org.ysuite.Wakeup", "org.ysuite.WriterBlocked",
        "org.ysuite.PeerGone"};

    private final Recording recording = new Recording();
    private List<RecordedEvent> events;

    /** Starts a recording with ysuite's events enabled (or, with {@code enable} false, as configured by default). */
    public FlightEvents(boolean enable) {
        if (enable) {
            for (String t : TYPES) {
                recording.enable(t).withThreshold(java.time.Duration.ZERO);
            }
        }
        recording.start();
    }

    /** Stops the recording and returns ysuite's events in it, in commit order. */
    public List<RecordedEvent> stop() throws IOException {
        recording.stop();
        Path file = Files.createTempFile("ysuite-events", ".jfr");
        try {
            recording.dump(file);
            events = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().startsWith("org.ysuite."))
                    .collect(Collectors.toList());
        } finally {
            Files.deleteIfExists(file);
        }
        return events;
    }

    /** The events of one type, as {@code field=value} strings of the given fields, for assertions. */
    public static List<String> of(List<RecordedEvent> events, String type, String... fields) {
        return events.stream().filter(e -> e.getEventType().getName().equals(type))
                .map(e -> {
                    StringBuilder b = new StringBuilder();
                    for (String f : fields) {
                        b.append(b.length() == 0 ? "" : " ").append(f).append('=').append((Object) e.getValue(f));
                    }
                    return b.toString();
                })
                .collect(Collectors.toList());
    }

    @Override
    public void close() {
        recording.close();
    }
}
