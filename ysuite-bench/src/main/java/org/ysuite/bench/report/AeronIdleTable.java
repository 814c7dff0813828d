package org.ysuite.bench.report;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The "Across processes" table of {@code ipc.AeronIdle}: an Aeron IPC subscriber in a child JVM
 * with each idle strategy, at each rate: its polling thread's CPU, the one-way latency (mean, p99)
 * and the messages received per second; then the three comparisons (idle CPU; latency and
 * CPU at 10^4 msgs/s against Backoff; the steady high rate against Busy-spin).
 */
final class AeronIdleTable {

    /** The benchmark's scenario. */
    static final String SCENARIO = "ipc.AeronIdle";

    private static final List<String> STRATEGIES = List.of("busySpin", "backoff", "sleeping", "ysuite");
    private static final List<String> RATES = List.of("0", "10000", "100000", "max");

    private AeronIdleTable() {
    }

    static void render(List<Result> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        rows.sort(Comparator.comparingInt((Result r) -> STRATEGIES.indexOf(r.param("strategy")))
                .thenComparingInt(r -> RATES.indexOf(r.param("rate"))));
        out.append("\n### Across processes, an Aeron IPC subscriber's idle strategy: 64-byte messages at a rate\n\n")
                .append("| subscriber's idle strategy | rate, msgs/s | subscriber CPU, % of a core | one-way mean, us "
                        + "| one-way p99, us | received, msgs/s | futex wake-ups/s |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (Result r : rows) {
            out.append("| ").append(name(r.param("strategy"))).append(" | ").append(rate(r.param("rate")))
                    .append(" | ").append(Report.pct(r.secondary("subscriberCpuPercent"))).append(" | ")
                    .append(micros(r.secondary("meanLatencyNs"))).append(" | ")
                    .append(micros(r.secondary("p99LatencyNs"))).append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f", r.secondary("receivedPerSecond"))).append(" | ")
                    .append("ysuite".equals(r.param("strategy")) ? String.format(Locale.ROOT, "%,.0f",
                            r.secondary("wakeupsPerSecond")) : "-").append(" |\n");
        }
        out.append("\nThe subscriber polls in a child JVM; the publisher (the benchmark's JVM, media driver embedded, "
                + "SHARED threading) stamps each message with System.nanoTime() and, for ysuite, rings the doorbell "
                + "after each offer. CPU: the polling thread's CPU time over the period; latency: offer to poll "
                + "(a histogram, 3 % buckets; the mean of the iterations' p99); max: offers as fast as they go; "
                + "futex wake-ups: the publisher's rings that found the subscriber asleep.\n");
        comparisons(rows, out);
    }

    private static void comparisons(List<Result> rows, StringBuilder out) {
        Result yIdle = find(rows, "ysuite", "0");
        Result bIdle = find(rows, "backoff", "0");
        Result sIdle = find(rows, "busySpin", "0");
        if (yIdle != null && bIdle != null && sIdle != null) {
            out.append("\nIdle subscriber CPU: ysuite ").append(Report.pct(cpu(yIdle))).append(" % (target <= 0.1), ")
                    .append("Backoff ").append(Report.pct(cpu(bIdle))).append(" %, Busy-spin ")
                    .append(Report.pct(cpu(sIdle))).append(" %.\n");
        }
        Result y = find(rows, "ysuite", "10000");
        Result b = find(rows, "backoff", "10000");
        if (y != null && b != null) {
            // y-suite's advantage, as every ratio of the report: Backoff's cost / ysuite's, higher is better
            out.append("\nAt 10^4 msgs/s, ysuite's advantage over Backoff (Backoff's figure / ysuite's, higher is "
                    + "better): mean latency ")
                    .append(ratio(b.secondary("meanLatencyNs") / y.secondary("meanLatencyNs")))
                    .append(", p99 ").append(ratio(b.secondary("p99LatencyNs") / y.secondary("p99LatencyNs")))
                    .append(" (target >= 1x), CPU ").append(ratio(cpu(b) / cpu(y))).append(" (target >= 3x).\n");
        }
        Result yMax = find(rows, "ysuite", "max");
        Result sMax = find(rows, "busySpin", "max");
        if (yMax != null && sMax != null) {
            out.append("\nAt the steady high rate (max), ysuite's advantage in throughput over Busy-spin's "
                    + "(ysuite's rate / Busy-spin's): ")
                    .append(ratio(yMax.secondary("receivedPerSecond") / sMax.secondary("receivedPerSecond")))
                    .append(" (target >= 0.95x).\n");
        }
    }

    private static Result find(List<Result> rows, String strategy, String rate) {
        return rows.stream().filter(r -> strategy.equals(r.param("strategy")) && rate.equals(r.param("rate")))
                .findFirst().orElse(null);
    }

    private static double cpu(Result r) {
        return r.secondary("subscriberCpuPercent");
    }

    private static String ratio(double v) {
        return String.format(Locale.ROOT, "%.2fx", v);
    }

    private static String name(String strategy) {
        switch (strategy) {
            case "busySpin":
                return "Agrona BusySpinIdleStrategy";
            case "backoff":
                return "Agrona BackoffIdleStrategy (defaults)";
            case "sleeping":
                return "Agrona SleepingIdleStrategy (defaults)";
            case "ysuite":
                return "ysuite SharedSignalerIdleStrategy (defaults)";
            default:
                return strategy;
        }
    }

    private static String rate(String rate) {
        return "0".equals(rate) ? "0 (idle)" : "max".equals(rate) ? "max" : String.format(Locale.ROOT, "%,d",
                Long.parseLong(rate));
    }

    private static String micros(double ns) {
        return Double.isNaN(ns) || ns < 0 ? "-" : String.format(Locale.ROOT, "%.1f", ns / 1000);
    }
}
