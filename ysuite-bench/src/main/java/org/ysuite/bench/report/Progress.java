package org.ysuite.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.util.Optional;

/**
 * JMH's output during a report: everything JMH prints (its own text format, the forked VMs'
 * output, the profilers' tables) goes to the log in the results folder, and the terminal gets
 * one line per finished benchmark: n of m, the benchmark with its parameters, its score, the
 * time elapsed and the estimated time left.
 *
 * <p>The estimate counts forks, not benchmarks (the headline rows of a full run have more
 * forks than the rest): time left = time elapsed / forks done * forks left.
 */
final class Progress implements OutputFormat {

    private final OutputFormat log;
    private final PrintStream terminal;
    private final long start = System.nanoTime();
    private int total;
    private long totalForks;
    private int done;
    private long doneForks;

    /**
     * @param log where JMH's own output goes (JMH's text format over the log file)
     * @param terminal where the progress lines go
     */
    Progress(OutputFormat log, PrintStream terminal) {
        this.log = log;
        this.terminal = terminal;
    }

    /**
     * Adds the benchmarks that {@code options} will run to the plan: JMH's benchmark list
     * filtered by the options' includes and excludes, times each benchmark's parameter sets
     * (the options' values where they override a parameter, else the annotation's).
     *
     * @param options the options of one later {@code Runner} run
     */
    void plan(Options options) {
        for (BenchmarkListEntry e : BenchmarkList.defaultList().find(log, options.getIncludes(),
                options.getExcludes())) {
            long sets = 1;
            Optional<Map<String, String[]>> params = e.getParams();
            if (params.hasValue()) {
                for (Map.Entry<String, String[]> p : params.get().entrySet()) {
                    Optional<Collection<String>> given = options.getParameter(p.getKey());
                    sets *= Math.max(1, given.hasValue() ? given.get().size() : p.getValue().length);
                }
            }
            int forks = options.getForkCount().hasValue() ? options.getForkCount().get() : e.getForks().orElse(1);
            total += (int) sets;
            totalForks += sets * Math.max(1, forks);
        }
    }

    /** Number of forked JVMs planned so far (each benchmark's parameter sets times its forks). */
    long totalForks() {
        return totalForks;
    }

    /** Number of benchmarks (parameter sets) planned so far. */
    int total() {
        return total;
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
        log.endBenchmark(result);
        if (result == null) {
            return;
        }
        BenchmarkParams p = result.getParams();
        done++;
        doneForks += Math.max(1, p.getForks());
        long elapsed = System.nanoTime() - start;
        long left = doneForks >= totalForks ? 0 : elapsed / doneForks * (totalForks - doneForks);
        StringBuilder name = new StringBuilder(p.getBenchmark().replaceFirst("^org\\.ysuite\\.bench\\.", ""));
        for (String k : p.getParamsKeys()) {
            name.append(' ').append(k).append('=').append(p.getParam(k));
        }
        if (p.getThreads() > 1) {
            name.append(" threads=").append(p.getThreads());
        }
        String score = result.getPrimaryResult() == null ? "no result"
                : String.format(Locale.ROOT, "%.1f %s", result.getPrimaryResult().getScore(),
                        result.getPrimaryResult().getScoreUnit());
        terminal.printf(Locale.ROOT, "[%d/%d] %s: %s (elapsed %s, ETA %s)%n", done, Math.max(done, total), name,
                score, clock(elapsed), clock(left));
        terminal.flush();
    }

    /** h:mm:ss or m:ss. */
    static String clock(long nanos) {
        long s = TimeUnit.NANOSECONDS.toSeconds(nanos);
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    @Override
    public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
        log.iteration(benchParams, params, iteration);
    }

    @Override
    public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration,
                                IterationResult data) {
        log.iterationResult(benchParams, params, iteration, data);
    }

    @Override
    public void startBenchmark(BenchmarkParams benchParams) {
        log.startBenchmark(benchParams);
    }

    @Override
    public void startRun() {
        log.startRun();
    }

    @Override
    public void endRun(Collection<RunResult> result) {
        log.endRun(result);
    }

    @Override
    public void print(String s) {
        log.print(s);
    }

    @Override
    public void println(String s) {
        log.println(s);
    }

    @Override
    public void flush() {
        log.flush();
    }

    /** The runner closes its output at the end of each run; the log stays open for the next. */
    @Override
    public void close() {
        log.flush();
    }

    @Override
    public void verbosePrintln(String s) {
        log.verbosePrintln(s);
    }

    @Override
    public void write(int b) {
        log.write(b);
    }

    @Override
    public void write(byte[] b) throws IOException {
        log.write(b);
    }
}
