package org.ysuite.bench.report;

import static org.ysuite.bench.report.Report.IPC_IDLE;
import static org.ysuite.bench.report.Report.IPC_THROUGHPUT;
import static org.ysuite.bench.report.Report.IPC_WORST;
import static org.ysuite.bench.report.Report.fmtDensity;
import static org.ysuite.bench.report.Report.fmtRate;
import static org.ysuite.bench.report.Report.fmtRatio;
import static org.ysuite.bench.report.Report.mbps;
import static org.ysuite.bench.report.Report.pct;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.ysuite.bench.support.Transport;

/**
 * The report's "Targets" table: the project's goals checked against this run's rows. Every ratio
 * reads one way, y-suite's advantage ({@link #advantage}): the other row's cost over y-suite's
 * (for a time per message: other ns / y-suite ns; for a rate: y-suite's / the other's), so above
 * 1.00x y-suite is better, and every goal on a ratio is a lower bound ({@code >=}). The rows that
 * are no ratio (a CPU share) say so and keep their own bound. Every row's last column gives the
 * y-suite figure first and the figure it is compared with second ({@code y-suite vs other}). A row
 * whose figures are {@link Result#unstable() unstable} is marked so and not judged.
 */
final class Targets {

    private final Report report;
    private final StringBuilder out;

    Targets(Report report, StringBuilder out) {
        this.report = report;
        this.out = out;
    }

    private Result find(Predicate<Result> p) {
        return report.find(p);
    }

    private Result best(String scenario, Predicate<Result> p) {
        return report.best(scenario, p);
    }

    /** The header line that says how every ratio of the table reads. */
    static final String HOW_RATIOS_READ = "Every ratio is y-suite's advantage over the other row, computed so "
            + "that higher is better: the other's time per message / y-suite's (or y-suite's rate / the other's); "
            + "above 1.00x y-suite is better, and every goal on a ratio is a lower bound (>=). A row marked "
            + "*unstable* had a JMH error or a spread of its forks' means above "
            + Math.round(Result.UNSTABLE_FRACTION * 100) + " % of its mean: it is not judged.";

    /**
     * y-suite's advantage over another row: {@code other / ys} for costs (a time, lower is
     * better), {@code ys / other} for rates (higher is better); above 1.0 y-suite is better.
     *
     * @param ys y-suite's figure
     * @param other the other row's figure
     * @param higherIsBetter whether the figures are rates (ops/time) rather than costs
     * @return the advantage
     */
    static double advantage(double ys, double other, boolean higherIsBetter) {
        return higherIsBetter ? ys / other : other / ys;
    }

    /** A row whose last column is free text (rows that compare no y-suite row with another). */
    private void row(String what, String goal, double measured, boolean met, String detail) {
        row(what, goal, measured, met, detail, null);
    }

    /** As {@link #row(String, String, double, boolean, String)}; {@code unstable}: why it is not judged, or null. */
    private void row(String what, String goal, double measured, boolean met, String detail, String unstable) {
        out.append("| ").append(what).append(" | ").append(goal).append(" | ")
                .append(goal.endsWith("x") || Double.isNaN(measured) ? fmtRatio(measured)
                        : String.format(Locale.ROOT, "%.2f", measured))
                .append(" | ").append(verdict(goal, measured, met, unstable))
                .append(" | ").append(detail).append(" |\n");
    }

    /** The verdict column: not measured, context, unstable (why), met or missed. */
    static String verdict(String goal, double measured, boolean met, String unstable) {
        if (Double.isNaN(measured)) {
            return "not measured";
        }
        if (goal.equals("none")) {
            return "context";
        }
        if (unstable != null) {
            return "*unstable* (" + unstable + ")";
        }
        return met ? "met" : "**missed**";
    }

    /** Why either row is unstable ("y-suite ± 87 % of the mean"), or null when both are stable. */
    static String unstable(Result ys, Result other) {
        String a = ys == null ? null : ys.unstable();
        String b = other == null ? null : other.unstable();
        if (a == null && b == null) {
            return null;
        }
        return (a == null ? "" : "y-suite " + a) + (a != null && b != null ? "; " : "")
                + (b == null ? "" : "other " + b);
    }

    /**
     * A row comparing y-suite's row with another: the ratio is y-suite's {@link #advantage}, its
     * goal the lower bound {@code goal}; "ys unit vs other unit", y-suite first, and the other
     * row's label when {@code what} does not name it.
     */
    private void compare(String what, double goal, Result ys, Result other, String unit, String otherLabel) {
        boolean rate = ys.unit.startsWith("ops/"); // JMH's throughput mode: operations per time
        compareValues(what, goal, ys.density, other.density, rate, unit, otherLabel, unstable(ys, other));
    }

