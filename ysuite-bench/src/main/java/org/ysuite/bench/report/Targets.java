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
 * The report's "Targets" table: the project's goals checked against this run's rows. Every row's
 * last column gives the y-suite figure first and the figure it is compared with second
 * ({@code y-suite vs other}), whatever way round the ratio is taken.
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

    /** A row whose last column is free text (rows that compare no y-suite row with another). */
    private void row(String what, String goal, double measured, boolean met, String detail) {
        out.append("| ").append(what).append(" | ").append(goal).append(" | ")
                .append(goal.endsWith("x") || Double.isNaN(measured) ? fmtRatio(measured)
                        : String.format(Locale.ROOT, "%.2f", measured))
                .append(" | ").append(Double.isNaN(measured) ? "not measured" : goal.equals("none") ? "context"
                        : met ? "met" : "**missed**")
                .append(" | ").append(detail).append(" |\n");
    }

    /**
     * A row comparing y-suite's figure with another's: "ys ns vs other ns", y-suite first, and the
     * other row's label when {@code what} does not name it.
     */
    private void compare(String what, String goal, double ratio, boolean met, double ys, double other, String unit,
                         String otherLabel) {
        row(what, goal, ratio, met, fmtDensity(ys) + " vs " + fmtDensity(other) + " " + unit
                + (otherLabel == null ? "" : " (" + otherLabel + ")"));
    }

    void render() {
        out.append("\n### Targets (ratios from this run's results)\n\n");
        out.append("| target | goal | measured | verdict | y-suite vs the other row |\n|---|---|---:|---|---|\n");
        Predicate<Result> blockingPeer = r -> r.kind == Transport.Kind.BLOCKING;
        Predicate<Result> socket = r -> r.kind == Transport.Kind.SOCKET;

        for (String sig : new String[] {"pollset", "semaphore"}) {
            Result y = find(r -> r.scenario.equals("Throughput") && r.method.equals("ypipe")
                    && sig.equals(r.param("signaler")));
            Result bp = best("Throughput", blockingPeer);
            if (y != null && bp != null) {
                double ratio = bp.density / y.density;
                compare("throughput, flush per message: " + y.label + " vs best blocking peer", ">= 1.00x",
                        ratio, ratio >= 1.0, y.density, bp.density, "ns", bp.label);
            }
            Result so = best("Throughput", socket);
            if (y != null && so != null) {
                double ratio = so.density / y.density;
                compare("throughput, flush per message: " + y.label + " vs local sockets", ">= 50x", ratio,
                        ratio >= 50, y.density, so.density, "ns", so.label);
            }
        }
        Result jctools = find(r -> r.scenario.equals("Throughput") && r.method.equals("jctoolsMpscBlocking"));
        Result mailbox = find(r -> r.scenario.equals("Throughput") && r.method.equals("ymailbox"));
        if (mailbox != null && jctools != null) {
            double ratio = jctools.density / mailbox.density;
            compare("throughput: YMailbox (1 writer) vs JCTools MpscBlockingConsumerArrayQueue", ">= 1.00x", ratio,
                    ratio >= 1.0, mailbox.density, jctools.density, "ns", null);
        }
        Result b32 = find(r -> r.scenario.equals("SenderBatch") && r.method.equals("ypipe")
                && "32".equals(r.param("batch")));
        Result spsc = find(r -> r.scenario.equals("Throughput") && r.method.equals("jctoolsSpsc"));
        if (b32 != null && spsc != null) {
            double ratio = spsc.density / b32.density;
            compare("throughput, YPipe sender batch 32 vs JCTools SpscArrayQueue (busy-spin)", ">= 1.00x", ratio,
                    ratio >= 1.0, b32.density, spsc.density, "ns/msg", null);
        }
        Result off8 = find(r -> r.scenario.equals("Throughput") && r.method.equals("offHeapYPipe"));
        Result ring = find(r -> r.scenario.equals("Throughput") && r.method.equals("agronaRingBuffer"));
        if (off8 != null && ring != null) {
            double ratio = ring.density / off8.density;
            compare("throughput, OffHeapYPipe 8 B vs Agrona OneToOneRingBuffer (busy-spin)", ">= 1.00x", ratio,
                    ratio >= 1.0, off8.density, ring.density, "ns", null);
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
        Result bestBlockingWorst = best("WorstCase", blockingPeer);
        Result sockWorst = best("WorstCase", socket);
        Result floor = find(r -> r.scenario.equals("WorstCase") && r.method.equals("parkUnpark"));
        for (Result y : report.of("WorstCase")) {
            if (!y.isYsuite() || !("pollset".equals(y.param("signaler")) || "semaphore".equals(y.param("signaler")))) {
                continue;
            }
            boolean parks = "0".equals(y.param("spin"));
            if (bestBlockingWorst != null) {
                // Spinning rows must beat every blocking peer a hundredfold; pure-park rows sit on
                // the park/unpark floor like every peer, and are held to it below.
                double goal = parks ? 1.0 : 0.01;
                double ratio = y.density / bestBlockingWorst.density;
                compare("worst-case round trip: " + y.label + " / best blocking peer", parks ? "<= 1.00x" : "<= 0.01x",
                        ratio, ratio <= goal, y.density, bestBlockingWorst.density, "ns", bestBlockingWorst.label);
            }
            if (sockWorst != null) {
                double ratio = sockWorst.density / y.density;
                compare("worst case: " + y.label + " vs local sockets (times faster)", ">= 1.80x", ratio,
                        ratio >= 1.8, y.density, sockWorst.density, "ns", sockWorst.label);
            }
            if (floor != null && parks) {
                double ratio = y.density / floor.density;
                compare("worst case, pure park: " + y.label + " / JVM park/unpark floor", "<= 1.05x", ratio,
                        ratio <= 1.05, y.density, floor.density, "ns", floor.label);
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
            double ratio = c64.density / p64.density;
            row("OffHeapYPipe 64 KiB, copying (two copies) vs one memory copy", ">= 0.45x", ratio, ratio >= 0.45,
                    fmtRate(mbps(65536, p64.density)) + " vs " + fmtRate(mbps(65536, c64.density)) + " Mb/s");
        }
        if (z64 != null && c64 != null) {
            double ratio = c64.density / z64.density;
            row("OffHeapYPipe 64 KiB, zero-copy (claim/commit, view) vs one memory copy", ">= 0.90x", ratio,
                    ratio >= 0.9,
                    fmtRate(mbps(65536, z64.density)) + " vs " + fmtRate(mbps(65536, c64.density)) + " Mb/s");
        }
        if (p64 != null && r64 != null) {
            double ratio = r64.density / p64.density;
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
                row("(context) sparse 10^4 msgs/s: default policy's reader CPU / JCTools' blocking queue's",
                        "none", cpu / jcCpu, true, String.format(Locale.ROOT, "%.2f %% vs %.2f %%", cpu, jcCpu));
                double ratio = sparseDefault.secondary("latencyNs") / sparseJctools.secondary("latencyNs");
                compare("sparse 10^4 msgs/s: default policy's latency / JCTools' blocking queue's", "<= 1.00x",
                        ratio, ratio <= 1.0, sparseDefault.secondary("latencyNs"),
                        sparseJctools.secondary("latencyNs"), "ns", null);
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
                boolean thrpt = m.startsWith("throughput"); // ops/us: higher is better
                double ratio = ys.density / ex.density; // ops/us for throughput, ns/op for worst case
                compare("Netty hand-off " + m + ": ysuite mailbox vs eventLoop.execute()",
                        thrpt ? ">= 2.00x" : "<= 1.00x", ratio, thrpt ? ratio >= 2.0 : ratio <= 1.0,
                        ys.density, ex.density, ys.unit, null);
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
                    double ratio = p.density / s.density;
                    compare(scenario + ": YPollset / YSemaphore cost" + (p.param("spin") == null ? ""
                            : " (spin " + p.param("spin") + ")"), "<= 1.15x", ratio, ratio <= 1.15,
                            p.density, s.density, "ns", null);
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
                double ratio = aeronSpin8.density / y.density;
                compare("across processes, throughput 8 B: " + y.label + " vs Aeron IPC (busy spin)", ">= 1.00x",
                        ratio, ratio >= 1.0, y.density, aeronSpin8.density, "ns", null);
            }
            if (unix8 != null) {
                double ratio = unix8.density / y.density;
                compare("across processes, throughput 8 B: " + y.label + " vs AF_UNIX sockets", ">= 20x", ratio,
                        ratio >= 20, y.density, unix8.density, "ns", null);
            }
        }
        Result cFloor = find(r -> r.scenario.equals(IPC_WORST) && r.method.equals("cFutexFloor") && "0".equals(r.param("spin")));
        Result unixWorst = best(IPC_WORST, r -> r.kind == Transport.Kind.SOCKET);
        for (Result y : report.of(IPC_WORST)) {
            if (!y.isYsuite()) {
                continue;
            }
            if ("0".equals(y.param("spin")) && cFloor != null) {
                double ratio = y.density / cFloor.density;
                compare("across processes, worst case, pure park: " + y.label + " / C futex floor", "<= 1.20x", ratio,
                        ratio <= 1.2, y.density, cFloor.density, "ns", null);
            }
            if (!"0".equals(y.param("spin")) && unixWorst != null) {
                double ratio = y.density / unixWorst.density;
                compare("across processes, worst case: " + y.label + " / AF_UNIX sockets", "<= 0.05x", ratio,
                        ratio <= 0.05, y.density, unixWorst.density, "ns", null);
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
