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

    private static Result rt(org.ysuite.bench.net.Peer p, double mean, double p99) {
        return NetReport.roundTripResult(p, 16, mean, mean, p99, 2 * p99, 30_000, 20_000, 1000);
    }

    @Test
    void roundTripTargetsCompareMeanAndP99WithEachPeer() {
        // ysuite: mean 40 µs, p99 100 µs; Netty 50/90, JeroMQ 60/200, raw TCP 15/45
        String md = new NetReport(List.of(rt(org.ysuite.bench.net.Peer.YSUITE, 40_000, 100_000),
                rt(org.ysuite.bench.net.Peer.NETTY_FLUSH, 50_000, 90_000),
                rt(org.ysuite.bench.net.Peer.JEROMQ, 60_000, 200_000),
                rt(org.ysuite.bench.net.Peer.TCP, 15_000, 45_000)), 2).render("");
        assertTrue(md.contains("| ysuite 16 B round trip, mean: advantage over plain Netty >= 1.00x | 1.25x | yes |"), md);
        assertTrue(md.contains("| ysuite 16 B round trip, mean: advantage over JeroMQ REQ/REP >= 1.00x | 1.50x | yes |"), md);
        assertTrue(md.contains("| ysuite 16 B round trip, mean: advantage over raw TCP >= 0.50x | 0.38x | no |"), md);
        assertTrue(md.contains("| ysuite 16 B round trip, p99: advantage over plain Netty >= 1.00x | 0.90x | no |"), md);
        assertTrue(md.contains("| ysuite 16 B round trip, p99: advantage over JeroMQ REQ/REP >= 1.00x | 2.00x | yes |"), md);
        assertTrue(md.contains("| ysuite 16 B round trip, p99: advantage over raw TCP >= 0.50x | 0.45x | no |"), md);
        // the table: mean, p50, p99, p99.9 and both sides' CPU, in µs
        assertTrue(md.contains("| 40.0 | 40.0 | 100.0 | 200.0 | 30.0 | 20.0 |"), md);
    }

    @Test
    void theOnLoopServerGetsTargetRowsOfItsOwn() {
        String md = new NetReport(List.of(rt(org.ysuite.bench.net.Peer.YSUITE, 90_000, 300_000),
                rt(org.ysuite.bench.net.Peer.YSUITE_LOOP, 30_000, 60_000),
                rt(org.ysuite.bench.net.Peer.NETTY_FLUSH, 30_000, 80_000),
                rt(org.ysuite.bench.net.Peer.TCP, 15_000, 40_000)), 2).render("");
        assertTrue(md.contains("| ysuite 16 B round trip, mean: advantage over plain Netty >= 1.00x | 0.33x | no |"), md);
        assertTrue(md.contains("| ysuite_loop 16 B round trip, mean: advantage over plain Netty >= 1.00x | 1.00x | yes |"), md);
        assertTrue(md.contains("| ysuite_loop 16 B round trip, p99: advantage over raw TCP >= 0.50x | 0.67x | yes |"), md);
        assertTrue(md.contains("| ysuite MessageStream, server handler on the loop | 30.0 | 30.0 | 60.0 | 120.0 |"), md);
    }

    @Test
    void withoutAPeerTheTargetIsNotMeasured() {
        String md = new NetReport(List.of(rt(org.ysuite.bench.net.Peer.YSUITE, 40_000, 100_000)), 2).render("");
        assertTrue(md.matches("(?s).*\\| ysuite 16 B round trip, mean: advantage over plain Netty >= 1\\.00x \\| [^|]* "
                + "\\| not measured \\|.*"), md);
    }
}
