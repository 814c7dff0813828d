package org.ysuite.bench.report;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.ysuite.bench.support.Transport;

/**
 * One benchmark result, from JMH's {@link RunResult} (or read back from the JSON JMH wrote): which
 * benchmark, parameters and threads, the density (ns per message) with its error and the mean of
 * each fork, and the allocation per message from {@code -prof gc} ({@code gc.alloc.rate.norm}).
 */
final class Result {

    /** The secondary result of {@code -prof gc}: bytes allocated per operation, all threads. */
    static final String ALLOC_NORM = "gc.alloc.rate.norm";

    final String benchmark;
    final String scenario;
    final String method;
    final Map<String, String> params;
    final int threads;
    final double density;
    final double error;
    final String unit;
    final double allocPerMsg;
    /** The mean of each fork's measurement iterations (one entry per fork). */
    final double[] forkScores;
    /**
     * Counters that a benchmark sets to a per-iteration value ({@code SparseTraffic}'s reader CPU
     * share and mean latency, JMH {@code AuxCounters} of type EVENTS). JMH sums EVENTS counters over
     * the iterations, so their score is N times the value: the report takes the mean of the
     * iterations instead.
     */
    static final java.util.Set<String> GAUGES = java.util.Set.of("readerCpuPercent", "latencyNs",
            "processCpuPercent", "driverCpuPercent", "floorOneWayNs", "subscriberCpuPercent", "meanLatencyNs",
            "p99LatencyNs", "receivedPerSecond", "wakeupsPerSecond");

    /** The mean of a JSON secondary metric's per-iteration values ({@code rawData}). */
    private static double meanOfRaw(JsonObject metric) {
        double sum = 0;
        int n = 0;
        for (com.google.gson.JsonElement fork : metric.getAsJsonArray("rawData")) {
            for (com.google.gson.JsonElement v : fork.getAsJsonArray()) {
                sum += num(v);
                n++;
            }
        }
        return n == 0 ? num(metric.get("score")) : sum / n;
    }

    /** Every secondary result's score by name (profilers', and a benchmark's own counters). */
    final Map<String, Double> secondary = new TreeMap<>();
    final String label;
    final Transport.Kind kind;

    Result(String benchmark, Map<String, String> params, int threads, double density,
           double error, String unit, double allocPerMsg, double[] forkScores) {
        this.benchmark = benchmark;
        String simple = benchmark.substring("org.ysuite.bench.".length());
        int dot = simple.lastIndexOf('.');
        this.scenario = simple.substring(0, dot);
        java.lang.reflect.Field contender = contender(benchmark, params);
        Transport peer = contender == null ? null : contender.getAnnotation(Transport.class);
        this.method = peer == null ? simple.substring(dot + 1) : contender.getName();
        this.params = params;
        this.threads = threads;
        this.density = density;
        this.error = error;
        this.unit = unit;
        this.allocPerMsg = allocPerMsg;
        this.forkScores = forkScores.clone();
        Transport t = transport(benchmark);
        this.kind = peer != null ? peer.kind() : t == null ? Transport.Kind.BLOCKING : t.kind();
        Map<String, String> shown = new TreeMap<>(params);
        if (peer != null) {
            shown.remove(Transport.PEER);
        }
        this.label = label(peer != null ? peer.label() : t == null ? method : t.label(), shown);
    }

    /** Number of forks measured. */
    int forks() {
        return forkScores.length;
    }

    /** Lowest fork mean (NaN without forks). */
    double forkMin() {
        return Arrays.stream(forkScores).min().orElse(Double.NaN);
    }

    /** Highest fork mean (NaN without forks). */
    double forkMax() {
        return Arrays.stream(forkScores).max().orElse(Double.NaN);
    }

    /**
     * The largest relative error or fork spread a row may have and still be judged:
     * {@value #UNSTABLE_FRACTION} of its mean.
     */
    static final double UNSTABLE_FRACTION = 0.25;

