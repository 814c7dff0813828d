package org.ysuite.bench.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatenciesTest {

    @Test
    void bucketsAreOrderedAndAtMostThreePercentWide() {
        int last = -1;
        for (long v = 0; v < 1L << 40; v = v < 1000 ? v + 1 : v + v / 997) {
            int i = Latencies.index(v);
            assertTrue(i >= last, "bucket of " + v);
            last = i;
            long mid = Latencies.value(i);
            assertTrue(Math.abs(mid - v) <= Math.max(1, v / 32), v + " in a bucket whose middle is " + mid);
        }
    }

    @Test
    void meanIsExactAndPercentileIsTheBucketOfTheRank() {
        Latencies l = new Latencies();
        assertEquals(-1, l.mean());
        assertEquals(-1, l.percentile(0.99));
        for (int i = 1; i <= 100; i++) {
            l.record(i == 100 ? 1_000_000 : 10);
        }
        l.record(-5); // counts as 0
        assertEquals(101, l.count());
        assertEquals((99 * 10 + 1_000_000) / 101, l.mean());
        assertEquals(10, l.percentile(0.98));
        assertTrue(Math.abs(l.percentile(1.0) - 1_000_000) <= 1_000_000 / 32);
        l.clear();
        assertEquals(0, l.count());
    }
}
