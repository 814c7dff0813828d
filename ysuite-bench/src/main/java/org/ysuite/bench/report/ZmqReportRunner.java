package org.ysuite.bench.report;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.ysuite.bench.zmq.JeromqPerf;

/**
 * {@code java -jar ysuite-bench.jar report zmq [--quick|--all|--full] [--rounds N] [--out DIR] [--examples-jar JAR]}:
 * libzmq's perf tools as the yardstick. Each pair of programs runs as two processes on loopback tcp
 * with libzmq's command lines ({@code local_thr}/{@code remote_thr} PUSH/PULL for throughput,
 * {@code local_lat}/{@code remote_lat} REQ/REP for latency), and the runner parses the lines they print:
 * ysuite's ({@code ysuite-examples.jar}), libzmq's (our own {@code zmq_perf.c}, compiled here with
 * {@code gcc -O2 ... -lzmq}), JeroMQ's ({@link JeromqPerf}, in this jar). Pairs: ysuite↔ysuite,
 * libzmq↔libzmq, JeroMQ↔JeroMQ, and the mixed ysuite→libzmq and libzmq→ysuite (the first named
 * sends: {@code remote_thr}/{@code remote_lat}). Throughput at 1, 16, 64, 1024 and 65536 B; latency at
 * the same sizes ({@code --quick}: 16 B only, a tenth of the counts, one round). Every round runs
 * every size and pair once, interleaved; the table shows each cell's median over the rounds.
 *
 * <p>Ratios read one way throughout: ysuite's speed over the peer's, so above 1.00 ysuite is faster
 * (throughput: ysuite ÷ peer; latency: peer ÷ ysuite). The load beside the run is printed
 * ({@link Load}). libzmq's tools print the average latency only; the three {@code remote_lat} programs
 * run here also print the 99th percentile of their round trips (halved, as the average is), shown in a
 * table of its own.
 * Writes {@code zmq.md} (the tables) and {@code zmq-runs.csv} (every run) into the output folder.
 */
public final class ZmqReportRunner {

    private static final int[] SIZES = {1, 16, 64, 1024, 65536};
    private static final long RUN_TIMEOUT_S = 90;
    private static final Pattern MSG_S = Pattern.compile("mean throughput: (\\d+) \\[msg/s\\]");
    private static final Pattern LATENCY = Pattern.compile("average latency: ([0-9.]+) \\[us\\]");
    private static final Pattern P99 = Pattern.compile("p99 latency: ([0-9.]+) \\[us\\]");

    /** A pair's sender and receiver (remote and local tool). */
    private enum Pair {
        YSUITE("ysuite↔ysuite", Impl.YSUITE, Impl.YSUITE),
        LIBZMQ("libzmq↔libzmq", Impl.LIBZMQ, Impl.LIBZMQ),
        JEROMQ("JeroMQ↔JeroMQ", Impl.JEROMQ, Impl.JEROMQ),
        YSUITE_TO_LIBZMQ("ysuite→libzmq", Impl.YSUITE, Impl.LIBZMQ),
        LIBZMQ_TO_YSUITE("libzmq→ysuite", Impl.LIBZMQ, Impl.YSUITE);

        final String label;
        /** Runs remote_thr / remote_lat (connects; sends first). */
        final Impl remote;
        /** Runs local_thr / local_lat (binds). */
        final Impl local;

        Pair(String label, Impl remote, Impl local) {
            this.label = label;
            this.remote = remote;
            this.local = local;
        }
    }

    private enum Impl { YSUITE, LIBZMQ, JEROMQ }

    private final Map<Impl, List<String>> commands = new HashMap<>();
    private final List<String> csv = new ArrayList<>(List.of("round,test,size,pair,count,value,unit,note"));
    /** (test, size, pair) → the values of the rounds. */
    private final Map<String, List<Double>> values = new HashMap<>();
    private final Map<String, String> failures = new HashMap<>();

    private ZmqReportRunner() {
    }

