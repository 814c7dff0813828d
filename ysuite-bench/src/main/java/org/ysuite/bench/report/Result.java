package org.ysuite.bench.report;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.ysuite.bench.support.Transport;

/**
 * One benchmark result read from JMH's JSON: which benchmark, parameters and threads, the
 * density (ns per message) with its error, and the allocation per message from {@code -prof gc}.
 */
final class Result {

    final String benchmark;
    final String scenario;
    final String method;
    final Map<String, String> params;
    final int threads;
    final double density;
    final double error;
    final String unit;
    final double allocPerMsg;
    final String label;
    final Transport.Kind kind;

    private Result(String benchmark, Map<String, String> params, int threads, double density,
                   double error, String unit, double allocPerMsg) {
        this.benchmark = benchmark;
        String simple = benchmark.substring("org.ysuite.bench.".length());
        int dot = simple.lastIndexOf('.');
        this.scenario = simple.substring(0, dot);
        this.method = simple.substring(dot + 1);
        this.params = params;
        this.threads = threads;
        this.density = density;
        this.error = error;
        this.unit = unit;
        this.allocPerMsg = allocPerMsg;
        Transport t = transport(benchmark);
        this.kind = t == null ? Transport.Kind.BLOCKING : t.kind();
        this.label = label(t == null ? method : t.label(), params);
    }

    /** Throughput in messages per second. */
    double throughput() {
        return 1e9 / density;
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

    private static String label(String base, Map<String, String> params) {
        StringBuilder b = new StringBuilder(base);
        String signaler = params.get("signaler");
        if (signaler != null) {
            b.append(" + ").append(signalerName(signaler));
        }
        String spin = params.get("spin");
        if (spin != null) {
            b.append("0".equals(spin) ? " (pure park)" : " (spin " + spin + ")");
        }
        Map<String, String> rest = new TreeMap<>(params);
        rest.remove("signaler");
        rest.remove("spin");
        rest.remove("size");
        rest.remove("batch");
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
     * Reads every result of a JMH JSON document.
     *
     * @param json the document (an array of results)
     * @return the results
     */
    @SuppressWarnings("unchecked")
    static List<Result> fromJson(String json) {
        List<Result> out = new ArrayList<>();
        for (Object o : (List<Object>) Json.parse(json)) {
            Map<String, Object> r = (Map<String, Object>) o;
            Map<String, String> params = new LinkedHashMap<>();
            Object p = r.get("params");
            if (p instanceof Map) {
                ((Map<String, Object>) p).forEach((k, v) -> params.put(k, String.valueOf(v)));
            }
            Map<String, Object> pm = (Map<String, Object>) r.get("primaryMetric");
            double alloc = Double.NaN;
            Object sm = r.get("secondaryMetrics");
            if (sm instanceof Map) {
                Object norm = ((Map<String, Object>) sm).get("gc.alloc.rate.norm");
                if (norm instanceof Map) {
                    alloc = num(((Map<String, Object>) norm).get("score"));
                }
            }
            out.add(new Result((String) r.get("benchmark"), params,
                    (int) num(r.get("threads")), num(pm.get("score")), num(pm.get("scoreError")),
                    (String) pm.get("scoreUnit"), alloc));
        }
        return out;
    }

    private static double num(Object o) {
        if (o instanceof Number) {
            return ((Number) o).doubleValue();
        }
        if (o == null) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(o.toString());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
