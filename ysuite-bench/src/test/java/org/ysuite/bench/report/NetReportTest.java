package org.ysuite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The network report's application-side allocation: the sending thread's bytes per message. */
class NetReportTest {

    private static Result ysuiteRow(int size, long appBytes, long appMessages) {
        Result r = new Result("org.ysuite.bench.net.NetThroughput.send",
                Map.of("peer", "ysuite", "size", Integer.toString(size), "net", "loopback", "bufferSize", "8192"),
                1, 100.0, 1.0, "ns/op", 170.0, new double[] {100.0});
        r.secondary.put("appAllocBytes", (double) appBytes);
        r.secondary.put("appMessages", (double) appMessages);
        return r;
    }

    @Test
    void appAllocIsTheSendingThreadsBytesPerMessageNotTheWholeJvms() {
        assertEquals(0.5, NetReport.appAlloc(ysuiteRow(64, 500, 1000)), 1e-12);
        assertTrue(Double.isNaN(NetReport.appAlloc(ysuiteRow(64, 0, 0))), "no messages counted: not measured");
    }

    @Test
    void theZeroAllocationTargetJudgesTheWorstYsuiteRow() {
        String met = new NetReport(List.of(ysuiteRow(64, 2_768, 17_830_494), ysuiteRow(65536, 0, 48_050)), 2)
                .render("");
        assertTrue(met.contains("| 0 B/op on the application side (most of any ysuite throughput row, B/msg) | 0.00 | yes |"),
                met);
        String missed = new NetReport(List.of(ysuiteRow(64, 0, 1000), ysuiteRow(65536, 38_000, 1000)), 2).render("");
        assertTrue(missed.contains("| 38.0 | no |") || missed.contains("| 38 | no |") || missed.contains("| 38.00 | no |"),
                missed);
    }
}
