package org.ysuite.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The load a report ran under, from Linux's {@code /proc}: the load averages before and after
 * ({@code /proc/loadavg}), and the CPU that everything but the report used meanwhile, computed
 * as the whole machine's busy time ({@code /proc/stat}) less this JVM's own CPU time and that of
 * its finished children, the JMH forks ({@code /proc/self/stat}: utime, stime, cutime, cstime).
 * Hypervisor steal is counted apart. The busiest other processes are named from
 * {@code /proc/<pid>/stat}.
 *
 * <p>The load averages are reported but not judged: they count the report's own benchmark
 * threads, and right after a build the one-minute average still holds the build.
 *
 * <p>Not Linux: every figure is "n/a" and no warning is given.
 */
final class Load {

    /**
     * The warning threshold, in cores, on top of the cores the benchmark leaves free: the
     * benchmarks run two busy threads (a writer and a reader, or two ends of a ping-pong), so on
     * {@code n} cores other work up to {@code n - 2} cores leaves them alone; beyond that, by this
     * much on average (a fifth of a core), the pair shares a core with someone else often enough
     * that the worst case (a wake-up per message) moves by several times, and the throughput rows
     * with it. An idle machine's own background stays well under it.
     */
    static final double SPARE_CORES_MARGIN = 0.2;
    /** Threads a benchmark keeps busy. */
    private static final int BENCHMARK_THREADS = 2;
    /** Linux's USER_HZ, the unit of the per-process times in /proc (100 on every mainstream architecture). */
    private static final double USER_HZ = 100;

    /** One look at /proc. */
    static final class Sample {
        final String loadAverage;
        final long nanos;
        /** Jiffies of all CPUs together: busy (user, nice, system, irq, softirq), steal, everything. */
        final long busy;
        final long steal;
        final long total;
        /** This JVM's CPU time plus its reaped children's, in USER_HZ ticks. */
        final long self;
        /** Every other process's CPU time (ticks) and name by pid. */
        final Map<Long, Long> processTicks;
        final Map<Long, String> processNames;

        Sample(String loadAverage, long nanos, long busy, long steal, long total, long self,
               Map<Long, Long> processTicks, Map<Long, String> processNames) {
            this.loadAverage = loadAverage;
            this.nanos = nanos;
            this.busy = busy;
            this.steal = steal;
            this.total = total;
            this.self = self;
            this.processTicks = processTicks;
            this.processNames = processNames;
        }
    }

    private final int cores;
    private final Sample before;
    private final Sample after;

    Load(int cores, Sample before, Sample after) {
        this.cores = cores;
        this.before = before;
        this.after = after;
    }

