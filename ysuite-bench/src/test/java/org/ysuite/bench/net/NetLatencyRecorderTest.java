package org.ysuite.bench.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The round-trip recorder's mean and nearest-rank percentiles. */
class NetLatencyRecorderTest {

    /** 1 … n in a shuffled order. */
    private static LatencyRecorder oneTo(int n) {
        LatencyRecorder r = new LatencyRecorder(4);
        for (int i = 0; i < n; i++) {
            r.add(1 + (i * 7919L) % n); // 7919 is prime, so this visits 1 … n once each
        }
        return r;
    }

    @Test
    void percentilesAreNearestRank() {
        LatencyRecorder r = oneTo(10_000);
        assertEquals(10_000, r.count());
        assertEquals(5_000.5, r.mean(), 1e-9);
        assertEquals(5_000, r.percentile(0.5));
        assertEquals(9_900, r.percentile(0.99));
        assertEquals(9_990, r.percentile(0.999));
        assertEquals(10_000, r.percentile(1.0));
        LatencyRecorder k = oneTo(1_000);
        assertEquals(999, k.percentile(0.999), "0.999 x 1000 is rank 999, not 1000");
    }

    @Test
    void addingAfterReadingKeepsEverySample() {
        LatencyRecorder r = oneTo(100);
        assertEquals(99, r.percentile(0.99));
        r.add(1_000_000);
        r.add(1);
        assertEquals(1_000_000, r.percentile(1.0));
        assertEquals(102, r.count());
    }

    @Test
    void emptyAndBadArguments() {
        assertTrue(Double.isNaN(new LatencyRecorder(1).percentile(0.5)));
        assertTrue(Double.isNaN(new LatencyRecorder(1).mean()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> oneTo(3).percentile(0));
        assertTrue(e.getMessage().contains("(0, 1]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new LatencyRecorder(0));
    }
}
