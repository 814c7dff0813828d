package org.ysuite.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code java -jar ysuite-bench.jar report [--smoke|--quick|--full] [--out DIR] [--from DIR]
 * [--include REGEX]}:
 * runs the curated seed set (every run with {@code -prof gc}), prints the seed-style tables with
 * the ratios of each y-suite row to every peer of the same run, and writes into the results
 * folder the raw JMH JSON ({@code jmh-result.json}), a CSV ({@code results.csv}), the report as
 * Markdown ({@code report.md}) and the PNG charts. {@code --from DIR} renders an earlier run's
 * folder again without running anything; {@code --include REGEX} runs only the matching
 * benchmarks (one thread) instead of the seed set.
 *
 * <p>Modes: {@code --smoke} runs every benchmark once, briefly (a build check, not a
 * measurement); {@code --quick} (the default) the seed set with short iterations (under ten
 * minutes on two cores); {@code --full} every parameter, longer iterations, two forks.
 */
public final class ReportRunner {

    private static final String PKG = "^org\\.ysuite\\.bench\\.";
    private static final String[] QUICK_SIZES = {"1", "4", "16", "64", "256", "1024", "4096", "16384", "65536"};

    private ReportRunner() {
    }

    /** Run lengths of one mode. */
    private enum Mode {
        SMOKE(0, 0, 1, 100, 1), QUICK(3, 400, 4, 500, 1), FULL(5, 1000, 5, 1000, 2);

        final int warmups;
        final int warmupMs;
        final int iterations;
        final int iterationMs;
        final int forks;

        Mode(int warmups, int warmupMs, int iterations, int iterationMs, int forks) {
            this.warmups = warmups;
            this.warmupMs = warmupMs;
            this.iterations = iterations;
            this.iterationMs = iterationMs;
            this.forks = forks;
        }
    }