    /** Looks at /proc now. */
    static Sample sample() {
        long busy = -1;
        long steal = -1;
        long total = -1;
        try {
            String cpu = Files.readAllLines(Paths.get("/proc/stat")).get(0); // "cpu  user nice system idle iowait irq softirq steal ..."
            String[] f = cpu.trim().split("\\s+");
            long[] v = new long[8];
            for (int i = 0; i < 8 && i + 1 < f.length; i++) {
                v[i] = Long.parseLong(f[i + 1]);
            }
            busy = v[0] + v[1] + v[2] + v[5] + v[6];
            steal = v[7];
            total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        long selfPid = ProcessHandle.current().pid();
        Map<Long, Long> ticks = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        long self = -1;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Paths.get("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                long pid = Long.parseLong(p.getFileName().toString());
                long[] t = processTimes(p.resolve("stat"), names, pid);
                if (t == null) {
                    continue;
                }
                if (pid == selfPid) {
                    self = t[0] + t[1];
                } else {
                    ticks.put(pid, t[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return new Sample(ReportRunner.loadAverage(), System.nanoTime(), busy, steal, total, self, ticks, names);
    }

    /** A process's {utime + stime, cutime + cstime} in ticks, recording its name; null if it is gone. */
    private static long[] processTimes(Path stat, Map<Long, String> names, long pid) {
        try {
            String s = new String(Files.readAllBytes(stat), StandardCharsets.UTF_8);
            int open = s.indexOf('(');
            int close = s.lastIndexOf(')'); // the name may hold spaces and parentheses
            String[] f = s.substring(close + 2).trim().split(" ");
            // f[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
            names.put(pid, s.substring(open + 1, close));
            return new long[] {Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private boolean measured() {
        return before.total >= 0 && after.total > before.total && before.self >= 0 && after.self >= 0;
    }

    /** Average cores that other processes kept busy over the run (NaN where unknown). */
    double otherCores() {
        if (!measured()) {
            return Double.NaN;
        }
        double share = (double) ((after.busy - before.busy) - (after.self - before.self)) / (after.total - before.total);
        return Math.max(0, share * cores);
    }

    /** Average cores the hypervisor took (steal) over the run (NaN where unknown). */
    double stealCores() {
        return measured() ? (double) (after.steal - before.steal) / (after.total - before.total) * cores : Double.NaN;
    }

    /** The threshold of {@link #warning()} in cores of other work (and steal). */
    double threshold() {
        return Math.max(0, cores - BENCHMARK_THREADS) + SPARE_CORES_MARGIN;
    }

    /**
     * One line saying that the machine was too busy for the figures to mean much, or null.
     *
     * @return the warning, or null when the load was below {@link #threshold()} (or unknown)
     */
    String warning() {
        double busy = otherCores() + stealCores();
        if (Double.isNaN(busy) || busy <= threshold()) {
            return null;
        }
        return String.format(Locale.ROOT, "WARNING: the machine was busy: other processes%s used %.2f of its %d cores "
                + "on average during the run (above %.1f), so these figures say little; run the report again on "
                + "an idle machine.", stealCores() >= 0.05 ? " and the hypervisor (steal)" : "", busy, cores, threshold());
    }

    /** The busiest other processes over the run: "name (pid) cores", at most {@code n}. */
    List<String> busiest(int n) {
        double seconds = (after.nanos - before.nanos) / 1e9;
        List<long[]> deltas = new ArrayList<>();
        after.processTicks.forEach((pid, t) -> {
            Long t0 = before.processTicks.get(pid);
            long d = t - (t0 == null ? 0 : t0);
            if (d > 0) {
                deltas.add(new long[] {pid, d});
            }
        });
        deltas.sort((a, b) -> Long.compare(b[1], a[1]));
        List<String> out = new ArrayList<>();
        for (long[] d : deltas.subList(0, Math.min(n, deltas.size()))) {
            double c = d[1] / USER_HZ / seconds;
            if (c >= 0.01) {
                out.add(String.format(Locale.ROOT, "%s (pid %d) %.2f", after.processNames.get(d[0]), d[0], c));
            }
        }
        return out;
    }

    /** The Markdown lines of machine.md about the load (each a "- " item), and the warning if any. */
    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("- load average (1/5/15 min) before: ").append(before.loadAverage).append(", after: ")
                .append(after.loadAverage).append(" (they count the report's own threads, and a build just before)\n");
        b.append("- load: ").append(summary()).append('\n');
        List<String> top = busiest(5);
        if (!top.isEmpty()) {
            b.append("- busiest other processes, cores on average: ").append(String.join(", ", top)).append('\n');
        }
        String w = warning();
        if (w != null) {
            b.append("\n**").append(w).append("**\n");
        }
        return b.toString();
    }

    /** One line: other processes' CPU, steal, the threshold. */
    String summary() {
        double other = otherCores();
        if (Double.isNaN(other)) {
            return "other processes' CPU: n/a (no /proc)";
        }
        return String.format(Locale.ROOT, "other processes used %.2f cores on average during the run, steal %.2f, "
                + "of %d cores (warning above %.1f: the cores the benchmark's two threads leave free, plus %.1f)",
                other, stealCores(), cores, threshold(), SPARE_CORES_MARGIN);
    }
}
