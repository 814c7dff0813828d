package org.ysuite.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The results as CSV, one row per benchmark and parameter set. */
final class Csv {

    private Csv() {
    }

    static String of(List<Result> results) {
        StringBuilder b = new StringBuilder(
                "scenario,benchmark,label,kind,params,threads,density_ns_per_msg,error_ns,throughput_msgs_per_s,"
                        + "alloc_bytes_per_msg,forks,fork_min_ns,fork_max_ns\n");
        for (Result r : results) {
            String params = r.params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(";"));
            b.append(r.scenario).append(',').append(r.method).append(',').append(q(r.label)).append(',')
                    .append(r.kind).append(',').append(q(params)).append(',').append(r.threads).append(',')
                    .append(String.format(Locale.ROOT, "%.3f,%.3f,%.1f,%.4f,%d,%.3f,%.3f", r.density, r.error,
                            r.throughput(), r.allocPerMsg, r.forks(), r.forkMin(), r.forkMax()))
                    .append('\n');
        }
        return b.toString();
    }

    private static String q(String s) {
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
