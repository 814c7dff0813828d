package org.ysuite.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code java -jar ysuite-bench.jar report [--seed|--all|--full|--smoke] [--out DIR] [--from DIR]
 * [--include REGEX]} ({@code report net|amqp|zmq|zmq-peers ...} runs that section instead; every
 * section's command line is parsed by {@link ReportArgs}):
 * runs the curated seed set through JMH's {@link Runner} API (every run with {@code -prof gc}),
 * reads the scores from the {@link RunResult}s it returns, prints the seed-style tables with the
 * ratios of each y-suite row to every peer of the same run, and writes into the results folder
 * the raw JMH JSON ({@code jmh-result.json}, written by JMH), JMH's own output ({@code jmh.log}),
 * a CSV ({@code results.csv}), the report as Markdown ({@code report.md}) and the PNG charts.
 * While JMH runs, the terminal shows one progress line per benchmark and nothing else; then the
 * headline tables (seed 000's two scenarios against local sockets and the peers), the load the run
 * had beside it (with a one-line warning when the machine was busy: {@link Load}) and the files.
 * {@code --from DIR} renders an earlier run's folder again without running anything (reading
 * JMH's JSON back with Gson); {@code --include REGEX} runs only the matching benchmarks (one
 * thread, the mode's headline fork count) instead of the seed set. The {@code VirtualThreads}
 * benchmark is in the seed set on JDK 21 and newer only (the report says so on older JDKs).
 *
 * <p>Modes: {@code --seed} (the default) the headline only: seed 000's two scenarios, worst case and
 * maximal throughput, YPipe with YSemaphore and YPollset against local sockets and every peer,
 * two forks, each 5 warm-up iterations of 0.4 s and 8 measured iterations of 0.25 s (about five
 * minutes on two cores). The warm-up is long enough for the pipes' reader loops to be compiled and
 * their adaptive policies to have settled (a flush-per-message YPipe takes 0.5 to 1 s of a fresh
 * JVM on a 2-vCPU guest to reach its steady rate: after 0.4 s of warm-up the first measured
 * iterations still ran at several times it); two forks and 16 iterations give JMH's error an
 * honest width, and the report marks a row whose error or fork spread is large "unstable"
 * ({@link Result#unstable()}) instead of judging a target on it; {@code --smoke} runs every benchmark once, briefly (a build check, not a
 * measurement); {@code --all} every scenario of the seed set with short iterations (about ten
 * minutes on two cores; {@code --quick} is its former name); {@code --full} every parameter, longer
 * iterations, two forks, and three forks for the headline scenarios, whose tables then show the
 * spread of the fork means.
 */
public final class ReportRunner {

    private static final String PKG = "^org\\.ysuite\\.bench\\.";
    /** The headline scenarios: run with {@link Mode#headlineForks} forks, reported with their spread. */
    private static final String HEADLINE = "WorstCase|Throughput";
    /** The signalers of the seed's y-suite rows (with poll: YPollset; without: YSemaphore). */
    private static final String[] SEED_SIGNALERS = {"pollset", "semaphore"};
    private static final String REST = "SenderBatch|MessageSize|PollOverhead|SparseTraffic|FanIn|netty\\.LoopHandOff|profile\\.OneThread";
    /** JMH's raw results of the whole report, written by JMH. */
    private static final String JSON = "jmh-result.json";
    /** JMH's own text output (with the forked VMs' output and the profilers' tables). */
    private static final String LOG = "jmh.log";
    /** The first JDK with virtual threads: the VirtualThreads benchmark joins the plan from it. */
    static final int VIRTUAL_THREADS_JDK = 21;
    /** The C futex floor of the cross-process worst case, left out where gcc is missing. */
    private static final String FLOOR = PKG + "ipc\\.IpcWorstCase\\.cFutexFloor";
    private static final String[] QUICK_SIZES = {"1", "4", "16", "64", "256", "1024", "4096", "16384", "65536"};

    private ReportRunner() {
    }

    /** Run lengths of one mode; the headline scenarios (worst case, throughput) get their own fork count. */
    enum Mode {
        SEED(5, 400, 8, 250, 2, 2), SMOKE(0, 0, 1, 100, 1, 1), QUICK(3, 400, 4, 500, 1, 1), FULL(5, 1000, 5, 1000, 2, 3);

        final int warmups;
        final int warmupMs;
        final int iterations;
        final int iterationMs;
        final int forks;
        final int headlineForks;

        Mode(int warmups, int warmupMs, int iterations, int iterationMs, int forks, int headlineForks) {
            this.warmups = warmups;
            this.warmupMs = warmupMs;
            this.iterations = iterations;
            this.iterationMs = iterationMs;
            this.forks = forks;
            this.headlineForks = headlineForks;
        }
    }

    /**
     * Runs the report.
     *
     * @param args the arguments after {@code report}: a section's word, a plan and options ({@link ReportArgs})
     * @return the process exit code: 0 on success, 1 if a benchmark failed, 2 on bad arguments
     * @throws IOException if the results cannot be written
     */
    public static int run(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        if (java.util.Arrays.stream(args).anyMatch(Help::isHelp)) {
            System.out.print(Help.text()); // the one help, for every section
            return 0;
        }
        ReportArgs line;
        try {
            line = ReportArgs.parse(args);
        } catch (IllegalArgumentException e) {
            return ReportArgs.usage(ReportArgs.sectionOf(args), e.getMessage());
        }
        switch (line.section) {
            case NET:
                return NetReportRunner.run(line);
            case AMQP:
                return AmqpReportRunner.run(line);
            case ZMQ:
                return ZmqReportRunner.run(line);
            case ZMQ_PEERS:
                return ZmqPeersRunner.run(line);
            default:
                break;
        }
        Mode mode = line.plan(Mode.SEED);
        Path out = line.path(ReportArgs.Option.OUT, null); // default: a new folder under RESULTS
        Path from = line.path(ReportArgs.Option.FROM, null);
        String include = line.value(ReportArgs.Option.INCLUDE);
        if (from != null) {
            String json = new String(Files.readAllBytes(from.resolve(JSON)), StandardCharsets.UTF_8);
            render(from, new String(Files.readAllBytes(from.resolve("machine.md")), StandardCharsets.UTF_8),
                    Result.fromJmhJson(json));
            return 0;
        }
        int cores = Runtime.getRuntime().availableProcessors();
        List<Options> runs = plan(mode, include, cores);
        boolean ownFolder = out == null;
        out = ownFolder ? RunFolder.create(RESULTS, java.time.LocalDateTime.now()) : out;
        Files.createDirectories(out);
        System.out.println(describe(mode, include, runs, cores));
        Load.Sample loadBefore = Load.sample();
        long start = System.nanoTime();
        if (include == null && mode != Mode.SEED && Runtime.version().feature() < VIRTUAL_THREADS_JDK) {
            System.out.println("VirtualThreads left out: it needs JDK " + VIRTUAL_THREADS_JDK
                    + "+, this is JDK " + Runtime.version().feature() + " (run the report with a newer java)");
        }
        if (include != null && !org.ysuite.bench.ipc.IpcWorstCase.floorBuildable()) {
            System.out.println("C futex floor (ipc.IpcWorstCase.cFutexFloor) left out: gcc was not found on the PATH");
        }
        List<RunResult> all = new ArrayList<>();
        if (!runJmh(runs, out, "ysuite report (" + name(mode) + " run)", all, null)) {
            return 1;
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        String machine = machine(mode, cores, new Load(cores, loadBefore, Load.sample()), seconds);
        Files.write(out.resolve("machine.md"), machine.getBytes(StandardCharsets.UTF_8));
        render(out, machine, all.stream().map(Result::of).collect(Collectors.toList()));
        if (ownFolder) {
            Path latest = RunFolder.markLatest(RESULTS, out);
            if (latest != null) {
                System.out.println("This run: " + out + " (" + latest + " points to it; earlier runs are kept beside it)");
            }
        }
        return 0;
    }

    /** The default base folder of the report's runs (each in a folder of its own: {@link RunFolder}). */
    static final Path RESULTS = Paths.get("results");
    /** A forked JVM's start, its benchmark's set-up and tear-down, on a loaded 2-core machine. */
    private static final double FORK_OVERHEAD_S = 1.5;

    /**
     * What a report is about to start: the plan, its benchmarks (parameter sets) and forks, the
     * run lengths and the time it will take, about (each fork's iterations and
     * {@value #FORK_OVERHEAD_S} s to start it).
     *
     * @param mode the plan
     * @param include the {@code --include} regex, or null
     * @param runs the plan's JMH runs
     * @param cores this machine's cores
     * @return one paragraph, to print before the run starts
     */
    static String describe(Mode mode, String include, List<Options> runs, int cores) {
        Progress count = new Progress(OutputFormatFactory.createFormatInstance(
                new PrintStream(java.io.OutputStream.nullOutputStream()), VerboseMode.SILENT), System.out);
        runs.forEach(count::plan);
        double perFork = (mode.warmups * (double) mode.warmupMs + mode.iterations * (double) mode.iterationMs) / 1000
                + FORK_OVERHEAD_S;
        long minutes = Math.max(1, Math.round(count.totalForks() * perFork / 60));
        return String.format(Locale.ROOT, "Plan --%s%s: %d benchmarks (parameter sets), %d forked JVMs; each fork "
                + "warms up %d x %d ms and measures %d x %d ms. About %d min on %d cores (longer on a busy machine); "
                + "JMH's own output goes to the results folder's %s.", name(mode),
                include == null ? "" : " (only --include " + include + ")", count.total(), count.totalForks(),
                mode.warmups, mode.warmupMs, mode.iterations, mode.iterationMs, minutes, cores, LOG);
    }

    /** Something to run after JMH, with JMH's log open (for its failure). */
    interface After {
        /**
         * Runs.
         *
         * @param log JMH's log, to print a failure into
         * @throws Exception if it fails
         */
        void run(PrintStream log) throws Exception;
    }

    /**
     * Runs JMH {@code runs} with one progress line per benchmark on the terminal and JMH's own
     * output in {@code out/jmh.log}, then {@code after} (if any), and writes JMH's raw results as
     * {@code out/jmh-result.json}.
     *
     * @return {@code false} (after saying so) if a benchmark or {@code after} failed
     */
    static boolean runJmh(List<Options> runs, Path out, String title, List<RunResult> all, After after)
            throws IOException {
        Path logFile = out.resolve(LOG);
        try (PrintStream logStream = new PrintStream(Files.newOutputStream(logFile), true, StandardCharsets.UTF_8)) {
            Progress progress = new Progress(OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL),
                    System.out);
            runs.forEach(progress::plan);
            System.out.println(title + ": " + progress.total() + " benchmarks; JMH's output goes to " + logFile);
            try {
                for (Options o : runs) {
                    all.addAll(new Runner(o, progress).run());
                }
                if (after != null) {
                    after.run(logStream);
                }
            } catch (Exception e) {
                e.printStackTrace(logStream);
                System.err.println("a benchmark failed: " + e + " (JMH's output: " + logFile + ")");
                return false;
            }
        }
        // JMH writes the raw results of every run as one JSON document
        ResultFormatFactory.getInstance(ResultFormatType.JSON, out.resolve(JSON).toString()).writeOut(all);
        return true;
    }

    /**
     * The JMH runs of a report: the headline scenarios with their own fork count (when it differs),
     * the rest of the seed set, then the scaling benchmark once per stream count.
     */
    static List<Options> plan(Mode mode, String include, int cores) {
        return plan(mode, include, cores, Runtime.version().feature());
    }

    /** As {@link #plan(Mode, String, int)} on a JDK of the given feature release. */
    static List<Options> plan(Mode mode, String include, int cores, int jdk) {
        List<Options> runs = new ArrayList<>();
        if (include != null) {
            // A chosen subset is usually a headline re-run: it gets the headline fork count.
            runs.add(options(mode, mode.headlineForks, 1, include));
            return runs;
        }
        if (mode == Mode.SEED) {
            runs.add(options(mode, mode.forks, 1, PKG + "(" + HEADLINE + ")\\.")); // signalers: options()
            return runs;
        }
        String fd = PKG + "fd\\.";
        // Virtual threads exist from JDK 21; VirtualThreads fails on older JDKs, so it is left out.
        String rest = jdk >= VIRTUAL_THREADS_JDK ? REST + "|VirtualThreads" : REST;
        if (mode.headlineForks == mode.forks) {
            runs.add(options(mode, mode.forks, 1, PKG + "(" + HEADLINE + "|" + rest + ")\\.", fd));
        } else {
            runs.add(options(mode, mode.headlineForks, 1, PKG + "(" + HEADLINE + ")\\."));
            runs.add(options(mode, mode.forks, 1, PKG + "(" + rest + ")\\.", fd));
        }
        int maxStreams = Math.max(2, cores / 2);
        for (int t = 1; t <= maxStreams; t++) {
            runs.add(options(mode, mode.forks, t, PKG + "Scaling\\."));
        }
        return runs;
    }

    /**
     * The JMH options every section's runs share: the run lengths, forks and threads given, a
     * timeout, failing on a benchmark's error, {@code -prof gc}.
     */
    static ChainedOptionsBuilder jmh(int forks, int warmups, int warmupMs, int iterations, int iterationMs, int threads,
                                     int timeoutS) {
        return new OptionsBuilder()
                .forks(forks)
                .warmupIterations(warmups)
                .warmupTime(TimeValue.milliseconds(Math.max(1, warmupMs)))
                .measurementIterations(iterations)
                .measurementTime(TimeValue.milliseconds(iterationMs))
                .threads(threads)
                .timeout(TimeValue.seconds(timeoutS))
                .shouldFailOnError(true)
                .addProfiler(GCProfiler.class)
                .verbosity(VerboseMode.NORMAL);
    }

    private static Options options(Mode mode, int forks, int threads, String... includes) {
        ChainedOptionsBuilder b = jmh(forks, mode.warmups, mode.warmupMs, mode.iterations, mode.iterationMs, threads, 60);
        for (String inc : includes) {
            b.include(inc);
        }
        if (!org.ysuite.bench.ipc.IpcWorstCase.floorBuildable()) {
            b.exclude(FLOOR); // the C floor needs gcc; run() says it is left out
        }
        if (mode == Mode.SMOKE) {
            b.param("size", "1", "65536").param("batch", "1", "1024");
            // the cross-process rows: one size, a short idle period
            b.param("bytes", "8").param("idleMillis", "200");
        } else if (mode == Mode.QUICK) {
            b.param("size", QUICK_SIZES);
        } else if (mode == Mode.SEED) {
            b.param("signaler", SEED_SIGNALERS);
        }
        return b.build();
    }

    /**
     * Writes {@code report.md} (the tables, then the charts embedded), {@code results.csv} and the
     * charts into {@code dir}, and prints the headline tables, the load and the files written.
     */
    private static void render(Path dir, String machine, List<Result> results) throws IOException {
        int cores = coresFrom(machine);
        Report report = new Report(results, cores);
        String md = report.render(machine);
        List<Charts.Chart> charts = Charts.orNone(new Charts(report, dir, Charts.caption(machine))::drawAll);
        StringBuilder full = new StringBuilder(md);
        if (!charts.isEmpty()) {
            full.append("\n## Charts\n");
            charts.forEach(c -> full.append("\n![").append(c.title).append("](").append(c.file).append(")\n"));
        }
        Files.write(dir.resolve("report.md"), full.toString().getBytes(StandardCharsets.UTF_8));
        Files.write(dir.resolve("results.csv"), Csv.of(results).getBytes(StandardCharsets.UTF_8));
        System.out.println();
        System.out.print(new Report(results, cores).headline());
        System.out.println();
        for (String line : machine.split("\n")) {
            if (line.startsWith("- load: ") || line.startsWith("**WARNING")) {
                System.out.println(line.replace("**", "").replaceFirst("^- load: ", "Load: "));
            }
        }
        List<String> files = new ArrayList<>(List.of(JSON));
        if (Files.exists(dir.resolve(LOG))) {
            files.add(LOG);
        }
        files.addAll(List.of("machine.md", "results.csv", "report.md"));
        charts.forEach(c -> files.add(c.file));
        System.out.println("All tables: " + dir.resolve("report.md"));
        System.out.println("Written to " + dir.toAbsolutePath() + ": " + String.join(", ", files));
    }

    private static String name(Mode mode) {
        return mode == Mode.QUICK ? "all" : mode.name().toLowerCase(Locale.ROOT);
    }

    private static int coresFrom(String machine) {
        for (String line : machine.split("\n")) {
            if (line.startsWith("- cores: ")) {
                return Integer.parseInt(line.substring("- cores: ".length()).trim().split(" ")[0]);
            }
        }
        return Runtime.getRuntime().availableProcessors();
    }

    private static String machine(Mode mode, int cores, Load load, long seconds) {
        return "## ysuite benchmark report (" + name(mode) + " run)\n\n"
                + "- date: " + Instant.now() + "\n"
                + machineLines(cores)
                + "- jmh: forks " + mode.forks + (mode.headlineForks == mode.forks ? ""
                        : " (" + mode.headlineForks + " for the worst-case and throughput scenarios)") + ", warmup " + mode.warmups + " x " + mode.warmupMs
                + " ms, measurement " + mode.iterations + " x " + mode.iterationMs + " ms, -prof gc\n"
                + "- run time: " + seconds + " s\n"
                + load.markdown();
    }

    /** The machine's lines of every section's {@code machine.md}: cpu, cores, jdk, os. */
    static String machineLines(int cores) {
        return "- cpu: " + cpuModel() + "\n"
                + "- cores: " + cores + "\n"
                + "- jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vendor") + ")\n"
                + "- os: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + "\n";
    }

    static String cpuModel() {
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

    static String loadAverage() {
        try {
            String[] f = new String(Files.readAllBytes(Paths.get("/proc/loadavg")), StandardCharsets.UTF_8).split(" ");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}
