package org.ysuite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.ysuite.bench.support.Transport;

class ReportTest {

    private static String result(String benchmark, String params, double score, double alloc) {
        return "{\"benchmark\":\"org.ysuite.bench." + benchmark + "\",\"mode\":\"avgt\",\"threads\":1,"
                + "\"forks\":1,\"params\":{" + params + "},"
                + "\"primaryMetric\":{\"score\":" + score + ",\"scoreError\":\"NaN\",\"scoreUnit\":\"ns/op\"},"
                + "\"secondaryMetrics\":{\"gc.alloc.rate.norm\":{\"score\":" + alloc
                + ",\"scoreUnit\":\"B/op\"}}}";
    }

    @Test
    void readsJmhJsonWithLabelsKindsAndAllocation() {
        List<Result> rs = Result.fromJson("[" + result("Throughput.ypipe", "\"signaler\":\"pollset\"", 40, 0.001)
                + "," + result("Throughput.arrayBlockingQueue", "", 80, 0.4) + "]");
        assertEquals(2, rs.size());
        Result y = rs.get(0);
        assertEquals("Throughput", y.scenario);
        assertEquals("YPipe + YPollset", y.label);
        assertEquals(Transport.Kind.YSUITE, y.kind);
        assertEquals(25_000_000, y.throughput(), 1e-6);
        assertEquals(0.001, y.allocPerMsg, 1e-12);
        assertTrue(Double.isNaN(y.error));
        assertEquals(Transport.Kind.BLOCKING, rs.get(1).kind);
    }

    @Test
    void ratiosArePeerDensityOverYsuiteDensity() {
        List<Result> rs = Result.fromJson("[" + result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 40, 0)
                + "," + result("Throughput.arrayBlockingQueue", "", 80, 0.4)
                + "," + result("Throughput.unixSocketChannel", "", 4000, 0) + "]");
        String md = new Report(rs, 2).render("");
        assertTrue(md.contains("| ArrayBlockingQueue | 2.00x |"), md);
        assertTrue(md.contains("| Unix-domain SocketChannel | 100.00x |"), md);
        assertTrue(md.contains("vs best blocking peer | >= 1.00x | 2.00x | met"), md);
        assertTrue(md.contains("vs local sockets | >= 50x | 100.00x | met"), md);
    }

    @Test
    void missedTargetsSayMissed() {
        List<Result> rs = Result.fromJson("[" + result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 100, 0)
                + "," + result("Throughput.arrayBlockingQueue", "", 80, 0.4) + "]");
        String md = new Report(rs, 2).render("");
        assertTrue(md.contains("0.80x | **missed**"), md);
    }

    @Test
    void malformedJsonIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1, 2"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\" 1}"));
    }
}
