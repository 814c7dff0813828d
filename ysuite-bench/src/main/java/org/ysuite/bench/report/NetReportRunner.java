package org.ysuite.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.TimeValue;
import org.ysuite.bench.net.ClientServer;
import org.ysuite.bench.net.Netns;
import org.ysuite.bench.net.Peer;
import org.ysuite.bench.net.RoundTrip;

/**
 * {@code java -jar ysuite-bench.jar report net [--smoke|--quick|--full] [--out DIR] [--streams N]
 * [--veth|--no-veth]}: the network section (seeds 003, 004, 002, and the 16 B round trip). Writes the same kind of results folder
 * as the report: {@code jmh-result.json}, {@code jmh.log}, {@code results.csv}, {@code report.md},
 * {@code machine.md} and PNG charts.
 *
 * <ul>
 *   <li>Seed 003 with JMH ({@code NetThroughput}, {@code NetLatency}): every peer, message sizes
 *       1 B … 64 KiB, on loopback and (in {@code --full} or with {@code --veth}, unless the machine
 *       refuses) across a veth pair into a network namespace (servers run inside it); the ysuite buffer-size sweep
 *       8 B … 8 KiB with 6-byte messages.</li>
 *   <li>Seed 004: {@code NetThroughput} with 1 … {@code --streams} JMH threads (default 3), each
 *       its own connection, server process and event loops.</li>
 *   <li>The 16 B request/response ({@link RoundTrip}): every request/response peer, interleaved
 *       rounds, mean and percentiles, CPU per round trip of each side.</li>
 *   <li>Seed 002: {@link ClientServer} (two processes, wall-clock, the median of its timed passes;
 *       10^6 messages each way per pass in {@code --full}; in {@code --quick} 2 × 10^4 two-way
 *       requests and 10^6 one-way messages; 10^3 in {@code --smoke}).</li>
 * </ul>
 * Every server is a separate JVM ({@code NetServer}); each JMH run forks its own client JVM
 * ({@code --smoke} runs the client in this JVM, forks 0, to stay short).
 */
final class NetReportRunner {

    private static final String LOG = "jmh.log";
    private static final String NET = "^org\\.ysuite\\.bench\\.net\\.";

    private NetReportRunner() {
    }

    /** Run lengths and parameter lists of one mode. */
    enum Mode {
        SMOKE(0, 0, 1, 100, 0, new String[] {"64"}, new String[] {"64"}, new String[] {"8", "8192"}, 1_000,
                1_000, new int[] {1, 200, 200}),
        QUICK(3, 500, 3, 500, 1, new String[] {"6", "64", "1024", "65536"},
                new String[] {"64", "65536"},
                new String[] {"8", "128", "2048"}, 20_000, 1_000_000, // 8 KiB: the size run's 6 B row
                new int[] {5, 10_000, 20_000}),
        FULL(3, 1000, 5, 1000, 1, pow2(0, 16), pow2(0, 16), pow2(3, 13), 1_000_000, 1_000_000,
                new int[] {10, 20_000, 50_000});

        final int warmups;
        final int warmupMs;
        final int iterations;
        final int iterationMs;
        final int forks;
        final String[] throughputSizes;
        final String[] latencySizes;
        final String[] bufferSizes;
        /** Seed 002's two-way requests: a round trip each, so fewer than one-way messages. */
        final int twoWayMessages;
        /**
         * Seed 002's one-way messages: enough for a second or more of steady state per peer (with
         * a tenth of it as warm-up, the compiled code's rate, not the start-up's).
         */
        final int oneWayMessages;
        /** The 16 B round trip ({@link RoundTrip}): rounds, round trips timed per round, warm-up per peer. */
        final int[] roundTrip;

        Mode(int warmups, int warmupMs, int iterations, int iterationMs, int forks, String[] throughputSizes,
             String[] latencySizes, String[] bufferSizes, int twoWayMessages, int oneWayMessages, int[] roundTrip) {
            this.roundTrip = roundTrip;
            this.warmups = warmups;
            this.warmupMs = warmupMs;
            this.iterations = iterations;
            this.iterationMs = iterationMs;
            this.forks = forks;
            this.throughputSizes = throughputSizes;
            this.latencySizes = latencySizes;
            this.bufferSizes = bufferSizes;
            this.twoWayMessages = twoWayMessages;
            this.oneWayMessages = oneWayMessages;
        }
    }