    /**
     * Runs the report.
     *
     * @param args {@code [--smoke|--quick|--full] [--out DIR] [--from DIR] [--include REGEX]}
     * @return the process exit code: 0 on success, 1 if a benchmark failed, 2 on bad arguments
     * @throws IOException if the results cannot be written
     */
    public static int run(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Mode mode = Mode.QUICK;
        Path out = Paths.get("results");
        Path from = null;
        String include = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--smoke":
                    mode = Mode.SMOKE;
                    break;
                case "--quick":
                    mode = Mode.QUICK;
                    break;
                case "--full":
                    mode = Mode.FULL;
                    break;
                case "--out":
                    out = Paths.get(args[++i]);
                    break;
                case "--from":
                    from = Paths.get(args[++i]);
                    break;
                case "--include":
                    include = args[++i];
                    break;
                default:
                    System.err.println("usage: report [--smoke|--quick|--full] [--out DIR] [--from DIR] [--include REGEX]");
                    return 2;
            }
        }
        if (from != null) {
            render(from, new String(Files.readAllBytes(from.resolve("machine.md")), StandardCharsets.UTF_8));
            return 0;
        }
        Files.createDirectories(out);
        int cores = Runtime.getRuntime().availableProcessors();
        String loadBefore = loadAverage();
        long start = System.nanoTime();
        List<String> jsons = new ArrayList<>();
        try {
            if (include == null) {
                jsons.add(runJmh(mode, out.resolve("jmh-main.json"), 1,
                        PKG + "(WorstCase|Throughput|SenderBatch|MessageSize|PollOverhead)\\.", PKG + "fd\\."));
                int maxStreams = Math.max(2, cores / 2);
                for (int t = 1; t <= maxStreams; t++) {
                    jsons.add(runJmh(mode, out.resolve("jmh-scaling-" + t + ".json"), t, PKG + "Scaling\\."));
                }
            } else {
                jsons.add(runJmh(mode, out.resolve("jmh-main.json"), 1, include));
            }
        } catch (RunnerException e) {
            e.printStackTrace();
            System.err.println("a benchmark failed");
            return 1;
        }
        Files.write(out.resolve("jmh-result.json"), merge(jsons).getBytes(StandardCharsets.UTF_8));
        for (int t = 0; t < jsons.size(); t++) {
            // the merged file is the raw JMH JSON of the whole run; the per-run files were its parts
            Files.deleteIfExists(out.resolve(t == 0 ? "jmh-main.json" : "jmh-scaling-" + t + ".json"));
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        String machine = machine(mode, cores, loadBefore, loadAverage(), seconds);
        Files.write(out.resolve("machine.md"), machine.getBytes(StandardCharsets.UTF_8));
        render(out, machine);
        return 0;
    }

    private static String runJmh(Mode mode, Path json, int threads, String... includes)
            throws RunnerException, IOException {
        ChainedOptionsBuilder b = new OptionsBuilder()
                .forks(mode.forks)
                .warmupIterations(mode.warmups)
                .warmupTime(TimeValue.milliseconds(Math.max(1, mode.warmupMs)))
                .measurementIterations(mode.iterations)
                .measurementTime(TimeValue.milliseconds(mode.iterationMs))
                .threads(threads)
                .timeout(TimeValue.seconds(60))
                .shouldFailOnError(true)
                .addProfiler(GCProfiler.class)
                .verbosity(VerboseMode.NORMAL)
                .result(json.toString())
                .resultFormat(ResultFormatType.JSON);
        for (String inc : includes) {
            b.include(inc);
        }
        if (mode == Mode.SMOKE) {
            b.param("size", "1", "65536").param("batch", "1", "1024");
        } else if (mode == Mode.QUICK) {
            b.param("size", QUICK_SIZES);
        }
        new Runner(b.build()).run();
        return new String(Files.readAllBytes(json), StandardCharsets.UTF_8);
    }

    private static String merge(List<String> jsons) {
        StringBuilder b = new StringBuilder("[\n");
        boolean first = true;
        for (String j : jsons) {
            String t = j.trim();
            String inner = t.substring(1, t.length() - 1).trim();
            if (inner.isEmpty()) {
                continue;
            }
            if (!first) {
                b.append(",\n");
            }
            b.append(inner);
            first = false;
        }
        return b.append("\n]\n").toString();
    }

    private static void render(Path dir, String machine) throws IOException {
        String json = new String(Files.readAllBytes(dir.resolve("jmh-result.json")), StandardCharsets.UTF_8);
        List<Result> results = Result.fromJson(json);
        int cores = coresFrom(machine);
        Report report = new Report(results, cores);
        String md = report.render(machine);
        List<String> charts = new Charts(report, dir).drawAll();
        StringBuilder full = new StringBuilder(md).append("\nCharts: ");
        full.append(String.join(", ", charts)).append('\n');
        Files.write(dir.resolve("report.md"), full.toString().getBytes(StandardCharsets.UTF_8));
        Files.write(dir.resolve("results.csv"), Csv.of(results).getBytes(StandardCharsets.UTF_8));
        System.out.println();
        System.out.println(full);
        System.out.println("Written to " + dir.toAbsolutePath() + ": jmh-result.json, results.csv, report.md, "
                + String.join(", ", charts));
    }

    private static int coresFrom(String machine) {
        for (String line : machine.split("\n")) {
            if (line.startsWith("- cores: ")) {
                return Integer.parseInt(line.substring("- cores: ".length()).trim().split(" ")[0]);
            }
        }
        return Runtime.getRuntime().availableProcessors();
    }

    private static String machine(Mode mode, int cores, String loadBefore, String loadAfter, long seconds) {
        return "## ysuite benchmark report (" + mode.name().toLowerCase(Locale.ROOT) + " run)\n\n"
                + "- date: " + Instant.now() + "\n"
                + "- cpu: " + cpuModel() + "\n"
                + "- cores: " + cores + "\n"
                + "- jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vendor") + ")\n"
                + "- os: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + "\n"
                + "- jmh: forks " + mode.forks + ", warmup " + mode.warmups + " x " + mode.warmupMs
                + " ms, measurement " + mode.iterations + " x " + mode.iterationMs + " ms, -prof gc\n"
                + "- load average (1/5/15 min) before: " + loadBefore + ", after: " + loadAfter + "\n"
                + "- run time: " + seconds + " s\n";
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    private static String loadAverage() {
        try {
            String[] f = new String(Files.readAllBytes(Paths.get("/proc/loadavg")), StandardCharsets.UTF_8).split(" ");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}