    /** As {@link #compare(String, double, Result, Result, String, String)}, from the two figures. */
    private void compareValues(String what, double goal, double ys, double other, boolean higherIsBetter, String unit,
                               String otherLabel, String unstable) {
        double ratio = advantage(ys, other, higherIsBetter);
        row(what, String.format(Locale.ROOT, ">= %.2fx", goal), ratio, ratio >= goal,
                fmtDensity(ys) + " vs " + fmtDensity(other) + " " + unit
                        + (otherLabel == null ? "" : " (" + otherLabel + ")"), unstable);
    }

    void render() {
        out.append("\n### Targets (ratios from this run's results)\n\n").append(HOW_RATIOS_READ).append("\n\n");
        out.append("| target | goal | measured | verdict | y-suite vs the other row |\n|---|---|---:|---|---|\n");
        Predicate<Result> blockingPeer = r -> r.kind == Transport.Kind.BLOCKING;
        Predicate<Result> socket = r -> r.kind == Transport.Kind.SOCKET;

        for (String sig : new String[] {"pollset", "semaphore"}) {
            Result y = find(r -> r.scenario.equals("Throughput") && r.method.equals("ypipe")
                    && sig.equals(r.param("signaler")));
            Result bp = best("Throughput", blockingPeer);
            if (y != null && bp != null) {
                compare("throughput, flush per message: " + y.label + " vs best blocking peer", 1.0, y, bp, "ns",
                        bp.label);
            }
            Result so = best("Throughput", socket);
            if (y != null && so != null) {
                compare("throughput, flush per message: " + y.label + " vs local sockets", 50, y, so, "ns", so.label);
            }
        }
        Result jctools = find(r -> r.scenario.equals("Throughput") && r.method.equals("jctoolsMpscBlocking"));
        Result mailbox = find(r -> r.scenario.equals("Throughput") && r.method.equals("ymailbox"));
        if (mailbox != null && jctools != null) {
            compare("throughput: YMailbox (1 writer) vs JCTools MpscBlockingConsumerArrayQueue", 1.0, mailbox, jctools,
                    "ns", null);
        }
        Result b32 = find(r -> r.scenario.equals("SenderBatch") && r.method.equals("ypipe")
                && "32".equals(r.param("batch")));
        Result spsc = find(r -> r.scenario.equals("Throughput") && r.method.equals("jctoolsSpsc"));
        if (b32 != null && spsc != null) {
            compare("throughput, YPipe sender batch 32 vs JCTools SpscArrayQueue (busy-spin)", 1.0, b32, spsc,
                    "ns/msg", null);
        }
        Result off8 = find(r -> r.scenario.equals("Throughput") && r.method.equals("offHeapYPipe"));
        Result ring = find(r -> r.scenario.equals("Throughput") && r.method.equals("agronaRingBuffer"));
        if (off8 != null && ring != null) {
            compare("throughput, OffHeapYPipe 8 B vs Agrona OneToOneRingBuffer (busy-spin)", 1.0, off8, ring, "ns",
                    null);
        }
        worstCase(blockingPeer, socket);
        messageSize();
        sparse();
        netty();
        pollsetVsSemaphore();
        ipc();
        List<Result> allocating = report.all().stream().filter(Result::isYsuite)
                .filter(r -> r.allocPerMsg > 0.5).collect(Collectors.toList());
        out.append("\ny-suite rows allocating more than 0.5 B/msg (gc.alloc.rate.norm, all threads): ")
                .append(allocating.isEmpty() ? "none" : allocating.stream()
                        .map(r -> r.scenario + " " + r.label + " " + r.params + " " + Report.fmtAlloc(r.allocPerMsg))
                        .collect(Collectors.joining("; "))).append(".\n");
    }