    private static String[] pow2(int from, int to) {
        List<String> s = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            s.add(Integer.toString(1 << i));
        }
        return s.toArray(new String[0]);
    }

    static int run(ReportArgs args) throws IOException {
        // the same plans, with network run lengths; the seed headline has no network part: quick
        ReportRunner.Mode plan = args.plan(ReportRunner.Mode.QUICK);
        Mode mode = plan == ReportRunner.Mode.SEED ? Mode.QUICK : Mode.valueOf(plan.name());
        Path out = args.path(ReportArgs.Option.OUT, null); // default: a new folder under results-net (RunFolder)
        int streams;
        try {
            streams = args.intValue(ReportArgs.Option.STREAMS, 3, 1, Integer.MAX_VALUE);
        } catch (IllegalArgumentException e) {
            return ReportArgs.usage(args.section, e.getMessage());
        }
        Boolean vethFlag = args.has(ReportArgs.Option.NO_VETH) ? Boolean.FALSE
                : args.has(ReportArgs.Option.VETH) ? Boolean.TRUE : null;
        // the veth pair doubles seed 003's runs: by default only in --full (the default plan stays a few minutes)
        boolean veth = mode != Mode.SMOKE && (vethFlag != null ? vethFlag : mode == Mode.FULL);
        boolean ownFolder = out == null;
        Path base = Paths.get("results-net");
        out = ownFolder ? RunFolder.create(base, java.time.LocalDateTime.now()) : out;
        Files.createDirectories(out);
        String vethNote;
        if (!veth) {
            vethNote = "veth/netns variant: not run (" + (mode == Mode.SMOKE ? "smoke run"
                    : vethFlag == null ? "only in --full or with --veth" : "--no-veth") + ")";
        } else {
            String why = Netns.setUp();
            if (why == null) {
                vethNote = "veth/netns variant: run (namespace " + Netns.NAME + ", " + Netns.CLIENT_ADDRESS + " <-> "
                        + Netns.SERVER_ADDRESS + ")";
            } else {
                veth = false;
                vethNote = "veth/netns variant: the machine refused (" + why + "); loopback only";
            }
        }
        System.out.println(vethNote);
        String loadBefore = ReportRunner.loadAverage();
        long start = System.nanoTime();
        List<RunResult> all = new ArrayList<>();
        List<Result> results = new ArrayList<>();
        Mode m = mode;
        try {
            if (!ReportRunner.runJmh(plan(mode, streams, veth), out, "ysuite network report ("
                    + mode.name().toLowerCase(java.util.Locale.ROOT) + " run), then seed 002", all,
                    log -> {
                        results.addAll(roundTrip(m.roundTrip, m == Mode.SMOKE));
                        results.addAll(clientServer(m.twoWayMessages, m.oneWayMessages, m == Mode.SMOKE));
                    })) {
                return 1;
            }
        } finally {
            if (veth) {
                Netns.tearDown();
            }
        }
        results.addAll(0, all.stream().map(Result::of).collect(Collectors.toList()));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        int cores = Runtime.getRuntime().availableProcessors();
        String machine = "## ysuite network report (" + mode.name().toLowerCase(java.util.Locale.ROOT) + " run)\n\n"
                + "- date: " + Instant.now() + "\n"
                + ReportRunner.machineLines(cores)
                + "- jmh: forks " + mode.forks + ", warmup " + mode.warmups + " x " + mode.warmupMs + " ms, measurement "
                + mode.iterations + " x " + mode.iterationMs + " ms (latency: at least 5 x 1 s and 3 x 1 s), -prof gc; every server in its own JVM\n"
                + "- 16 B round trip: " + mode.roundTrip[0] + " interleaved rounds of " + mode.roundTrip[1]
                + " round trips per peer after " + mode.roundTrip[2] + " untimed, client in this JVM\n"
                + "- seed 002: " + mode.twoWayMessages + " two-way requests and " + mode.oneWayMessages
                + " one-way messages per pass, the median of " + ClientServer.TIMED_PASSES
                + " timed passes after at least " + ClientServer.WARMUP_NANOS / 1e9
                + " s of warm-up passes, client and server in two JVMs\n"
                + "- " + vethNote + "\n"
                + "- load average (1/5/15 min) before: " + loadBefore + ", after: " + ReportRunner.loadAverage() + "\n"
                + "- run time: " + seconds + " s\n";
        Files.write(out.resolve("machine.md"), machine.getBytes(StandardCharsets.UTF_8));
        NetReport report = new NetReport(results, cores);
        String md = report.render(machine);
        Files.write(out.resolve("results.csv"), Csv.of(results).getBytes(StandardCharsets.UTF_8));
        Files.write(out.resolve("report.md"), md.getBytes(StandardCharsets.UTF_8)); // before the charts, which may fail
        Path dir = out;
        List<String> charts = Charts.orNone(() -> report.charts(dir, Charts.caption(machine)));
        if (!charts.isEmpty()) {
            Files.write(out.resolve("report.md"), (md + "\nCharts: " + String.join(", ", charts) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        System.out.println();
        System.out.println(md);
        System.out.println("Written to " + out.toAbsolutePath() + ": jmh-result.json, results.csv, report.md, machine.md, "
                + LOG + (charts.isEmpty() ? "" : ", " + String.join(", ", charts)));
        if (ownFolder && RunFolder.markLatest(base, out) != null) {
            System.out.println(base.resolve(RunFolder.LATEST) + " points to this run; earlier runs are kept beside it");
        }
        return 0;
    }

    static List<Options> plan(Mode mode, int streams, boolean veth) {
        List<Options> runs = new ArrayList<>();
        String[] nets = veth ? new String[] {"loopback", "veth"} : new String[] {"loopback"};
        String[] peers = java.util.Arrays.stream(Peer.values()).map(Peer::param).toArray(String[]::new);
        // seed 003: throughput over sizes, every peer
        runs.add(options(mode, 1, NET + "NetThroughput\\.").param("peer", peers)
                .param("size", mode.throughputSizes).param("net", nets).build());
        // seed 003: latency over sizes
        // (a round trip takes tens to hundreds of µs here, so a time-based warm-up sees few of them: the
        // latency runs get at least 5 x 1 s of warm-up and 3 x 1 s of measurement, or the code is not compiled yet)
        ChainedOptionsBuilder latency = options(mode, 1, NET + "NetLatency\\.");
        if (mode != Mode.SMOKE) {
            latency.warmupIterations(Math.max(mode.warmups, 5))
                    .warmupTime(TimeValue.milliseconds(Math.max(mode.warmupMs, 1000)))
                    .measurementIterations(Math.max(mode.iterations, 3))
                    .measurementTime(TimeValue.milliseconds(Math.max(mode.iterationMs, 1000)));
        }
        runs.add(latency.param("size", mode.latencySizes).param("net", nets).build());
        // seed 003: buffer-size sweep, 6-byte messages, ysuite
        runs.add(options(mode, 1, NET + "NetThroughput\\.").param("peer", "ysuite").param("size", "6")
                .param("bufferSize", mode.bufferSizes).param("net", "loopback").build());
        // seed 004: independent streams (threads >= 2; one stream is the size sweep's row)
        for (int t = 2; t <= streams; t++) {
            runs.add(options(mode, t, NET + "NetThroughput\\.").param("peer", "ysuite", "tcp")
                    .param("size", mode == Mode.SMOKE || mode == Mode.QUICK ? new String[] {"64"} : new String[] {"6", "64", "1024"})
                    .param("net", "loopback").build());
        }
        return runs;
    }

    private static ChainedOptionsBuilder options(Mode mode, int threads, String include) {
        return ReportRunner.jmh(mode.forks, mode.warmups, mode.warmupMs, mode.iterations, mode.iterationMs, threads, 60)
                .include(include);
    }

    /** The 16 B round trip of every request/response peer, as results of {@code net.RoundTrip.request}. */
    private static List<Result> roundTrip(int[] plan, boolean smoke) throws Exception {
        List<Peer> peers = smoke ? List.of(Peer.YSUITE, Peer.YSUITE_LOOP, Peer.TCP) : Peer.requestReply();
        System.out.printf("16 B round trip: %d rounds of %d per peer (%s) ...%n", plan[0], plan[1], peers);
        List<Result> out = new ArrayList<>();
        for (RoundTrip.Stats s : RoundTrip.measure(peers, 16, plan[0], plan[1], plan[2]).values()) {
            out.add(NetReport.roundTripResult(s.peer, 16, s.latency.mean(), s.latency.percentile(0.5),
                    s.latency.percentile(0.99), s.latency.percentile(0.999), s.clientCpuNs, s.serverCpuNs,
                    s.latency.count()));
        }
        return out;
    }

    /** Seed 002 for every peer, as results of pseudo-benchmarks {@code net.ClientServer.twoway/oneway}. */
    private static List<Result> clientServer(int twoWay, int oneWay, boolean smoke) throws Exception {
        List<Result> out = new ArrayList<>();
        Map<String, Peer[]> modes = new LinkedHashMap<>();
        modes.put("twoway", smoke ? new Peer[] {Peer.YSUITE, Peer.YSUITE_LOOP} : Peer.requestReply().toArray(new Peer[0]));
        modes.put("oneway", smoke ? new Peer[] {Peer.YSUITE} : Peer.values());
        for (Map.Entry<String, Peer[]> m : modes.entrySet()) {
            int n = "twoway".equals(m.getKey()) ? twoWay : oneWay;
            for (Peer p : m.getValue()) {
                System.out.printf("seed 002 %s %s, %d messages ...%n", m.getKey(), p.param(), n);
                ClientServer.Measured r = ClientServer.measure(p, "twoway".equals(m.getKey()), n, "loopback");
                Map<String, String> params = new LinkedHashMap<>();
                params.put("peer", p.param());
                params.put("messages", Integer.toString(n));
                double[] perPass = new double[r.passRates().length];
                for (int i = 0; i < perPass.length; i++) {
                    perPass[i] = 1e9 / r.passRates()[i];
                }
                Result res = new Result("org.ysuite.bench.net.ClientServer." + m.getKey(), params, 1, 1e9 / r.rate(),
                        Double.NaN, "ns/op", Double.NaN, perPass);
                res.secondary.put(NetReport.CLIENT_CPU, r.clientCpuNs());
                res.secondary.put(NetReport.SERVER_CPU, r.serverCpuNs());
                out.add(res);
            }
        }
        return out;
    }
}
