package org.ysuite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadAndChartsTest {

    /** A sample with the machine's busy, steal and total jiffies and this JVM's ticks. */
    private static Load.Sample sample(long busy, long steal, long total, long self) {
        return new Load.Sample("1.00 / 1.00 / 1.00", 0, busy, steal, total, self, Map.of(), Map.of());
    }

    @Test
    void otherProcessesCpuIsTheMachinesBusyTimeLessTheReportsOwn() {
        // 2 cores, 1000 jiffies in all: 600 busy, 500 of them the report's: others 0.2 cores
        Load load = new Load(2, sample(0, 0, 0, 0), sample(600, 0, 1000, 500));
        assertEquals(0.2, load.otherCores(), 1e-9);
        assertEquals(0.2, load.threshold(), 1e-9);
        assertNull(load.warning(), "at the threshold: no warning");
        Load busy = new Load(2, sample(0, 0, 0, 0), sample(700, 0, 1000, 500));
        assertEquals(0.4, busy.otherCores(), 1e-9);
        String w = busy.warning();
        assertTrue(w.startsWith("WARNING: the machine was busy: other processes used 0.40 of its 2 cores"), w);
        assertFalse(w.contains("\n"), "one line: " + w);
        assertTrue(busy.markdown().contains("**" + w + "**"), busy.markdown());
    }

    @Test
    void stealCountsAndAMachineWithSpareCoresWarnsLater() {
        Load stolen = new Load(2, sample(0, 0, 0, 0), sample(500, 150, 1000, 500));
        assertEquals(0.3, stolen.stealCores(), 1e-9);
        assertTrue(stolen.warning().contains("and the hypervisor (steal)"), stolen.warning());
        // 16 cores: the benchmark's two threads leave 14 free
        Load big = new Load(16, sample(0, 0, 0, 0), sample(500, 0, 1000, 100));
        assertEquals(6.4, big.otherCores(), 1e-9);
        assertEquals(14.2, big.threshold(), 1e-9);
        assertNull(big.warning());
    }

    @Test
    void withoutProcTheLoadIsUnknownAndNotJudged() {
        Load none = new Load(2, sample(-1, -1, -1, -1), sample(-1, -1, -1, -1));
        assertTrue(Double.isNaN(none.otherCores()));
        assertNull(none.warning());
        assertTrue(none.summary().contains("n/a"), none.summary());
    }

    private static Result row(String benchmark, String params) {
        return Result.fromJmhJson("[{\"benchmark\":\"org.ysuite.bench." + benchmark + "\",\"mode\":\"avgt\","
                + "\"threads\":1,\"forks\":1,\"params\":{" + params + "},\"primaryMetric\":{\"score\":10,"
                + "\"scoreError\":\"NaN\",\"scoreUnit\":\"ns/op\"}}]").get(0);
    }

    @Test
    void eachContenderHasOneColourOnEveryChart() {
        Result ysWorst = row("WorstCase.ypipe", "\"signaler\":\"pollset\",\"spin\":\"0\"");
        Result ysThroughput = row("Throughput.peer", "\"peer\":\"ymailbox\"");
        Result ysSparse = row("SparseTraffic.peer", "\"peer\":\"ypipeFixedSpin\",\"rate\":\"10000\"");
        assertEquals(Charts.YSUITE, Charts.colour(ysWorst));
        assertEquals(Charts.YSUITE, Charts.colour(ysThroughput));
        assertEquals(Charts.YSUITE, Charts.colour(ysSparse));
        List<String> peers = List.of("jctoolsMpscBlocking", "linkedTransferQueue", "disruptorBlocking");
        for (String peer : peers) {
            String p = "\"peer\":\"" + peer + "\"";
            assertEquals(Charts.colour(row("WorstCase.peer", p)), Charts.colour(row("Throughput.peer", p)), peer);
            assertEquals(Charts.colour(row("Throughput.peer", p)),
                    Charts.colour(row("SparseTraffic.peer", p + ",\"rate\":\"10000\"")), peer);
            assertNotEquals(Charts.YSUITE, Charts.colour(row("Throughput.peer", p)), peer);
        }
        assertNotEquals(Charts.colour(row("Throughput.peer", "\"peer\":\"jctoolsMpscBlocking\"")),
                Charts.colour(row("Throughput.peer", "\"peer\":\"unixSocketChannel\"")));
        assertNotEquals(Charts.colour(row("Throughput.peer", "\"peer\":\"synchronousQueue\"")),
                Charts.colour(row("Throughput.peer", "\"peer\":\"unixSocketChannel\"")));
    }

    @Test
    void logScaleFromTwoDecades() {
        assertTrue(Charts.spansDecades(10, 48_000));
        assertFalse(Charts.spansDecades(10, 999));
        assertFalse(Charts.spansDecades(0, 1000));
    }
}