    private void worstCase(Predicate<Result> blockingPeer, Predicate<Result> socket) {
        // the peers that block at once, as the seed's; the same-spin peer is held against the default policy
        Result bestBlockingWorst = best("WorstCase", blockingPeer.and(r -> !r.method.endsWith("Spin")));
        Result sameSpin = find(r -> r.scenario.equals("WorstCase") && r.method.equals("jctoolsMpscBlockingSpin"));
        Result sockWorst = best("WorstCase", socket);
        Result floor = find(r -> r.scenario.equals("WorstCase") && r.method.equals("parkUnpark"));
        for (Result y : report.of("WorstCase")) {
            if (!y.isYsuite() || !("pollset".equals(y.param("signaler")) || "semaphore".equals(y.param("signaler")))) {
                continue;
            }
            boolean parks = "0".equals(y.param("spin"));
            // The worst case's density is the one-way time of a ping-pong (a round trip / 2).
            if (bestBlockingWorst != null) {
                // Spinning rows must beat every blocking peer a hundredfold; pure-park rows sit on
                // the park/unpark floor like every peer, and are held to it below.
                compare("worst case, one-way time of a ping-pong: " + y.label + " vs best blocking peer",
                        parks ? 1.0 : 100, y, bestBlockingWorst, "ns one-way", bestBlockingWorst.label);
            }
            if (sockWorst != null) {
                compare("worst case, one-way time of a ping-pong: " + y.label + " vs local sockets", 1.8, y, sockWorst,
                        "ns one-way", sockWorst.label);
            }
            if (sameSpin != null && !parks) {
                compare("worst case, one-way time of a ping-pong: " + y.label + " vs the same spin before take()",
                        1.0, y, sameSpin, "ns one-way", sameSpin.label);
            }
            if (floor != null && parks) {
                // at most 5 % above the floor: floor / y-suite >= 1 / 1.05
                compare("worst case, pure park: " + y.label + " vs the JVM park/unpark floor", 1 / 1.05, y, floor,
                        "ns one-way", floor.label);
            }
        }
    }

    private Result size64k(String method) {
        return find(r -> r.scenario.equals("MessageSize") && r.method.equals(method) && "65536".equals(r.param("size")));
    }

    private void messageSize() {
        Result p64 = size64k("throughput");
        Result c64 = size64k("memoryCopy");
        Result z64 = size64k("zeroCopy");
        Result r64 = size64k("memoryCopyRing");
        if (p64 != null && c64 != null) {
            double ratio = advantage(p64.density, c64.density, false);
            row("OffHeapYPipe 64 KiB, copying (two copies) vs one memory copy", ">= 0.45x", ratio, ratio >= 0.45,
                    fmtRate(mbps(65536, p64.density)) + " vs " + fmtRate(mbps(65536, c64.density)) + " Mb/s",
                    unstable(p64, c64));
        }
        if (z64 != null && c64 != null) {
            double ratio = advantage(z64.density, c64.density, false);
            row("OffHeapYPipe 64 KiB, zero-copy (claim/commit, view) vs one memory copy", ">= 0.90x", ratio,
                    ratio >= 0.9,
                    fmtRate(mbps(65536, z64.density)) + " vs " + fmtRate(mbps(65536, c64.density)) + " Mb/s",
                    unstable(z64, c64));
        }
        if (p64 != null && r64 != null) {
            double ratio = advantage(p64.density, r64.density, false);
            row("(context) OffHeapYPipe 64 KiB vs copy through a 1 MiB ring", "none", ratio, true,
                    fmtRate(mbps(65536, p64.density)) + " vs " + fmtRate(mbps(65536, r64.density)) + " Mb/s");
        }
    }

    private void sparse() {
        Result sparseDefault = find(r -> r.scenario.equals("SparseTraffic") && r.method.equals("ypipeDefault")
                && "10000".equals(r.param("rate")));
        Result sparseJctools = find(r -> r.scenario.equals("SparseTraffic")
                && r.method.equals("jctoolsMpscBlocking") && "10000".equals(r.param("rate")));
        if (sparseDefault != null) {
            double cpu = sparseDefault.secondary("readerCpuPercent");
            row("sparse 10^4 msgs/s: default policy's reader CPU, % of a core (not a ratio)", "<= 5",
                    cpu, cpu <= 5, sparseDefault.label);
            if (sparseJctools != null) {
                double jcCpu = sparseJctools.secondary("readerCpuPercent");
                double ratio = advantage(cpu, jcCpu, false);
                row("sparse 10^4 msgs/s: default policy's reader CPU vs JCTools' blocking queue's (take())",
                        ">= 1.00x", ratio, ratio >= 1.0, String.format(Locale.ROOT, "%.2f %% vs %.2f %%", cpu, jcCpu),
                        null); // gauges: the mean of the iterations, no error of their own
                compareValues("sparse 10^4 msgs/s: default policy's mean one-way latency vs JCTools' blocking queue's",
                        1.0, sparseDefault.secondary("latencyNs"), sparseJctools.secondary("latencyNs"), false,
                        "ns", null, null);
            }
        }
        Result idleDefault = find(r -> r.scenario.equals("SparseTraffic") && r.method.equals("ypipeDefault")
                && "0".equals(r.param("rate")));
        if (idleDefault != null) {
            double cpu = idleDefault.secondary("readerCpuPercent");
            row("idle: default policy's reader CPU, % of a core (not a ratio)", "<= 0.1", cpu, cpu <= 0.1,
                    idleDefault.label);
        }
    }