    /**
     * Why this row's figure is not to be trusted, or null when it is: JMH's error (its 99.9 %
     * confidence interval over every measured iteration) above {@link #UNSTABLE_FRACTION} of the
     * mean, or the forks' own means further apart than that fraction of the mean. Such a row says
     * more about the machine during the run (other processes, a fork whose JIT or scheduling went
     * another way) than about the transport; the report marks it and judges no target on it.
     *
     * @return a short reason ("± 87 % of the mean", "fork means 40 % apart"), or null
     */
    String unstable() {
        if (!(density > 0)) {
            return null;
        }
        if (error > UNSTABLE_FRACTION * density) {
            return String.format(java.util.Locale.ROOT, "± %.0f %% of the mean", 100 * error / density);
        }
        if (forks() > 1 && forkMax() - forkMin() > UNSTABLE_FRACTION * density) {
            return String.format(java.util.Locale.ROOT, "fork means %.0f %% apart",
                    100 * (forkMax() - forkMin()) / density);
        }
        return null;
    }

    /** Throughput in messages per second. */
    double throughput() {
        return 1e9 / density;
    }

    /** A secondary result's score, or NaN if the run has none of that name. */
    double secondary(String name) {
        Double v = secondary.get(name);
        return v == null ? Double.NaN : v;
    }

    String param(String name) {
        return params.get(name);
    }

    int intParam(String name) {
        return Integer.parseInt(params.get(name));
    }

    boolean isYsuite() {
        return kind == Transport.Kind.YSUITE;
    }

    private static Transport transport(String benchmark) {
        int dot = benchmark.lastIndexOf('.');
        try {
            Class<?> c = Class.forName(benchmark.substring(0, dot));
            for (Method m : c.getMethods()) {
                if (m.getName().equals(benchmark.substring(dot + 1))) {
                    return m.getAnnotation(Transport.class);
                }
            }
        } catch (ClassNotFoundException e) {
            return null;
        }
        return null;
    }

    /**
     * The contender a row of a benchmark over contenders measured: the enum constant (with its
     * {@link Transport}) that its state's {@link Transport#PEER} parameter names. A
     * row of an older run, whose benchmark method had the contender's name, finds it by that name
     * among the class's contenders. Null for a row of a benchmark method of its own.
     */
    static java.lang.reflect.Field contender(String benchmark, Map<String, String> params) {
        int dot = benchmark.lastIndexOf('.');
        String method = benchmark.substring(dot + 1);
        Class<?> c;
        try {
            c = Class.forName(benchmark.substring(0, dot));
        } catch (ClassNotFoundException e) {
            return null;
        }
        boolean renamed = Arrays.stream(c.getMethods()).noneMatch(m -> m.getName().equals(method));
        String name = renamed ? method : params.get(Transport.PEER);
        for (Method m : c.getMethods()) {
            if (name == null || (renamed ? !m.isAnnotationPresent(org.openjdk.jmh.annotations.Benchmark.class)
                    : !m.getName().equals(method))) {
                continue;
            }
            for (Class<?> state : m.getParameterTypes()) {
                try {
                    Class<?> peers = state.getField(Transport.PEER).getType();
                    java.lang.reflect.Field f = peers.isEnum() ? peers.getField(name) : null;
                    if (f != null && f.isEnumConstant() && f.isAnnotationPresent(Transport.class)) {
                        return f;
                    }
                } catch (NoSuchFieldException e) {
                    // not a contenders' state, or no such contender
                }
            }
        }
        return null;
    }

    private static String label(String base, Map<String, String> params) {
        StringBuilder b = new StringBuilder(base);
        String signaler = params.get("signaler");
        if (signaler != null) {
            b.append(" + ").append(signalerName(signaler));
        }
        String spin = params.get("spin");
        if (spin != null) {
            b.append("0".equals(spin) ? " (pure park)"
                    : String.valueOf(org.ysuite.WaitPolicy.DEFAULT_SPINS).equals(spin) ? " (default policy)"
                    : spin.startsWith("-") ? " (fixed spin " + spin.substring(1) + ")"
                    : " (spin " + spin + ")");
        }
        Map<String, String> rest = new TreeMap<>(params);
        rest.remove("signaler");
        rest.remove("spin");
        rest.remove("size");
        rest.remove("rate");
        rest.remove("batch");
        rest.remove("bytes");
        rest.remove("idleMillis");
        rest.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }

    static String signalerName(String kind) {
        switch (kind) {
            case "semaphore":
                return "YSemaphore";
            case "pollset":
                return "YPollset";
            case "socketpair":
                return "YSocketPair";
            case "eventfd":
                return "YSocketPair (eventfd)";
            default:
                return kind;
        }
    }

