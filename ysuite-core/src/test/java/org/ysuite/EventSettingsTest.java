package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.Configuration;
import org.junit.jupiter.api.Test;

/** The settings file users are told to record with (docs/ysuite.jfc) is valid and enables every event. */
class EventSettingsTest {

    @Test
    void theDocumentedSettingsFileEnablesEveryEvent() throws Exception {
        Configuration c = Configuration.create(Path.of("..", "docs", "ysuite.jfc"));
        Map<String, String> enabled = new TreeMap<>();
        c.getSettings().forEach((k, v) -> {
            if (k.endsWith("#enabled")) {
                enabled.put(k, v);
            }
        });
        Map<String, String> expected = new TreeMap<>();
        for (String t : FlightEvents.TYPES) {
            expected.put(t + "#enabled", "true");
        }
        assertEquals(expected, enabled);
    }
}
