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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;

/**
 * {@code java -jar ysuite-bench.jar report amqp [--smoke|--quick|--full] [--out DIR]}: seed 003's
 * AMQP row ({@code amqp.AmqpPublish}): ysuite's publisher against amqp-client used the usual ways,
 * publishing with confirms from 1, 2 and 4 application threads, on the embedded Broker-J and, when
 * {@code YSUITE_RABBITMQ_URI} names one, on RabbitMQ. Writes {@code report.md}, {@code machine.md},
 * {@code jmh.log} and {@code jmh-result.json} to the folder.
 */
final class AmqpReportRunner {

    /** ysuite's ways: one channel, and four channels of the publisher's connection ({@code channels(4)}). */
    private static final String[] YSUITE_WAYS = {"ysuite", "ysuite_channels4"};
    /** amqp-client used the usual ways. */
    private static final String[] USUAL_WAYS = {"channel_per_thread_each", "channel_per_thread_batch",
        "channel_per_thread_async", "locked_channel_each", "locked_channel_batch"};
    private static final String[] WAYS = concat(YSUITE_WAYS, USUAL_WAYS);
    /** The confirm latency's ways: with one thread, four channels publish as one does. */
    private static final String[] LATENCY_WAYS = concat(new String[] {"ysuite"}, USUAL_WAYS);
    private static final String INCLUDE = "^org\\.ysuite\\.bench\\.amqp\\.AmqpPublish\\.";