    /**
     * The result of one benchmark and parameter set as JMH's runner returned it.
     *
     * @param rr JMH's result (one per benchmark and parameter set, with one part per fork)
     * @return the result
     */
    static Result of(RunResult rr) {
        BenchmarkParams bp = rr.getParams();
        Map<String, String> params = new LinkedHashMap<>();
        for (String key : bp.getParamsKeys()) {
            params.put(key, bp.getParam(key));
        }
        org.openjdk.jmh.results.Result<?> primary = rr.getPrimaryResult();
        org.openjdk.jmh.results.Result<?> norm = rr.getSecondaryResults().get(ALLOC_NORM);
        double[] forks = rr.getBenchmarkResults().stream()
                .mapToDouble(br -> br.getPrimaryResult().getScore()).toArray();
        Result result = new Result(bp.getBenchmark(), params, bp.getThreads(), primary.getScore(),
                primary.getScoreError(), primary.getScoreUnit(), norm == null ? Double.NaN : norm.getScore(), forks);
        rr.getSecondaryResults().forEach((name, r) -> result.secondary.put(name, r.getScore()));
        for (String gauge : GAUGES) {
            double[] its = rr.getBenchmarkResults().stream().flatMap(br -> br.getIterationResults().stream())
                    .map(it -> it.getSecondaryResults().get(gauge)).filter(java.util.Objects::nonNull)
                    .mapToDouble(org.openjdk.jmh.results.Result::getScore).toArray();
            if (its.length > 0) {
                result.secondary.put(gauge, java.util.Arrays.stream(its).average().getAsDouble());
            }
        }
        return result;
    }

    /**
     * Reads the results of an earlier run back from the JSON that JMH wrote for it
     * ({@code jmh-result.json}), with Gson: the benchmark, parameters, threads, primary score and
     * error, the mean of each fork's iterations ({@code rawData}) and {@code gc.alloc.rate.norm}.
     *
     * @param json the document JMH wrote (an array of results)
     * @return the results
     * @throws IllegalArgumentException if the document is not JMH's JSON
     */
    static List<Result> fromJmhJson(String json) {
        List<Result> out = new ArrayList<>();
        try {
            for (JsonElement e : JsonParser.parseString(json).getAsJsonArray()) {
                JsonObject r = e.getAsJsonObject();
                Map<String, String> params = new LinkedHashMap<>();
                if (r.has("params")) {
                    r.getAsJsonObject("params").entrySet().forEach(p -> params.put(p.getKey(), p.getValue().getAsString()));
                }
                JsonObject pm = r.getAsJsonObject("primaryMetric");
                List<Double> forks = new ArrayList<>();
                if (pm.has("rawData")) {
                    for (JsonElement fork : pm.getAsJsonArray("rawData")) {
                        double sum = 0;
                        int n = 0;
                        for (JsonElement it : fork.getAsJsonArray()) {
                            sum += it.getAsDouble();
                            n++;
                        }
                        if (n > 0) {
                            forks.add(sum / n);
                        }
                    }
                }
                double alloc = Double.NaN;
                JsonObject sm = r.getAsJsonObject("secondaryMetrics");
                if (sm != null && sm.has(ALLOC_NORM)) {
                    alloc = num(sm.getAsJsonObject(ALLOC_NORM).get("score"));
                }
                Result result = new Result(r.get("benchmark").getAsString(), params, r.get("threads").getAsInt(),
                        num(pm.get("score")), num(pm.get("scoreError")), pm.get("scoreUnit").getAsString(), alloc,
                        forks.stream().mapToDouble(Double::doubleValue).toArray());
                if (sm != null) {
                    sm.entrySet().forEach(m -> result.secondary.put(m.getKey(), GAUGES.contains(m.getKey())
                            ? meanOfRaw(m.getValue().getAsJsonObject())
                            : num(m.getValue().getAsJsonObject().get("score"))));
                }
                out.add(result);
            }
        } catch (JsonParseException | IllegalStateException | NullPointerException | UnsupportedOperationException ex) {
            throw new IllegalArgumentException("not a JMH JSON result document: " + ex.getMessage(), ex);
        }
        return out;
    }

    /** JMH writes NaN as the string "NaN" (an error of one iteration). */
    private static double num(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return Double.NaN;
        }
        try {
            return e.getAsDouble();
        } catch (NumberFormatException ex) {
            return Double.NaN;
        }
    }
}