    /**
     * Runs the zmq section.
     *
     * @param args the parsed command line: {@code [--quick|--all|--full] [--rounds N] [--out DIR] [--examples-jar JAR]}
     * @return 0 when every run gave a figure, 1 when some failed (the table says which), 2 on bad arguments
     * @throws IOException if the output cannot be written
     */
    static int run(ReportArgs args) throws IOException {
        boolean quick = args.plan(ReportRunner.Mode.FULL) == ReportRunner.Mode.QUICK;
        Path out = args.path(ReportArgs.Option.OUT, Paths.get("results"));
        Path examples = args.path(ReportArgs.Option.EXAMPLES_JAR, null);
        int rounds;
        try {
            rounds = args.intValue(ReportArgs.Option.ROUNDS, quick ? 1 : 2, 1, Integer.MAX_VALUE);
        } catch (IllegalArgumentException e) {
            return ReportArgs.usage(args.section, e.getMessage());
        }
        Files.createDirectories(out);
        return new ZmqReportRunner().execute(quick, rounds, out, examples);
    }

    private int execute(boolean quick, int rounds, Path out, Path examples) throws IOException {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Path benchJar = ownJar();
        Path examplesJar = examples != null ? examples : findExamplesJar(benchJar);
        List<String> notes = new ArrayList<>();
        if (examplesJar != null && Files.isRegularFile(examplesJar)) {
            commands.put(Impl.YSUITE, List.of(java, "-jar", examplesJar.toString()));
        } else {
            notes.add("ysuite left out: ysuite-examples.jar not found (build it: mvn -pl ysuite-examples -am package, or pass --examples-jar)");
        }
        commands.put(Impl.JEROMQ, List.of(java, "-cp", benchJar.toString(), JeromqPerf.class.getName()));
        try {
            commands.put(Impl.LIBZMQ, List.of(buildC(out, "zmq_perf").toString()));
        } catch (IOException e) {
            notes.add("libzmq left out: " + e.getMessage());
        }
        int[] latencySizes = quick ? new int[] {16} : SIZES;
        int cores = Runtime.getRuntime().availableProcessors();
        Load.Sample before = Load.sample();
        long start = System.nanoTime();
        for (int round = 1; round <= rounds; round++) {
            for (int size : SIZES) {
                for (Pair p : Pair.values()) {
                    measure(round, "thr", size, throughputCount(size, quick), p);
                }
            }
            for (int size : latencySizes) {
                for (Pair p : Pair.values()) {
                    measure(round, "lat", size, quick ? 1_000 : 10_000, p);
                }
            }
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        Load load = new Load(cores, before, Load.sample());
        StringBuilder md = new StringBuilder();
        md.append("# ZeroMQ perf tools: ysuite, libzmq, JeroMQ\n\n");
        md.append(String.format(Locale.ROOT, "tcp loopback, %d cores, %s run, median of %d interleaved round(s), %d s. "
                + "Ratios: ysuite's speed ÷ the peer's (throughput ysuite÷peer, latency peer÷ysuite): above 1.00 ysuite is faster.%n",
                cores, quick ? "quick" : "full", rounds, seconds));
        for (String n : notes) {
            md.append("\n").append(n).append('\n');
        }
        md.append("\n## Throughput, mean [msg/s] (local_thr; PUSH/PULL; the first named sends)\n\n");
        table(md, "thr", SIZES);
        md.append("\n## Latency, average [us] (remote_lat; REQ/REP; half a round trip)\n\n");
        table(md, "lat", latencySizes);
        md.append("\n## Latency, p99 [us] (remote_lat; REQ/REP; half a round trip)\n\n");
        table(md, "p99", latencySizes);
        md.append("\n## Load\n\n").append(load.markdown());
        if (!failures.isEmpty()) {
            md.append("\n## Failed runs\n\n");
            failures.forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
        }
        System.out.println();
        System.out.print(md);
        Files.write(out.resolve("zmq.md"), md.toString().getBytes(StandardCharsets.UTF_8));
        Files.write(out.resolve("zmq-runs.csv"), csv, StandardCharsets.UTF_8);
        System.out.println("\nwritten: " + out.resolve("zmq.md") + ", " + out.resolve("zmq-runs.csv"));
        return failures.isEmpty() ? 0 : 1;
    }

    /** Message counts: about a second of libzmq's throughput per run at each size; a tenth with --quick. */
    private static long throughputCount(int size, boolean quick) {
        long n = size <= 64 ? 1_000_000 : size <= 1024 ? 400_000 : 20_000;
        return quick ? n / 10 : n;
    }

    private void table(StringBuilder md, String test, int[] sizes) {
        boolean thr = test.equals("thr");
        md.append("| size [B] |");
        for (Pair p : Pair.values()) {
            md.append(' ').append(p.label).append(" |");
        }
        md.append(" ysuite vs libzmq | ysuite vs JeroMQ | ysuite→libzmq vs libzmq | libzmq→ysuite vs libzmq |\n|---:|");
        md.append("---:|".repeat(Pair.values().length + 4)).append('\n');
        for (int size : sizes) {
            md.append("| ").append(size).append(" |");
            for (Pair p : Pair.values()) {
                md.append(' ').append(cell(test, size, p, thr)).append(" |");
            }
            md.append(' ').append(ratio(test, size, Pair.YSUITE, Pair.LIBZMQ, thr)).append(" |");
            md.append(' ').append(ratio(test, size, Pair.YSUITE, Pair.JEROMQ, thr)).append(" |");
            md.append(' ').append(ratio(test, size, Pair.YSUITE_TO_LIBZMQ, Pair.LIBZMQ, thr)).append(" |");
            md.append(' ').append(ratio(test, size, Pair.LIBZMQ_TO_YSUITE, Pair.LIBZMQ, thr)).append(" |\n");
        }
    }

    private String cell(String test, int size, Pair p, boolean thr) {
        double m = median(test, size, p);
        if (Double.isNaN(m)) {
            return failures.containsKey(key(test, size, p)) ? "failed" : "n/a";
        }
        return thr ? String.format(Locale.ROOT, "%,.0f", m) : String.format(Locale.ROOT, "%.1f", m);
    }

    /** ysuite's speed over the peer's: throughput a÷b, latency b÷a. */
    private String ratio(String test, int size, Pair ours, Pair peer, boolean thr) {
        double a = median(test, size, ours);
        double b = median(test, size, peer);
        if (Double.isNaN(a) || Double.isNaN(b) || a == 0 || b == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f×", thr ? a / b : b / a);
    }

    private double median(String test, int size, Pair p) {
        List<Double> v = values.get(key(test, size, p));
        if (v == null || v.isEmpty()) {
            return Double.NaN;
        }
        double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String key(String test, int size, Pair p) {
        return test + " " + size + " B " + p.label;
    }

    /** Runs one pair once: the local (binding) tool, then the remote one, and parses the printed figure. */
    private void measure(int round, String test, int size, long count, Pair p) {
        List<String> local = commands.get(p.local);
        List<String> remote = commands.get(p.remote);
        if (local == null || remote == null) {
            return;
        }
        String key = key(test, size, p);
        System.out.printf(Locale.ROOT, "round %d: %s (count %d) ...%n", round, key, count);
        String endpoint = "tcp://127.0.0.1:" + freePort();
        String[] tail = {endpoint, Integer.toString(size), Long.toString(count)};
        Process l = null;
        Process r = null;
        try {
            Path lo = Files.createTempFile("zmq-local", ".out");
            Path ro = Files.createTempFile("zmq-remote", ".out");
            try {
                l = start(local, (test.equals("thr") ? "local_thr" : "local_lat"), tail, lo);
                r = start(remote, (test.equals("thr") ? "remote_thr" : "remote_lat"), tail, ro);
                boolean done = r.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS) && l.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS);
                String lout = Files.readString(lo);
                String rout = Files.readString(ro);
                if (!done) {
                    fail(round, key, count, "no end in " + RUN_TIMEOUT_S + " s");
                    return;
                }
                if (l.exitValue() != 0 || r.exitValue() != 0) {
                    fail(round, key, count, "exit " + l.exitValue() + "/" + r.exitValue() + ": " + firstLine(lout + rout));
                    return;
                }
                Matcher m = (test.equals("thr") ? MSG_S.matcher(lout) : LATENCY.matcher(rout));
                if (!m.find()) {
                    fail(round, key, count, "no figure in: " + firstLine(test.equals("thr") ? lout : rout));
                    return;
                }
                double v = Double.parseDouble(m.group(1));
                values.computeIfAbsent(key, k -> new ArrayList<>()).add(v);
                csv.add(String.join(",", Integer.toString(round), test, Integer.toString(size), p.label,
                        Long.toString(count), m.group(1), test.equals("thr") ? "msg/s" : "us", ""));
                Matcher p99 = P99.matcher(rout);
                if (test.equals("lat") && p99.find()) {
                    values.computeIfAbsent(key("p99", size, p), k -> new ArrayList<>()).add(Double.parseDouble(p99.group(1)));
                    csv.add(String.join(",", Integer.toString(round), "p99", Integer.toString(size), p.label,
                            Long.toString(count), p99.group(1), "us", ""));
                }
            } finally {
                Files.deleteIfExists(lo);
                Files.deleteIfExists(ro);
            }
        } catch (IOException e) {
            fail(round, key, count, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(round, key, count, "interrupted");
        } finally {
            stop(r);
            stop(l);
        }
    }

    private void fail(int round, String key, long count, String why) {
        System.out.println("  failed: " + why);
        failures.put(key, "round " + round + ": " + why);
        csv.add(round + "," + key.replace(' ', ',') + "," + count + ",,," + why.replace(',', ';').replace('\n', ' '));
    }

    static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    private static Process start(List<String> command, String tool, String[] tail, Path output) throws IOException {
        List<String> c = new ArrayList<>(command);
        c.add(tool);
        c.addAll(Arrays.asList(tail));
        return new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }

    private static void stop(Process p) {
        if (p != null && p.isAlive()) {
            p.destroyForcibly();
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free tcp port on loopback", e);
        }
    }

    /**
     * Compiles {@code NAME.c} (in this jar beside the C futex floor) with gcc against libzmq into {@code dir}.
     *
     * @param dir the folder for the source, the binary and gcc's log
     * @param name the program's name: {@code zmq_perf} or {@code zmq_peers}
     * @return the binary
     * @throws IOException if the source is not in the jar, or gcc or libzmq is missing or fails
     */
    static Path buildC(Path dir, String name) throws IOException {
        Path src = dir.resolve(name + ".c");
        try (InputStream in = ZmqReportRunner.class.getResourceAsStream("/org/ysuite/bench/ipc/" + name + ".c")) {
            if (in == null) {
                throw new IOException(name + ".c is not in the jar (org/ysuite/bench/ipc/)");
            }
            Files.copy(in, src, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Path bin = dir.resolve(name);
        Path log = dir.resolve(name + "-gcc.log");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-o", bin.toString(), src.toString(), "-lzmq")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IOException("gcc not found on the PATH (and libzmq3-dev needed: .ci/zmq.sh installs both)", e);
        }
        try {
            if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                gcc.destroyForcibly();
                throw new IOException("gcc -lzmq failed (is libzmq3-dev installed? .ci/zmq.sh): " + firstLine(Files.readString(log)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compiling " + name + ".c", e);
        }
        return bin;
    }

    static Path ownJar() {
        try {
            return Paths.get(JeromqPerf.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("where is ysuite-bench's jar?", e);
        }
    }

    /** ysuite-examples/target/ysuite-examples.jar from the working directory, or beside this jar's module. */
    static Path findExamplesJar(Path benchJar) {
        Path here = Paths.get("ysuite-examples", "target", "ysuite-examples.jar");
        if (Files.isRegularFile(here)) {
            return here;
        }
        Path module = benchJar.getParent() == null ? null : benchJar.getParent().getParent();
        if (module != null && module.getParent() != null) {
            Path sibling = module.getParent().resolve("ysuite-examples").resolve("target").resolve("ysuite-examples.jar");
            if (Files.isRegularFile(sibling)) {
                return sibling;
            }
        }
        return null;
    }
}