    private void netty() {
        for (String m : new String[] {"throughput1", "throughput2", "worstCase1", "worstCase2"}) {
            Result ys = find(r -> r.scenario.equals("netty.LoopHandOff") && r.method.equals(m)
                    && "ysuite".equals(r.param("handoff")));
            Result ex = find(r -> r.scenario.equals("netty.LoopHandOff") && r.method.equals(m)
                    && "execute".equals(r.param("handoff")));
            if (ys != null && ex != null) {
                boolean thrpt = m.startsWith("throughput"); // ops/us: higher is better; worst case: a round trip
                compare("Netty hand-off " + (thrpt ? "throughput, " : "round trip app -> loop -> app, ")
                        + m.charAt(m.length() - 1) + " thread(s): ysuite mailbox vs eventLoop.execute()",
                        thrpt ? 2.0 : 1.0, ys, ex, ys.unit, null);
            }
        }
    }

    /** Both rows are y-suite's: the YPollset figure comes first, as the target's name says. */
    private void pollsetVsSemaphore() {
        for (String scenario : new String[] {"WorstCase", "Throughput", "PollOverhead"}) {
            for (Result p : report.of(scenario)) {
                if (!"pollset".equals(p.param("signaler"))) {
                    continue;
                }
                Result s = find(r -> r.scenario.equals(scenario) && r.method.equals(p.method)
                        && "semaphore".equals(r.param("signaler")) && Objects.equals(r.param("spin"), p.param("spin")));
                if (s != null) {
                    // YPollset may cost at most 15 % more: YSemaphore's time / YPollset's >= 1 / 1.15
                    compare(scenario + ": YPollset vs YSemaphore" + (p.param("spin") == null ? ""
                            : " (spin " + p.param("spin") + ")"), 1 / 1.15, p, s, "ns", null);
                }
            }
        }
    }

    /** Issue 14's targets, from the "Across processes" rows of this run. */
    private void ipc() {
        Predicate<Result> ys8 = r -> r.scenario.equals(IPC_THROUGHPUT) && r.isYsuite() && "8".equals(r.param("bytes"));
        Result aeronSpin8 = best(IPC_THROUGHPUT, r -> r.kind == Transport.Kind.BUSY_SPIN && "8".equals(r.param("bytes"))
                && "busyspin".equals(r.param("idle")));
        Result unix8 = best(IPC_THROUGHPUT, r -> r.kind == Transport.Kind.SOCKET && "8".equals(r.param("bytes")));
        for (Result y : report.all().stream().filter(ys8).collect(Collectors.toList())) {
            if (aeronSpin8 != null) {
                compare("across processes, throughput 8 B: " + y.label + " vs Aeron IPC (busy spin)", 1.0, y,
                        aeronSpin8, "ns", null);
            }
            if (unix8 != null) {
                compare("across processes, throughput 8 B: " + y.label + " vs AF_UNIX sockets", 20, y, unix8, "ns",
                        null);
            }
        }
        Result cFloor = find(r -> r.scenario.equals(IPC_WORST) && r.method.equals("cFutexFloor") && "0".equals(r.param("spin")));
        Result unixWorst = best(IPC_WORST, r -> r.kind == Transport.Kind.SOCKET);
        for (Result y : report.of(IPC_WORST)) {
            if (!y.isYsuite()) {
                continue;
            }
            if ("0".equals(y.param("spin")) && cFloor != null) {
                // at most 20 % above the floor: floor / y-suite >= 1 / 1.2
                compare("across processes, worst case (one-way), pure park: " + y.label + " vs the C futex floor",
                        1 / 1.2, y, cFloor, "ns", null);
            }
            if (!"0".equals(y.param("spin")) && unixWorst != null) {
                compare("across processes, worst case (one-way): " + y.label + " vs AF_UNIX sockets", 20, y,
                        unixWorst, "ns", null);
            }
        }
        for (Result y : report.of(IPC_IDLE)) {
            if (y.isYsuite()) {
                double cpu = y.secondary("readerCpuPercent");
                row("across processes, idle: " + y.label + " reader CPU, % of a core (not a ratio)", "<= 0.1",
                        cpu, cpu <= 0.1, "whole reader JVM " + pct(y.secondary("processCpuPercent")) + " %");
            }
        }
    }
}
