package org.ysuite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.AverageTimeResult;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.IterationResultMetaData;
import org.openjdk.jmh.results.ResultRole;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.WorkloadParams;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
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
        List<Result> rs = Result.fromJmhJson("[" + result("Throughput.ypipe", "\"signaler\":\"pollset\"", 40, 0.001)
                + "," + result("Throughput.peer", "\"peer\":\"arrayBlockingQueue\"", 80, 0.4) + "]");
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
    void aContenderRowTakesItsNameLabelAndKindFromThePeerParameter() {
        Result r = Result.fromJmhJson("[" + result("WorstCase.peer", "\"peer\":\"parkUnpark\"", 40, 0) + "]").get(0);
        assertEquals("WorstCase", r.scenario);
        assertEquals("parkUnpark", r.method);
        assertEquals("LockSupport park/unpark (JVM floor)", r.label);
        assertEquals(Transport.Kind.BASELINE, r.kind);
        Result sparse = Result.fromJmhJson("[" + result("SparseTraffic.peer",
                "\"peer\":\"agronaBackoff\",\"rate\":\"10000\"", 40, 0) + "]").get(0);
        assertEquals("Agrona OneToOneConcurrentArrayQueue + BackoffIdleStrategy", sparse.label);
    }

    @Test
    void aRowOfAnOlderRunNamedByItsFormerMethodFindsItsContender() {
        // before the contenders shared one method, each had a benchmark method of the row's name
        Result r = Result.fromJmhJson("[" + result("Throughput.jctoolsSpsc", "", 40, 0) + "]").get(0);
        assertEquals("jctoolsSpsc", r.method);
        assertEquals("JCTools SpscArrayQueue (busy-spin)", r.label);
        assertEquals(Transport.Kind.BUSY_SPIN, r.kind);
        Result v = Result.fromJmhJson("[" + result("VirtualThreads.fanInMailbox", "", 40, 0) + "]").get(0);
        assertEquals(Transport.Kind.YSUITE, v.kind);
    }

    @Test
    void perIterationCountersAreAveragedNotSummedOverIterations() {
        // JMH sums AuxCounters of type EVENTS over the iterations: score 40 for four iterations of 10.
        String json = "[{\"benchmark\":\"org.ysuite.bench.SparseTraffic.ypipeDefault\",\"mode\":\"avgt\","
                + "\"threads\":1,\"forks\":1,\"params\":{\"rate\":\"10000\"},"
                + "\"primaryMetric\":{\"score\":100,\"scoreError\":1,\"scoreUnit\":\"us/op\"},"
                + "\"secondaryMetrics\":{\"readerCpuPercent\":{\"score\":40,\"scoreUnit\":\"#\","
                + "\"rawData\":[[9,11,10,10]]},\"other\":{\"score\":40,\"scoreUnit\":\"#\",\"rawData\":[[10,10,10,10]]}}}]";
        Result r = Result.fromJmhJson(json).get(0);
        assertEquals(10, r.secondary("readerCpuPercent"), 1e-9);
        assertEquals(40, r.secondary("other"), 1e-9, "other secondaries keep JMH's score");
    }

    /** One fork of Throughput.ypipe (signaler=pollset): an iteration per density, 2 ops per iteration. */
    private static BenchmarkResult fork(BenchmarkParams bp, double alloc, double... densities) {
        List<IterationResult> its = new ArrayList<>();
        for (double d : densities) {
            IterationResult it = new IterationResult(bp, bp.getMeasurement(), new IterationResultMetaData(2, 2));
            it.addResult(new AverageTimeResult(ResultRole.PRIMARY, "ypipe", 2, (long) (2 * d), TimeUnit.NANOSECONDS));
            it.addResult(new ScalarResult(Result.ALLOC_NORM, alloc, "B/op", AggregationPolicy.AVG));
            its.add(it);
        }
        return new BenchmarkResult(bp, its);
    }

    @Test
    void readsJmhRunResultsWithForkMeansAndAllocation() {
        WorkloadParams wp = new WorkloadParams();
        wp.put("signaler", "pollset", 0);
        IterationParams measure = new IterationParams(IterationType.MEASUREMENT, 2, TimeValue.seconds(1), 1);
        BenchmarkParams bp = new BenchmarkParams("org.ysuite.bench.Throughput.ypipe", "generated", true, 1,
                new int[] {1}, Collections.emptyList(), 3, 0, measure, measure, Mode.AverageTime, wp,
                TimeUnit.NANOSECONDS, 1, "java", Collections.emptyList(), "17", "vm", "17", "1.37",
                TimeValue.seconds(60));
        RunResult rr = new RunResult(bp, List.of(fork(bp, 0.01, 100, 120), fork(bp, 0.01, 200, 200),
                fork(bp, 0.01, 150, 130)));
        Result r = Result.of(rr);
        assertEquals("Throughput", r.scenario);
        assertEquals("YPipe + YPollset", r.label);
        assertEquals("pollset", r.param("signaler"));
        assertEquals(150, r.density, 1e-9);
        assertEquals(3, r.forks());
        assertEquals(110, r.forkMin(), 1e-9);
        assertEquals(200, r.forkMax(), 1e-9);
        assertEquals(0.01, r.allocPerMsg, 1e-12);
        assertEquals("ns/op", r.unit);
    }

    @Test
    void ratiosAreYsuitesAdvantagePeerDensityOverYsuiteDensity() {
        List<Result> rs = Result.fromJmhJson("[" + result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 40, 0)
                + "," + result("Throughput.peer", "\"peer\":\"arrayBlockingQueue\"", 80, 0.4)
                + "," + result("Throughput.peer", "\"peer\":\"unixSocketChannel\"", 4000, 0) + "]");
        String md = new Report(rs, 2).render("");
        assertTrue(md.contains("| ArrayBlockingQueue | 2.00x |"), md);
        assertTrue(md.contains("| Unix-domain SocketChannel | 100.00x |"), md);
        assertTrue(md.contains("vs best blocking peer | >= 1.00x | 2.00x | met"), md);
        assertTrue(md.contains("vs local sockets | >= 50.00x | 100.00x | met"), md);
    }

    @Test
    void missedTargetsSayMissed() {
        List<Result> rs = Result.fromJmhJson("[" + result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 100, 0)
                + "," + result("Throughput.peer", "\"peer\":\"arrayBlockingQueue\"", 80, 0.4) + "]");
        String md = new Report(rs, 2).render("");
        assertTrue(md.contains("0.80x | **missed**"), md);
    }

    @Test
    void pureParkIsComparedWithTheParkUnparkFloor() {
        List<Result> rs = Result.fromJmhJson("["
                + result("WorstCase.ypipe", "\"signaler\":\"semaphore\",\"spin\":\"0\"", 21, 0)
                + "," + result("WorstCase.ypipe", "\"signaler\":\"semaphore\",\"spin\":\"200\"", 1, 0)
                + "," + result("WorstCase.peer", "\"peer\":\"parkUnpark\"", 20, 0) + "]");
        assertEquals(Transport.Kind.BASELINE, rs.get(2).kind);
        String md = new Report(rs, 2).render("");
        // at most 5 % above the floor: floor / y-suite = 20 / 21 = 0.952 >= 1 / 1.05
        assertTrue(md.contains("worst case, pure park: YPipe + YSemaphore (pure park) vs the JVM park/unpark floor "
                + "| >= 0.95x | 0.95x | met"), md);
        assertFalse(md.contains("(default policy) vs the JVM park/unpark floor"), md);
    }

    /** A result with per-iteration counters (JMH sums them into the score; rawData has each iteration). */
    private static String withGauges(String benchmark, String params, double score, String... gauges) {
        StringBuilder sm = new StringBuilder();
        for (int i = 0; i < gauges.length; i += 2) {
            double v = Double.parseDouble(gauges[i + 1]);
            sm.append(i == 0 ? "" : ",").append('"').append(gauges[i]).append("\":{\"score\":").append(3 * v)
                    .append(",\"scoreUnit\":\"#\",\"rawData\":[[").append(v).append(',').append(v).append(',')
                    .append(v).append("]]}");
        }
        return "{\"benchmark\":\"org.ysuite.bench." + benchmark + "\",\"mode\":\"ss\",\"threads\":1,"
                + "\"forks\":1,\"params\":{" + params + "},"
                + "\"primaryMetric\":{\"score\":" + score + ",\"scoreError\":\"NaN\",\"scoreUnit\":\"ms/op\"},"
                + "\"secondaryMetrics\":{" + sm + "}}";
    }

    @Test
    void acrossProcessesHasTablesPerMessageSizeTheFloorAndTheIdleReadersCpu() {
        List<Result> rs = Result.fromJmhJson("[" + result("ipc.IpcWorstCase.unixSocket", "", 30000, 0)
                + "," + withGauges("ipc.IpcWorstCase.cFutexFloor", "\"spin\":\"0\"", 5000, "floorOneWayNs", "4500")
                + "," + result("ipc.IpcThroughput.unixSocket", "\"bytes\":\"8\"", 2000, 0)
                + "," + result("ipc.IpcThroughput.aeron", "\"bytes\":\"1024\",\"idle\":\"busyspin\"", 300, 0)
                + "," + withGauges("ipc.IpcIdle.unixSocket", "\"idleMillis\":\"1000\"", 1000, "readerCpuPercent", "0.02",
                        "processCpuPercent", "0.1", "driverCpuPercent", "0") + "]");
        String md = new Report(rs, 2).render("");
        assertTrue(md.contains("## Across processes"), md);
        assertTrue(md.contains("| AF_UNIX SocketChannel | local socket | 30,000 |"), md);
        assertTrue(md.contains("| C futex ping-pong (floor) (pure park) | baseline | 5,000 |"), md);
        assertTrue(md.contains("its own timing without them (floorOneWayNs): C futex ping-pong (floor) (pure park) 4,500 ns"), md);
        assertTrue(md.contains("maximal throughput, 8-byte messages"), md);
        assertTrue(md.contains("maximal throughput, 1024-byte messages"), md);
        assertTrue(md.contains("| Aeron IPC idle=busyspin | busy-spin peer | 300 |"), md);
        // the per-iteration CPU shares are averaged, not summed over the three iterations
        assertTrue(md.contains("| AF_UNIX SocketChannel | local socket | 0.020 | 0.100 | 0.000 |"), md);
        assertFalse(md.contains("### ipc."), "the ipc rows are not repeated among the other scenarios:\n" + md);
        assertFalse(md.contains("No C futex floor"), md);
        String noFloor = new Report(Result.fromJmhJson("[" + result("ipc.IpcWorstCase.unixSocket", "", 30000, 0) + "]"), 2)
                .render("");
        assertTrue(noFloor.contains("No C futex floor in this run: it needs gcc"), noFloor);
    }

    @Test
    void aeronIdleTableGivesEachStrategyAndRateAndTheThreeComparisons() {
        StringBuilder json = new StringBuilder("[");
        String[][] rows = {{"busySpin", "0", "100", "-1", "-1", "0"}, {"backoff", "0", "2.5", "-1", "-1", "0"},
            {"ysuite", "0", "0.05", "-1", "-1", "0"}, {"backoff", "10000", "30", "60000", "900000", "10000"},
            {"ysuite", "10000", "6", "30000", "800000", "10000"}, {"busySpin", "max", "100", "1", "2", "2e7"},
            {"ysuite", "max", "100", "1", "2", "1.9e7"}};
        for (String[] r : rows) {
            json.append(json.length() == 1 ? "" : ",").append(withGauges("ipc.AeronIdle.subscriber",
                    "\"idleMillis\":\"1000\",\"rate\":\"" + r[1] + "\",\"strategy\":\"" + r[0] + "\"", 1000,
                    "subscriberCpuPercent", r[2], "meanLatencyNs", r[3], "p99LatencyNs", r[4], "receivedPerSecond", r[5],
                    "wakeupsPerSecond", "ysuite".equals(r[0]) ? "9000" : "0"));
        }
        String md = new Report(Result.fromJmhJson(json.append("]").toString()), 2).render("");
        assertTrue(md.contains("## Across processes"), md);
        assertTrue(md.contains("| Agrona BusySpinIdleStrategy | 0 (idle) | 100.000 | - | - | 0 | - |"), md);
        assertTrue(md.contains("| ysuite SharedSignalerIdleStrategy (defaults) | 10,000 | 6.000 | 30.0 | 800.0 | 10,000 | 9,000 |"),
                md);
        assertTrue(md.contains("Idle subscriber CPU: ysuite 0.050 % (target <= 0.1), Backoff 2.500 %, Busy-spin 100.000 %."),
                md);
        assertTrue(md.contains("mean latency 2.00x, p99 1.13x (target >= 1x), CPU 5.00x (target >= 3x)"), md);
        assertTrue(md.contains("(ysuite's rate / Busy-spin's): 0.95x (target >= 0.95x)"), md);
        assertFalse(md.contains("### ipc."), md);
    }

    @Test
    void acrossProcessesTargetsCompareSharedYPipeWithAeronSocketsAndTheCFloor() {
        List<Result> rs = Result.fromJmhJson("["
                + result("ipc.IpcThroughput.ysuite", "\"bytes\":\"8\",\"spin\":\"0\"", 100, 0)
                + "," + result("ipc.IpcThroughput.ysuite", "\"bytes\":\"1024\",\"spin\":\"0\"", 1, 0)
                + "," + result("ipc.IpcThroughput.aeron", "\"bytes\":\"8\",\"idle\":\"busyspin\"", 150, 0)
                + "," + result("ipc.IpcThroughput.aeron", "\"bytes\":\"8\",\"idle\":\"backoff\"", 90, 0)
                + "," + result("ipc.IpcThroughput.unixSocket", "\"bytes\":\"8\"", 1900, 0)
                + "," + result("ipc.IpcWorstCase.ysuite", "\"spin\":\"0\"", 5400, 0)
                + "," + result("ipc.IpcWorstCase.ysuite", "\"spin\":\"200\"", 1000, 0)
                + "," + result("ipc.IpcWorstCase.cFutexFloor", "\"spin\":\"0\"", 4500, 0)
                + "," + result("ipc.IpcWorstCase.unixSocket", "", 30000, 0)
                + "," + withGauges("ipc.IpcIdle.ysuite", "\"idleMillis\":\"1000\",\"spin\":\"0\"", 1000,
                        "readerCpuPercent", "0.05", "processCpuPercent", "0.3", "driverCpuPercent", "0") + "]");
        assertEquals(Transport.Kind.YSUITE, rs.get(0).kind);
        String md = new Report(rs, 2).render("");
        // against Aeron's busy-spin row only (not the faster backoff one), and only at 8 bytes
        assertTrue(md.contains("throughput 8 B: SharedYPipe (pure park) vs Aeron IPC (busy spin) | >= 1.00x | 1.50x | met"), md);
        assertTrue(md.contains("throughput 8 B: SharedYPipe (pure park) vs AF_UNIX sockets | >= 20.00x | 19.00x | **missed**"), md);
        assertTrue(md.contains("worst case (one-way), pure park: SharedYPipe (pure park) vs the C futex floor | >= 0.83x | 0.83x | met"), md);
        assertTrue(md.contains("worst case (one-way): SharedYPipe (default policy) vs AF_UNIX sockets | >= 20.00x | 30.00x | met"), md);
        assertFalse(md.contains("worst case (one-way): SharedYPipe (pure park) vs AF_UNIX sockets"), md);
        assertTrue(md.contains("idle: SharedYPipe (pure park) reader CPU, % of a core (not a ratio) | <= 0.1 | 0.05 | met"), md);
    }

    @Test
    void malformedJsonIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> Result.fromJmhJson("[1, 2"));
        assertThrows(IllegalArgumentException.class, () -> Result.fromJmhJson("[{\"a\" 1}]"));
        assertThrows(IllegalArgumentException.class, () -> Result.fromJmhJson("[{\"benchmark\":\"x\"}]"));
    }

    @Test
    void forkMeansComeFromRawDataAndShowAsSpread() {
        String withForks = result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 40, 0)
                .replace("\"scoreUnit\":\"ns/op\"", "\"scoreUnit\":\"ns/op\",\"rawData\":[[30,32],[40,40],[50,48]]");
        List<Result> rs = Result.fromJmhJson("[" + withForks + "," + result("Throughput.peer", "\"peer\":\"arrayBlockingQueue\"", 80, 0.4)
                + "]");
        Result y = rs.get(0);
        assertEquals(3, y.forks());
        assertEquals(31, y.forkMin(), 1e-9);
        assertEquals(49, y.forkMax(), 1e-9);
        String md = new Report(rs, 2).render("");
        assertTrue(md.contains("| 3 | 31.0–49.0 |"), md);
        assertTrue(Csv.of(rs).contains(",3,31.000,49.000\n"), Csv.of(rs));
    }

    @Test
    void oneForkTablesHaveNoSpreadColumn() {
        List<Result> rs = Result.fromJmhJson("[" + result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 40, 0)
                + "," + result("Throughput.peer", "\"peer\":\"arrayBlockingQueue\"", 80, 0.4) + "]");
        assertFalse(new Report(rs, 2).render("").contains("fork means"));
    }

    @Test
    void fullRunGivesTheHeadlineScenariosThreeForksOfTheirOwn() {
        List<Options> full = ReportRunner.plan(ReportRunner.Mode.FULL, null, 2);
        assertEquals(List.of("^org\\.ysuite\\.bench\\.(WorstCase|Throughput)\\."), full.get(0).getIncludes());
        assertEquals(3, full.get(0).getForkCount().get());
        assertFalse(full.get(1).getIncludes().get(0).contains("WorstCase"), full.get(1).getIncludes().toString());
        assertEquals(2, full.get(1).getForkCount().get());
        List<Options> quick = ReportRunner.plan(ReportRunner.Mode.QUICK, null, 2);
        assertTrue(quick.get(0).getIncludes().get(0).contains("WorstCase|Throughput|"), quick.get(0).getIncludes().toString());
        assertEquals(1, quick.get(0).getForkCount().get());
    }

    @Test
    void virtualThreadsJoinThePlanFromJdk21AndAChosenSubsetGetsTheHeadlineForks() {
        String on17 = ReportRunner.plan(ReportRunner.Mode.QUICK, null, 2, 17).get(0).getIncludes().get(0);
        String on25 = ReportRunner.plan(ReportRunner.Mode.QUICK, null, 2, 25).get(0).getIncludes().get(0);
        assertFalse(on17.contains("VirtualThreads"), on17);
        assertTrue(on25.contains("|VirtualThreads"), on25);
        List<Options> subset = ReportRunner.plan(ReportRunner.Mode.FULL, "Throughput", 2, 17);
        assertEquals(3, subset.get(0).getForkCount().get());
    }

    @Test
    void progressCountsEveryParameterSetOfTheBenchmarksToRun() {
        Progress all = new Progress(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), System.out);
        all.plan(new OptionsBuilder().include("^org\\.ysuite\\.bench\\.WorstCase\\.ypipe$").forks(3).build());
        assertEquals(8, all.total());
        Progress one = new Progress(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), System.out);
        one.plan(new OptionsBuilder().include("^org\\.ysuite\\.bench\\.WorstCase\\.ypipe$")
                .param("signaler", "semaphore").build());
        assertEquals(2, one.total());
    }

    @Test
    void progressClockShowsMinutesAndHours() {
        assertEquals("0:07", Progress.clock(7_000_000_000L));
        assertEquals("12:05", Progress.clock(725_000_000_000L));
        assertEquals("1:00:01", Progress.clock(3_601_000_000_000L));
    }

    /** The figures in a target row's last column, in order (y-suite's must come first). */
    private static String targetRow(String md, String target) {
        for (String line : md.split("\n")) {
            if (line.startsWith("| " + target + " |")) {
                return line;
            }
        }
        throw new AssertionError("no target row \"" + target + "\" in:\n" + md);
    }

    @Test
    void everyTargetRowGivesTheYsuiteFigureFirstAndTheOtherSecond() {
        List<Result> rs = Result.fromJmhJson("["
                + result("Throughput.peer", "\"peer\":\"ymailbox\"", 6.8, 0)
                + "," + result("Throughput.peer", "\"peer\":\"jctoolsMpscBlocking\"", 12.1, 0)
                + "," + result("Throughput.peer", "\"peer\":\"offHeapYPipe\"", 20.5, 0)
                + "," + result("Throughput.peer", "\"peer\":\"agronaRingBuffer\"", 41.0, 0)
                + "," + result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 15.0, 0)
                + "," + result("Throughput.peer", "\"peer\":\"unixSocketChannel\"", 1950, 0)
                + "," + result("Throughput.peer", "\"peer\":\"jctoolsSpsc\"", 9.0, 0)
                + "," + result("SenderBatch.ypipe", "\"batch\":\"32\"", 4.5, 0)
                + "," + result("WorstCase.ypipe", "\"signaler\":\"semaphore\",\"spin\":\"0\"", 36000, 0)
                + "," + result("WorstCase.peer", "\"peer\":\"parkUnpark\"", 35000, 0)
                + "," + result("WorstCase.peer", "\"peer\":\"arrayBlockingQueue\"", 41000, 0)
                + "," + result("WorstCase.peer", "\"peer\":\"unixSocketChannel\"", 48000, 0)
                + "," + result("ipc.IpcThroughput.ysuite", "\"bytes\":\"8\",\"spin\":\"0\"", 100, 0)
                + "," + result("ipc.IpcThroughput.aeron", "\"bytes\":\"8\",\"idle\":\"busyspin\"", 150, 0)
                + "," + result("ipc.IpcThroughput.unixSocket", "\"bytes\":\"8\"", 1900, 0) + "]");
        String md = new Report(rs, 2).render("");
        assertTrue(md.contains("| target | goal | measured | verdict | y-suite vs the other row |"), md);
        // the example: JCTools 12.1 ns, YMailbox 6.8 ns
        assertTrue(targetRow(md, "throughput: YMailbox (1 writer) vs JCTools MpscBlockingConsumerArrayQueue")
                .endsWith("| 1.78x | met | 6.8 vs 12.1 ns |"), md);
        assertTrue(targetRow(md, "throughput, OffHeapYPipe 8 B vs Agrona OneToOneRingBuffer (busy-spin)")
                .endsWith("| 2.00x | met | 20.5 vs 41.0 ns |"), md);
        assertTrue(targetRow(md, "throughput, YPipe sender batch 32 vs JCTools SpscArrayQueue (busy-spin)")
                .endsWith("| 2.00x | met | 4.5 vs 9.0 ns/msg |"), md);
        assertTrue(targetRow(md, "throughput, flush per message: YPipe + YSemaphore vs local sockets")
                .endsWith("| 130.00x | met | 15.0 vs 1,950 ns (Unix-domain SocketChannel) |"), md);
        assertTrue(targetRow(md, "worst case, one-way time of a ping-pong: YPipe + YSemaphore (pure park) vs best "
                + "blocking peer").endsWith("| 1.14x | met | 36,000 vs 41,000 ns one-way (ArrayBlockingQueue) |"), md);
        assertTrue(targetRow(md, "worst case, pure park: YPipe + YSemaphore (pure park) vs the JVM park/unpark floor")
                .endsWith("| 36,000 vs 35,000 ns one-way (LockSupport park/unpark (JVM floor)) |"), md);
        assertTrue(targetRow(md, "worst case, one-way time of a ping-pong: YPipe + YSemaphore (pure park) vs local "
                + "sockets").endsWith("| 36,000 vs 48,000 ns one-way (Unix-domain SocketChannel) |"), md);
        assertTrue(targetRow(md, "across processes, throughput 8 B: SharedYPipe (pure park) vs Aeron IPC (busy spin)")
                .endsWith("| 1.50x | met | 100 vs 150 ns |"), md);
        assertTrue(targetRow(md, "across processes, throughput 8 B: SharedYPipe (pure park) vs AF_UNIX sockets")
                .endsWith("| 100 vs 1,900 ns |"), md);
    }

    @Test
    void theDefaultPlanIsTheSeedHeadlineWithTwoForksAndALongWarmUp() {
        List<Options> seed = ReportRunner.plan(ReportRunner.Mode.SEED, null, 2, 17);
        assertEquals(1, seed.size());
        assertEquals(List.of("^org\\.ysuite\\.bench\\.(WorstCase|Throughput)\\."), seed.get(0).getIncludes());
        assertEquals(List.of("pollset", "semaphore"), new ArrayList<>(seed.get(0).getParameter("signaler").get()));
        assertEquals(2, seed.get(0).getForkCount().get(), "two forks: the spread of their means is reported");
        // at least 2 s of warm-up: a flush-per-message YPipe needed 0.5-1 s of a fresh JVM to reach its rate
        assertTrue(seed.get(0).getWarmupIterations().get() * seed.get(0).getWarmupTime().get().convertTo(
                TimeUnit.MILLISECONDS) >= 2000, "warm-up");
        assertTrue(seed.get(0).getMeasurementIterations().get() >= 8, "enough iterations for an honest error");
        assertEquals(ReportRunner.Mode.SEED, ReportArgs.parse(new String[] {"--seed"}).plan(null));
        assertEquals(ReportRunner.Mode.QUICK, ReportArgs.parse(new String[] {"--all"}).plan(null));
        Progress p = new Progress(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), System.out);
        seed.forEach(p::plan);
        assertTrue(p.total() <= 32, "the seed plan must stay short: " + p.total() + " benchmarks");
    }

    @Test
    void theHeadlineHasTheSeedTablesAndBothScenariosWithoutTheRest() {
        List<Result> rs = Result.fromJmhJson("["
                + result("WorstCase.ypipe", "\"signaler\":\"semaphore\",\"spin\":\"0\"", 36000, 0)
                + "," + result("WorstCase.peer", "\"peer\":\"unixSocketChannel\"", 48000, 0)
                + "," + result("Throughput.ypipe", "\"signaler\":\"semaphore\"", 15.0, 0)
                + "," + result("Throughput.peer", "\"peer\":\"unixSocketChannel\"", 1950, 0) + "]");
        String h = new Report(rs, 2).headline();
        assertTrue(h.contains("### Seed 000, worst-case scenario"), h);
        assertTrue(h.contains("### Seed 000, maximal throughput scenario"), h);
        assertTrue(h.contains("| y-suite (without poll): YPipe + YSemaphore | 15.0 ns/msg | 66,666,667 msgs/sec | 130.00x |"), h);
        assertTrue(h.contains("### Worst case:"), h);
        assertTrue(h.contains("### Maximal throughput:"), h);
        assertFalse(h.contains("Targets"), h);
        assertFalse(h.contains("advantage over each peer"), h);
    }
}