    private AmqpReportRunner() {
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** Run lengths and parameter lists of one mode. */
    enum Mode {
        SMOKE(0, 1, 1, 200, new String[] {"8"}, new int[] {1}),
        QUICK(2, 1000, 3, 1000, new String[] {"8", "256", "4096"}, new int[] {1, 2, 4}),
        FULL(3, 1000, 5, 2000, new String[] {"8", "64", "256", "1024", "4096"}, new int[] {1, 2, 4});

        final int warmups;
        final int warmupMs;
        final int iterations;
        final int iterationMs;
        final String[] sizes;
        final int[] threads;

        Mode(int warmups, int warmupMs, int iterations, int iterationMs, String[] sizes, int[] threads) {
            this.warmups = warmups;
            this.warmupMs = warmupMs;
            this.iterations = iterations;
            this.iterationMs = iterationMs;
            this.sizes = sizes;
            this.threads = threads;
        }
    }

    static int run(ReportArgs args) throws IOException {
        ReportRunner.Mode plan = args.plan(ReportRunner.Mode.QUICK);
        Mode mode = plan == ReportRunner.Mode.SEED ? Mode.QUICK : Mode.valueOf(plan.name());
        Path out = args.path(ReportArgs.Option.OUT, null); // default: a new folder under results-amqp (RunFolder)
        boolean ownFolder = out == null;
        Path base = Paths.get("results-amqp");
        out = ownFolder ? RunFolder.create(base, java.time.LocalDateTime.now()) : out;
        Files.createDirectories(out);
        List<String> brokers = new ArrayList<>(List.of("embedded"));
        String rabbit = System.getenv("YSUITE_RABBITMQ_URI");
        if (rabbit != null && !rabbit.isBlank() && mode != Mode.SMOKE) {
            brokers.add("rabbitmq");
        }
        String loadBefore = ReportRunner.loadAverage();
        long start = System.nanoTime();
        List<RunResult> all = new ArrayList<>();
        if (!ReportRunner.runJmh(plan(mode, brokers), out, "ysuite AMQP report ("
                + mode.name().toLowerCase(Locale.ROOT) + " run)", all, null)) {
            return 1;
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        String machine = "## ysuite AMQP report (" + mode.name().toLowerCase(Locale.ROOT) + " run)\n\n"
                + "- date: " + Instant.now() + "\n"
                + ReportRunner.machineLines(Runtime.getRuntime().availableProcessors())
                + "- brokers: " + String.join(", ", brokers) + " (embedded: Apache Qpid Broker-J, memory store, in a JVM"
                + " of its own started per run; rabbitmq: " + (brokers.contains("rabbitmq") ? rabbit
                        : "not run, YSUITE_RABBITMQ_URI unset") + ")\n"
                + "- jmh: 1 fork, warmup " + mode.warmups + " x " + mode.warmupMs + " ms, measurement "
                + mode.iterations + " x " + mode.iterationMs + " ms, -prof gc\n"
                + "- load average (1/5/15 min) before: " + loadBefore + ", after: " + ReportRunner.loadAverage() + "\n"
                + "- run time: " + seconds + " s\n";
        String md = machine + "\n" + render(all, mode, brokers);
        Files.write(out.resolve("machine.md"), machine.getBytes(StandardCharsets.UTF_8));
        Files.write(out.resolve("report.md"), md.getBytes(StandardCharsets.UTF_8));
        System.out.println();
        System.out.println(md);
        System.out.println("Written to " + out.toAbsolutePath() + ": jmh-result.json, report.md, machine.md, jmh.log");
        if (ownFolder && RunFolder.markLatest(base, out) != null) {
            System.out.println(base.resolve(RunFolder.LATEST) + " points to this run; earlier runs are kept beside it");
        }
        return 0;
    }

    static List<Options> plan(Mode mode, List<String> brokers) {
        List<Options> runs = new ArrayList<>();
        for (int t : mode.threads) {
            runs.add(options(mode, t, INCLUDE + "publish$").param("way", WAYS).param("size", mode.sizes)
                    .param("broker", brokers.toArray(new String[0])).build());
        }
        // the confirm latency: one thread, one message at a time, the smallest and largest size
        String[] latencySizes = mode.sizes.length == 1 ? mode.sizes
                : new String[] {mode.sizes[0], mode.sizes[mode.sizes.length - 1]};
        runs.add(options(mode, 1, INCLUDE + "confirmed$").param("way", LATENCY_WAYS).param("size", latencySizes)
                .param("broker", brokers.toArray(new String[0])).build());
        return runs;
    }

    private static ChainedOptionsBuilder options(Mode mode, int threads, String include) {
        return ReportRunner.jmh(1, mode.warmups, mode.warmupMs, mode.iterations, mode.iterationMs, threads, 120)
                .include(include);
    }

    /** The tables: throughput per way with ysuite's ratio to the best other way; confirm latency. */
    static String render(List<RunResult> all, Mode mode, List<String> brokers) {
        StringBuilder md = new StringBuilder();
        Map<String, RunResult> byKey = new TreeMap<>();
        for (RunResult r : all) {
            byKey.put(key(r), r);
        }
        List<String> targets = new ArrayList<>();
        for (String broker : brokers) {
            md.append("### Publishing with confirms, ").append(broker).append(" broker (messages/s)\n\n");
            md.append("| size [B] | threads |");
            for (String w : WAYS) {
                md.append(' ').append(w).append(" |");
            }
            md.append(" ysuite / best usual | ysuite_channels4 / best usual | ysuite app thread alloc [B/msg] |\n"
                    + "|---:|---:|");
            md.append("---:|".repeat(WAYS.length)).append("---:|---:|---:|\n");
            for (String size : mode.sizes) {
                for (int t : mode.threads) {
                    md.append("| ").append(size).append(" | ").append(t).append(" |");
                    Map<String, Double> score = new TreeMap<>();
                    double best = Double.NaN;
                    for (String w : WAYS) {
                        RunResult r = byKey.get("publish/" + broker + "/" + size + "/" + t + "/" + w);
                        double v = r == null ? Double.NaN : r.getPrimaryResult().getScore();
                        score.put(w, v);
                        md.append(' ').append(Report.fmtRate(v)).append(" |");
                        if (java.util.Arrays.asList(USUAL_WAYS).contains(w) && !Double.isNaN(v)
                                && (Double.isNaN(best) || v > best)) {
                            best = v;
                        }
                    }
                    double alloc = appAlloc(byKey.get("publish/" + broker + "/" + size + "/" + t + "/ysuite"));
                    for (String w : YSUITE_WAYS) {
                        double ratio = score.get(w) / best;
                        md.append(' ').append(Report.fmtRatio(ratio)).append(" |");
                        if (t == 4) {
                            targets.add("| " + broker + ", " + size + " B, 4 threads: " + w
                                    + " >= 2.0x the best usual way | " + Report.fmtRatio(ratio) + " | "
                                    + (ratio >= 2.0 ? "yes" : "no") + " |");
                        }
                    }
                    md.append(' ').append(Report.fmtAlloc(alloc)).append(" |\n");
                    if (!Double.isNaN(alloc)) {
                        targets.add("| " + broker + ", " + size + " B, " + t + " threads: 0 B/msg on the application "
                                + "thread | " + Report.fmtAlloc(alloc) + " | " + (alloc < 0.5 ? "yes" : "no") + " |");
                    }
                }
            }
            md.append("\nCalled from JMH's threads as an application would: `ysuite` is one `AmqpPublisher` and a "
                    + "`PublisherWriter` per thread, on one channel (`ysuite`) or four (`ysuite_channels4`, "
                    + "`channels(4)`: with four threads, a channel per writer); `channel_per_thread_*` a confirm-mode channel per thread on one "
                    + "connection; `locked_channel_*` one confirm-mode channel behind a lock; `_each` waits for the "
                    + "confirms after every message, `_batch` after every 64; `channel_per_thread_async` handles the "
                    + "confirms in a `ConfirmListener` as they come (RabbitMQ's tutorial), at most 1024 unconfirmed per "
                    + "thread. Messages go to a fanout exchange with "
                    + "no queue bound (routed, dropped and confirmed by the broker).\n\n");
            md.append("### Confirm latency, ").append(broker)
                    .append(" broker: one message, then the wait for its confirm (µs, one thread)\n\n");
            md.append("| way | size [B] | mean | p50 | p99 | p99.9 |\n|---|---:|---:|---:|---:|---:|\n");
            for (String w : LATENCY_WAYS) {
                for (String size : mode.sizes) {
                    RunResult r = byKey.get("confirmed/" + broker + "/" + size + "/1/" + w);
                    if (r == null) {
                        continue;
                    }
                    Result<?> p = r.getPrimaryResult();
                    md.append("| ").append(w).append(" | ").append(size).append(" | ").append(us(p.getScore()))
                            .append(" | ").append(us(p.getStatistics().getPercentile(50))).append(" | ")
                            .append(us(p.getStatistics().getPercentile(99))).append(" | ")
                            .append(us(p.getStatistics().getPercentile(99.9))).append(" |\n");
                }
            }
            md.append('\n');
        }
        md.append("### Targets (ratios within this run)\n\n| target | measured | met |\n|---|---|---|\n");
        targets.forEach(t -> md.append(t).append('\n'));
        return md.toString();
    }

    private static String key(RunResult r) {
        String label = r.getParams().getBenchmark();
        String method = label.substring(label.lastIndexOf('.') + 1);
        return method + "/" + r.getParams().getParam("broker") + "/" + r.getParams().getParam("size") + "/"
                + r.getParams().getThreads() + "/" + r.getParams().getParam("way");
    }

    /** The application threads' own bytes per message (the benchmark's counters), NaN if absent. */
    private static double appAlloc(RunResult r) {
        if (r == null) {
            return Double.NaN;
        }
        Result<?> bytes = r.getSecondaryResults().get("appAllocBytes");
        Result<?> messages = r.getSecondaryResults().get("appMessages");
        if (bytes == null || messages == null || messages.getScore() == 0) {
            return Double.NaN;
        }
        return bytes.getScore() / messages.getScore();
    }

    private static String us(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
    }
}
