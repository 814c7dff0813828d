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
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.ysuite.bench.net.ClientServer;
import org.ysuite.bench.net.Netns;
import org.ysuite.bench.net.Peer;

/**
 * {@code java -jar ysuite-bench.jar report net [--smoke|--quick|--full] [--out DIR] [--streams N]
 * [--no-veth]}: the network section (seeds 003, 004, 002). Writes the same kind of results folder
 * as the report: {@code jmh-result.json}, {@code jmh.log}, {@code results.csv}, {@code report.md},
 * {@code machine.md} and PNG charts.
 *
 * <ul>
 *   <li>Seed 003 with JMH ({@code NetThroughput}, {@code NetLatency}): every peer, message sizes
 *       1 B … 64 KiB, on loopback and, unless {@code --no-veth} or the machine refuses, across a
 *       veth pair into a network namespace (servers run inside it); the ysuite buffer-size sweep
 *       8 B … 8 KiB with 6-byte messages.</li>
 *   <li>Seed 004: {@code NetThroughput} with 1 … {@code --streams} JMH threads (default 3), each
 *       its own connection, server process and event loops.</li>
 *   <li>Seed 002: {@link ClientServer} (two processes, wall-clock, 10^6 messages in {@code --full},
 *       10^5 in {@code --quick}, 10^3 in {@code --smoke}).</li>
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
        SMOKE(0, 0, 1, 100, 0, new String[] {"64"}, new String[] {"64"}, new String[] {"8", "8192"}, 1_000),
        QUICK(3, 500, 3, 500, 1, new String[] {"1", "6", "64", "256", "1024", "4096", "16384", "65536"},
                new String[] {"1", "64", "1024", "4096", "65536"},
                new String[] {"8", "32", "128", "512", "2048", "8192"}, 100_000),
        FULL(3, 1000, 5, 1000, 1, pow2(0, 16), pow2(0, 16), pow2(3, 13), 1_000_000);

        final int warmups;
        final int warmupMs;
        final int iterations;
        final int iterationMs;
        final int forks;
        final String[] throughputSizes;
        final String[] latencySizes;
        final String[] bufferSizes;
        final int clientServerMessages;

        Mode(int warmups, int warmupMs, int iterations, int iterationMs, int forks, String[] throughputSizes,
             String[] latencySizes, String[] bufferSizes, int clientServerMessages) {
            this.warmups = warmups;
            this.warmupMs = warmupMs;
            this.iterations = iterations;
            this.iterationMs = iterationMs;
            this.forks = forks;
            this.throughputSizes = throughputSizes;
            this.latencySizes = latencySizes;
            this.bufferSizes = bufferSizes;
            this.clientServerMessages = clientServerMessages;
        }
    }

    private static String[] pow2(int from, int to) {
        List<String> s = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            s.add(Integer.toString(1 << i));
        }
        return s.toArray(new String[0]);
    }

    static int run(String[] args) throws IOException {
        Mode mode = Mode.QUICK;
        Path out = Paths.get("results-net");
        int streams = 3;
        boolean veth = true;
        try {
            for (int i = 0; i < args.length; i++) {
                ReportRunner.Mode flag = ReportRunner.Mode.ofFlag(args[i]);
                if (flag != null) {
                    // the same modes, with network run lengths; the seed headline has no network part: quick
                    mode = flag == ReportRunner.Mode.SEED ? Mode.QUICK : Mode.valueOf(flag.name());
                    continue;
                }
                switch (args[i]) {
                    case "--out":
                        out = Paths.get(args[++i]);
                        break;
                    case "--streams":
                        streams = Integer.parseInt(args[++i]);
                        break;
                    case "--no-veth":
                        veth = false;
                        break;
                    default:
                        return usage("unknown argument " + args[i]);
                }
            }
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            return usage("bad arguments: " + e.getMessage());
        }
        if (streams < 1) {
            return usage("--streams must be >= 1, not " + streams);
        }
        if (mode == Mode.SMOKE) {
            veth = false;
        }
        Files.createDirectories(out);
        String vethNote;
        if (!veth) {
            vethNote = "veth/netns variant: not run (" + (mode == Mode.SMOKE ? "smoke run" : "--no-veth") + ")";
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
                    log -> results.addAll(clientServer(m.clientServerMessages, m == Mode.SMOKE)))) {
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
                + "- cpu: " + ReportRunner.cpuModel() + "\n"
                + "- cores: " + cores + "\n"
                + "- jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + "\n"
                + "- os: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + "\n"
                + "- jmh: forks " + mode.forks + ", warmup " + mode.warmups + " x " + mode.warmupMs + " ms, measurement "
                + mode.iterations + " x " + mode.iterationMs + " ms (latency: at least 8 x 1 s and 5 x 1 s), -prof gc; every server in its own JVM\n"
                + "- seed 002: " + mode.clientServerMessages + " messages per run, client and server in two JVMs\n"
                + "- " + vethNote + "\n"
                + "- load average (1/5/15 min) before: " + loadBefore + ", after: " + ReportRunner.loadAverage() + "\n"
                + "- run time: " + seconds + " s\n";
        Files.write(out.resolve("machine.md"), machine.getBytes(StandardCharsets.UTF_8));
        NetReport report = new NetReport(results, cores);
        String md = report.render(machine);
        List<String> charts = report.charts(out);
        Files.write(out.resolve("report.md"), (md + "\nCharts: " + String.join(", ", charts) + "\n")
                .getBytes(StandardCharsets.UTF_8));
        Files.write(out.resolve("results.csv"), Csv.of(results).getBytes(StandardCharsets.UTF_8));
        System.out.println();
        System.out.println(md);
        System.out.println("Written to " + out.toAbsolutePath() + ": jmh-result.json, results.csv, report.md, machine.md, "
                + LOG + (charts.isEmpty() ? "" : ", " + String.join(", ", charts)));
        return 0;
    }

    private static int usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: report net [--smoke|--quick|--full] [--out DIR] [--streams N] [--no-veth]");
        return 2;
    }

    static List<Options> plan(Mode mode, int streams, boolean veth) {
        List<Options> runs = new ArrayList<>();
        String[] nets = veth ? new String[] {"loopback", "veth"} : new String[] {"loopback"};
        String[] peers = java.util.Arrays.stream(Peer.values()).map(Peer::param).toArray(String[]::new);
        // seed 003: throughput over sizes, every peer
        runs.add(options(mode, 1, NET + "NetThroughput\\.").param("peer", peers)
                .param("size", mode.throughputSizes).param("net", nets).build());
        // seed 003: latency over sizes
        // (a round trip takes hundreds of µs here, so a time-based warm-up sees few of them: the latency
        // runs get at least 8 x 1 s of warm-up and 5 x 1 s of measurement, or the code is not compiled yet)
        ChainedOptionsBuilder latency = options(mode, 1, NET + "NetLatency\\.");
        if (mode != Mode.SMOKE) {
            latency.warmupIterations(Math.max(mode.warmups, 8))
                    .warmupTime(TimeValue.milliseconds(Math.max(mode.warmupMs, 1000)))
                    .measurementIterations(Math.max(mode.iterations, 5))
                    .measurementTime(TimeValue.milliseconds(Math.max(mode.iterationMs, 1000)));
        }
        runs.add(latency.param("size", mode.latencySizes).param("net", nets).build());
        // seed 003: buffer-size sweep, 6-byte messages, ysuite
        runs.add(options(mode, 1, NET + "NetThroughput\\.").param("peer", "ysuite").param("size", "6")
                .param("bufferSize", mode.bufferSizes).param("net", "loopback").build());
        // seed 004: independent streams (threads >= 2; one stream is the size sweep's row)
        for (int t = 2; t <= streams; t++) {
            runs.add(options(mode, t, NET + "NetThroughput\\.").param("peer", "ysuite", "tcp")
                    .param("size", mode == Mode.SMOKE ? new String[] {"64"} : new String[] {"6", "64", "1024"})
                    .param("net", "loopback").build());
        }
        return runs;
    }

    private static ChainedOptionsBuilder options(Mode mode, int threads, String include) {
        return new OptionsBuilder()
                .include(include)
                .forks(mode.forks)
                .warmupIterations(mode.warmups)
                .warmupTime(TimeValue.milliseconds(Math.max(1, mode.warmupMs)))
                .measurementIterations(mode.iterations)
                .measurementTime(TimeValue.milliseconds(mode.iterationMs))
                .threads(threads)
                .timeout(TimeValue.seconds(60))
                .shouldFailOnError(true)
                .addProfiler(GCProfiler.class)
                .verbosity(VerboseMode.NORMAL);
    }

    /** Seed 002 for every peer, as results of pseudo-benchmarks {@code net.ClientServer.twoway/oneway}. */
    private static List<Result> clientServer(int n, boolean smoke) throws Exception {
        List<Result> out = new ArrayList<>();
        Map<String, Peer[]> modes = new LinkedHashMap<>();
        modes.put("twoway", smoke ? new Peer[] {Peer.YSUITE} : new Peer[] {Peer.YSUITE, Peer.TCP, Peer.JEROMQ, Peer.NETTY_FLUSH});
        modes.put("oneway", smoke ? new Peer[] {Peer.YSUITE} : Peer.values());
        for (Map.Entry<String, Peer[]> m : modes.entrySet()) {
            for (Peer p : m.getValue()) {
                System.out.printf("seed 002 %s %s, %d messages ...%n", m.getKey(), p.param(), n);
                double rate = ClientServer.measure(p, "twoway".equals(m.getKey()), n, "loopback");
                Map<String, String> params = new LinkedHashMap<>();
                params.put("peer", p.param());
                params.put("messages", Integer.toString(n));
                out.add(new Result("org.ysuite.bench.net.ClientServer." + m.getKey(), params, 1, 1e9 / rate,
                        Double.NaN, "ns/op", Double.NaN, new double[] {1e9 / rate}));
            }
        }
        return out;
    }
}
