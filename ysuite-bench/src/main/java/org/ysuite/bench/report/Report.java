package org.ysuite.bench.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.ysuite.bench.support.Transport;

/**
 * Turns the results of one run into the seed-style tables
 * ({@code transport | density [ns/msg] | throughput [msgs/sec]}), each y-suite row's ratio to
 * every peer of the same run, and the check of the project's targets. Every figure is computed
 * from JMH's results as JMH returned them; nothing is adjusted.
 */
final class Report {

    private final List<Result> results;
    private final int cores;
    private final StringBuilder out = new StringBuilder();

    Report(List<Result> results, int cores) {
        this.results = results;
        this.cores = cores;
    }

    static String fmtDensity(double ns) {
        if (Double.isNaN(ns)) {
            return "n/a";
        }
        return ns < 100 ? String.format(Locale.ROOT, "%.1f", ns) : String.format(Locale.ROOT, "%,.0f", ns);
    }

    static String fmtRate(double perSec) {
        return Double.isNaN(perSec) ? "n/a" : String.format(Locale.ROOT, "%,.0f", perSec);
    }

    static String fmtRatio(double r) {
        return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "%.2fx", r);
    }

    static String fmtAlloc(double b) {
        return Double.isNaN(b) ? "n/a" : String.format(Locale.ROOT, "%.2f", b);
    }

    List<Result> of(String scenario) {
        return results.stream().filter(r -> r.scenario.equals(scenario)).collect(Collectors.toList());
    }

    private static final Comparator<Result> ROW_ORDER = Comparator
            .comparing((Result r) -> r.kind.ordinal())
            .thenComparingDouble(r -> r.isYsuite() ? 0 : r.density);

    String render(String header) {
        out.append(header);
        seedTables();
        transportTable(of("WorstCase"), WORST_TITLE, true);
        transportTable(of("Throughput"), THROUGHPUT_TITLE, true);
        senderBatch();
        messageSize();
        pollOverhead();
        sparseTraffic();
        scaling();
        acrossProcesses();
        others();
        new Targets(this, out).render();
        return out.toString();
    }

    /**
     * The headline, for the terminal: seed 000's two tables and the worst-case and throughput
     * tables of every transport of the run (without the ratio matrices, which are in
     * {@link #render(String)}).
     *
     * @return Markdown tables
     */
    String headline() {
        StringBuilder all = out;
        int mark = all.length();
        seedTables();
        transportTable(of("WorstCase"), WORST_TITLE, false);
        transportTable(of("Throughput"), THROUGHPUT_TITLE, false);
        String h = all.substring(mark);
        all.setLength(mark);
        return h.startsWith("\n") ? h.substring(1) : h;
    }

    private static final String WORST_TITLE = "Worst case: one message bounced between two threads, the receiver "
            + "asleep each time (density = one-way time)";
    private static final String THROUGHPUT_TITLE = "Maximal throughput: one writer flushing each message, the reader "
            + "draining in batches and sleeping when empty";

    /** The seed's own three-row tables, this run's figures beside the seed's (2008) ones. */
    private void seedTables() {
        String[][] worst = {
            {"local sockets", "unixSocketChannel", null, null, "6352"},
            {"y-suite (with poll)", "ypipe", "pollset", "0", "3555"},
            {"y-suite (without poll)", "ypipe", "semaphore", "0", "3079"},
        };
        String[][] thr = {
            {"local sockets", "unixSocketChannel", null, null, "1926"},
            {"y-suite (with poll)", "ypipe", "pollset", null, "292"},
            {"y-suite (without poll)", "ypipe", "semaphore", null, "263"},
        };
        seedTable("WorstCase", "Seed 000, worst-case scenario (pure park: the receiver is asleep each time)", worst);
        seedTable("Throughput", "Seed 000, maximal throughput scenario", thr);
    }

    private void seedTable(String scenario, String title, String[][] rows) {
        List<String> lines = new ArrayList<>();
        Result sock = null;
        for (String[] row : rows) {
            Result r = find(x -> x.scenario.equals(scenario) && x.method.equals(row[1])
                    && java.util.Objects.equals(x.param("signaler"), row[2])
                    && java.util.Objects.equals(x.param("spin"), row[3]));
            if (r == null) {
                continue;
            }
            if (row[2] == null) {
                sock = r;
            }
            lines.add("| " + row[0] + ": " + r.label + " | " + fmtDensity(r.density) + " ns/msg"
                    + (r.unstable() == null ? "" : " (*unstable*: " + r.unstable() + ")") + " | "
                    + fmtRate(r.throughput()) + " msgs/sec | "
                    + (sock == null || r == sock ? "1.00x" : fmtRatio(sock.density / r.density)) + " | "
                    + row[4] + " ns/msg |");
        }
        if (lines.isEmpty()) {
            return;
        }
        out.append("\n### ").append(title).append("\n\n| transport | density | throughput "
                + "| times faster than local sockets | seed 000 (Athlon 64 X2, 2008) |\n|---|---:|---:|---:|---:|\n");
        lines.forEach(l -> out.append(l).append('\n'));
    }

    private void transportTable(List<Result> rows, String title) {
        transportTable(rows, title, true);
    }

    private void transportTable(List<Result> rows, String title, boolean ratios) {
        if (rows.isEmpty()) {
            return;
        }
        rows.sort(ROW_ORDER);
        boolean forks = rows.stream().anyMatch(r -> r.forks() > 1);
        out.append("\n### ").append(title).append("\n\n");
        out.append("| transport | kind | density [ns/msg] | throughput [msgs/sec] | ± [ns] | alloc [B/msg] |")
                .append(forks ? " forks | fork means min–max [ns/msg] |" : "").append(" stable? |\n");
        out.append("|---|---|---:|---:|---:|---:|").append(forks ? "---:|---:|" : "").append("---|\n");
        for (Result r : rows) {
            out.append("| ").append(r.label).append(" | ").append(kindName(r.kind)).append(" | ")
                    .append(fmtDensity(r.density)).append(" | ").append(fmtRate(r.throughput()))
                    .append(" | ").append(fmtDensity(r.error)).append(" | ").append(fmtAlloc(r.allocPerMsg))
                    .append(" |");
            if (forks) {
                out.append(' ').append(r.forks()).append(" | ").append(fmtDensity(r.forkMin())).append('–')
                        .append(fmtDensity(r.forkMax())).append(" |");
            }
            out.append(r.unstable() == null ? " yes |" : " *unstable*: " + r.unstable() + " |").append('\n');
        }
        if (rows.stream().anyMatch(r -> r.unstable() != null)) {
            out.append("\nA row marked *unstable* had a JMH error (\"±\") or a spread of its forks' means above ")
                    .append(Math.round(Result.UNSTABLE_FRACTION * 100)).append(" % of its mean: its figure says more "
                    + "about the machine during the run than about the transport, and no target is judged on it. "
                    + "Run the report again on a quieter machine, or that benchmark alone with more iterations "
                    + "(--include).\n");
        }
        if (forks) {
            out.append("\n\"±\" is JMH's 99.9 % confidence interval over every measured iteration of every fork; "
                    + "the last column is the range of the forks' own means (each fork a fresh JVM).\n");
        }
        if (ratios) {
            ratioMatrix(rows);
        }
    }

    private void ratioMatrix(List<Result> rows) {
        List<Result> ys = rows.stream().filter(Result::isYsuite).collect(Collectors.toList());
        List<Result> peers = rows.stream().filter(r -> !r.isYsuite()).collect(Collectors.toList());
        if (ys.isEmpty() || peers.isEmpty()) {
            return;
        }
        out.append("\ny-suite's advantage over each peer of the same run "
                + "(peer density / y-suite density: higher is better; above 1.00x y-suite is faster):\n\n");
        out.append("| peer |");
        ys.forEach(y -> out.append(' ').append(y.label).append(" |"));
        out.append("\n|---|");
        ys.forEach(y -> out.append("---:|"));
        out.append('\n');
        for (Result p : peers) {
            out.append("| ").append(p.label).append(" |");
            for (Result y : ys) {
                out.append(' ').append(fmtRatio(p.density / y.density)).append(" |");
            }
            out.append('\n');
        }
    }

    static String kindName(Transport.Kind k) {
        switch (k) {
            case YSUITE:
                return "y-suite";
            case BLOCKING:
                return "blocking peer";
            case BUSY_SPIN:
                return "busy-spin peer";
            case POLLING:
                return "sleeping-poll peer";
            case SOCKET:
                return "local socket";
            default:
                return "baseline";
        }
    }

    private void senderBatch() {
        List<Result> rows = of("SenderBatch");
        if (rows.isEmpty()) {
            return;
        }
        Map<Integer, Map<String, Result>> byBatch = new TreeMap<>();
        List<String> labels = new ArrayList<>();
        for (Result r : rows) {
            byBatch.computeIfAbsent(r.intParam("batch"), k -> new LinkedHashMap<>()).put(r.label, r);
            if (!labels.contains(r.label)) {
                labels.add(r.label);
            }
        }
        out.append("\n### Sender-side batching: write N messages, flush once\n\n| batch |");
        labels.forEach(l -> out.append(' ').append(l).append(" [ns/msg] | ").append(l).append(" [msgs/sec] |"));
        out.append("\n|---:|");
        labels.forEach(l -> out.append("---:|---:|"));
        out.append('\n');
        byBatch.forEach((batch, m) -> {
            out.append("| ").append(batch).append(" |");
            for (String l : labels) {
                Result r = m.get(l);
                out.append(' ').append(r == null ? "" : fmtDensity(r.density)).append(" | ")
                        .append(r == null ? "" : fmtRate(r.throughput())).append(" |");
            }
            out.append('\n');
        });
        String alloc = rows.stream().map(r -> fmtAlloc(r.allocPerMsg)).distinct().collect(Collectors.joining(", "));
        out.append("\nAllocation per message over all batch sizes: ").append(alloc).append(" B/msg.\n");
    }

    private void messageSize() {
        List<Result> rows = of("MessageSize");
        if (rows.isEmpty()) {
            return;
        }
        Map<Integer, Map<String, Result>> bySize = new TreeMap<>();
        for (Result r : rows) {
            bySize.computeIfAbsent(r.intParam("size"), k -> new LinkedHashMap<>()).put(r.method, r);
        }
        out.append("\n### Message size through OffHeapYPipe (one flush per message) against a memory copy\n\n");
        out.append("| size [B] | density [ns/msg] | throughput [msgs/sec] | throughput [Mb/s] "
                + "| latency one-way [ns] | memory copy [ns] | memory copy [Mb/s] | pipe / copy "
                + "| copy through 1 MiB ring [Mb/s] | pipe / ring copy | zero-copy [Mb/s] | zero-copy / copy "
                + "| alloc [B/msg] |\n");
        out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        bySize.forEach((size, m) -> {
            Result t = m.get("throughput");
            Result l = m.get("latency");
            Result c = m.get("memoryCopy");
            Result rc = m.get("memoryCopyRing");
            Result z = m.get("zeroCopy");
            out.append("| ").append(size)
                    .append(" | ").append(t == null ? "" : fmtDensity(t.density))
                    .append(" | ").append(t == null ? "" : fmtRate(t.throughput()))
                    .append(" | ").append(t == null ? "" : fmtRate(mbps(size, t.density)))
                    .append(" | ").append(l == null ? "" : fmtDensity(l.density))
                    .append(" | ").append(c == null ? "" : fmtDensity(c.density))
                    .append(" | ").append(c == null ? "" : fmtRate(mbps(size, c.density)))
                    .append(" | ").append(t == null || c == null ? "" : fmtRatio(c.density / t.density))
                    .append(" | ").append(rc == null ? "" : fmtRate(mbps(size, rc.density)))
                    .append(" | ").append(t == null || rc == null ? "" : fmtRatio(rc.density / t.density))
                    .append(" | ").append(z == null ? "" : fmtRate(mbps(size, z.density)))
                    .append(" | ").append(z == null || c == null ? "" : fmtRatio(c.density / z.density))
                    .append(" | ").append(t == null ? "" : fmtAlloc(t.allocPerMsg))
                    .append(" |\n");
        });
        out.append("\n\"pipe / copy\" is the pipe's throughput in bytes over one thread's System.arraycopy of the "
                + "same size between the same two arrays (cache-hot: the strict baseline of the target); "
                + "\"pipe / ring copy\" compares with one thread copying into successive positions of a buffer "
                + "as large as the pipe's 1 MiB ring. The pipe copies each message twice (writer into the ring, "
                + "reader out of it), on two threads; its zero-copy path (claim/commit, the reader's view) copies "
                + "once.\n");
    }

    static double mbps(int sizeBytes, double densityNs) {
        return sizeBytes * 8.0 / densityNs * 1e3;
    }

    private void pollOverhead() {
        List<Result> rows = of("PollOverhead");
        if (rows.isEmpty()) {
            return;
        }
        rows.sort(Comparator.comparing((Result r) -> r.param("spin")).thenComparingDouble(r -> r.density));
        out.append("\n### Poll overhead: a signal bounced between two threads (no pipe; one-way)\n\n");
        out.append("| signaler | density [ns/signal] | signals/sec | ± [ns] | advantage over YSemaphore (same spin) |\n");
        out.append("|---|---:|---:|---:|---:|\n");
        for (Result r : rows) {
            Result sem = find(x -> x.scenario.equals("PollOverhead") && "semaphore".equals(x.param("signaler"))
                    && r.param("spin").equals(x.param("spin")));
            out.append("| ").append(r.label).append(" | ").append(fmtDensity(r.density)).append(" | ")
                    .append(fmtRate(r.throughput())).append(" | ").append(fmtDensity(r.error)).append(" | ")
                    .append(sem == null ? "" : fmtRatio(Targets.advantage(r.density, sem.density, false)))
                    .append(" |\n");
        }
        out.append("\nThe last column is YSemaphore's density / this row's: higher is better; above 1.00x this "
                + "signaler is cheaper.\n");
    }

    private void sparseTraffic() {
        List<Result> rows = of("SparseTraffic");
        if (rows.isEmpty()) {
            return;
        }
        rows.sort(Comparator.comparingInt((Result r) -> r.intParam("rate"))
                .thenComparing((Result r) -> !r.isYsuite()).thenComparing(r -> r.label));
        out.append("\n### Sparse traffic: what a sleeping reader costs (one message every 1/rate s)\n\n");
        out.append("| rate [msgs/sec] | transport | reader CPU [% of a core] | one-way latency [ns] |\n");
        out.append("|---:|---|---:|---:|\n");
        for (Result r : rows) {
            int rate = r.intParam("rate");
            double lat = r.secondary("latencyNs");
            out.append("| ").append(rate == 0 ? "idle" : fmtRate(rate)).append(" | ").append(r.label)
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f", r.secondary("readerCpuPercent")))
                    .append(" | ").append(rate == 0 ? "" : fmtDensity(lat)).append(" |\n");
        }
        out.append("\nReader CPU is the reader thread's CPU time (ThreadMXBean) over wall time; latency is the "
                + "mean from the send to the reader's receipt. A reader that wins latency by spinning pays "
                + "for it in the CPU column.\n");
    }

    private void scaling() {
        List<Result> rows = of("Scaling");
        if (rows.isEmpty()) {
            return;
        }
        rows.sort(Comparator.comparingInt(r -> r.threads));
        Result one = rows.stream().filter(r -> r.threads == 1).findFirst().orElse(null);
        out.append("\n### Scaling: independent streams (a writer and a reader thread each, own YPipe + YSemaphore)\n\n");
        out.append("| streams | threads | per-stream density [ns/msg] | aggregate throughput [msgs/sec] "
                + "| vs 1 stream | note |\n|---:|---:|---:|---:|---:|---|\n");
        for (Result r : rows) {
            double agg = r.threads * 1e9 / r.density;
            double base = one == null ? Double.NaN : 1e9 / one.density;
            out.append("| ").append(r.threads).append(" | ").append(2 * r.threads).append(" | ")
                    .append(fmtDensity(r.density)).append(" | ").append(fmtRate(agg)).append(" | ")
                    .append(fmtRatio(agg / base)).append(" | ")
                    .append(2 * r.threads > cores ? "more threads than the " + cores
                            + " cores: not meaningful" : "").append(" |\n");
        }
        if (cores < 4) {
            out.append("\nThis machine has ").append(cores).append(" cores: one stream already takes them all, "
                    + "so these figures say nothing about scaling.\n");
        }
    }

    private void others() {
        Map<String, List<Result>> rest = new TreeMap<>();
        for (Result r : results) {
            switch (r.scenario) {
                case "WorstCase": case "Throughput": case "SenderBatch": case "MessageSize":
                case "PollOverhead": case "Scaling": case "SparseTraffic":
                case IPC_WORST: case IPC_THROUGHPUT: case IPC_IDLE: case AeronIdleTable.SCENARIO:
                    break;
                default:
                    rest.computeIfAbsent(r.scenario, k -> new ArrayList<>()).add(r);
            }
        }
        rest.forEach((scenario, rows) -> {
            out.append("\n### ").append(scenario).append("\n\n| benchmark | params | score | ± | unit | alloc [B/op] |\n");
            out.append("|---|---|---:|---:|---|---:|\n");
            for (Result r : rows) {
                out.append("| ").append(r.method).append(" | ").append(r.params).append(" | ")
                        .append(fmtDensity(r.density)).append(" | ").append(fmtDensity(r.error)).append(" | ")
                        .append(r.unit).append(" | ").append(fmtAlloc(r.allocPerMsg)).append(" |\n");
            }
        });
    }

    static final String IPC_WORST = "ipc.IpcWorstCase";
    static final String IPC_THROUGHPUT = "ipc.IpcThroughput";
    static final String IPC_IDLE = "ipc.IpcIdle";

    /** The "Across processes" section: the ipc benchmarks, each peer's reader in another JVM. */
    private void acrossProcesses() {
        if (of(IPC_WORST).isEmpty() && of(IPC_THROUGHPUT).isEmpty() && of(IPC_IDLE).isEmpty()
                && of(AeronIdleTable.SCENARIO).isEmpty()) {
            return;
        }
        out.append("\n## Across processes\n\nThe benchmark's JVM is one side, a child JVM (same jar) the other; "
                + "Aeron's media driver runs embedded in the benchmark's JVM with its default settings. "
                + "The alloc column counts every thread of the benchmark's JVM (the Aeron driver's too), not the child's.\n");
        transportTable(of(IPC_WORST), "Across processes, worst case: one 8-byte message bounced between two "
                + "processes, each side waiting each time (density = one-way time)");
        Result floor = find(r -> r.scenario.equals(IPC_WORST) && r.method.equals("cFutexFloor"));
        if (floor != null) {
            out.append("\nThe C floor's rows include one request and answer over the program's pipes per ")
                    .append("2,000 round trips; its own timing without them (floorOneWayNs): ");
            out.append(of(IPC_WORST).stream().filter(r -> r.method.equals("cFutexFloor"))
                    .map(r -> r.label + " " + fmtDensity(r.secondary("floorOneWayNs")) + " ns")
                    .collect(Collectors.joining(", "))).append(".\n");
        } else if (!of(IPC_WORST).isEmpty()) {
            out.append("\nNo C futex floor in this run: it needs gcc on the PATH (the runner says when it leaves it out).\n");
        }
        Map<Integer, List<Result>> bySize = new TreeMap<>();
        for (Result r : of(IPC_THROUGHPUT)) {
            bySize.computeIfAbsent(r.intParam("bytes"), k -> new ArrayList<>()).add(r);
        }
        bySize.forEach((bytes, rows) -> transportTable(rows, "Across processes, maximal throughput, " + bytes
                + "-byte messages: one flush per message, the child counting and acknowledging every 1024"));
        List<Result> idle = of(IPC_IDLE);
        if (!idle.isEmpty()) {
            idle.sort(ROW_ORDER);
            out.append("\n### Across processes, idle reader: CPU over an idle period (nothing sent), % of one core\n\n")
                    .append("| transport | kind | reader thread | reader's whole JVM | Aeron media driver (other JVM) |\n")
                    .append("|---|---|---:|---:|---:|\n");
            for (Result r : idle) {
                out.append("| ").append(r.label).append(" | ").append(kindName(r.kind)).append(" | ")
                        .append(pct(r.secondary("readerCpuPercent"))).append(" | ")
                        .append(pct(r.secondary("processCpuPercent"))).append(" | ")
                        .append(pct(r.secondary("driverCpuPercent"))).append(" |\n");
            }
            out.append("\nCPU time from /proc/<pid>/task/<tid>/schedstat over the idle period (after a burst of "
                    + "4,096 messages); the whole JVM includes its JIT, GC and (Aeron) client conductor threads.\n");
        }
        AeronIdleTable.render(of(AeronIdleTable.SCENARIO), out);
    }

    static String pct(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
    }

    Result find(Predicate<Result> p) {
        return results.stream().filter(p).findFirst().orElse(null);
    }

    /** The row of the scenario matching {@code p} with the lowest density, or null. */
    Result best(String scenario, Predicate<Result> p) {
        return results.stream().filter(r -> r.scenario.equals(scenario)).filter(p)
                .min(Comparator.comparingDouble(r -> r.density)).orElse(null);
    }

    /** Every result of the run. */
    List<Result> all() {
        return results;
    }
}
