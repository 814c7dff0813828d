package org.ysuite.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.ysuite.bench.net.Peer;

/**
 * The network section's tables (seed 003: throughput, Mb/s, density and latency against the
 * message size, the buffer-size sweep; seed 004: independent streams; seed 002: client/server),
 * the ratios of the ysuite rows to the peers of the same run, the targets, and the charts.
 */
final class NetReport {

    /** Secondary result: the client process's CPU per message (ns). */
    static final String CLIENT_CPU = "clientCpuNs";
    /** Secondary result: the server process's CPU per message (ns). */
    static final String SERVER_CPU = "serverCpuNs";
    /** Secondary results of the round trip: percentiles (ns). */
    static final String P50 = "p50", P99 = "p99", P999 = "p99.9";
    private static final String ROUND_TRIP = "net.RoundTrip";

    private final List<Result> results;
    private final int cores;
    private final StringBuilder out = new StringBuilder();

    NetReport(List<Result> results, int cores) {
        this.results = results;
        this.cores = cores;
    }

    private List<Result> rows(String scenario, Predicate<Result> p) {
        return results.stream().filter(r -> r.scenario.equals(scenario)).filter(p).collect(Collectors.toList());
    }

    /** The one-stream, 8 KiB-buffer rows of a scenario on {@code net}. */
    private Map<Integer, Map<Peer, Result>> bySize(String scenario, String net) {
        Map<Integer, Map<Peer, Result>> m = new TreeMap<>();
        for (Result r : rows(scenario, r -> r.threads == 1 && net.equals(r.param("net"))
                && ("8192".equals(r.param("bufferSize")) || !"ysuite".equals(r.param("peer"))))) {
            m.computeIfAbsent(r.intParam("size"), k -> new TreeMap<>()).put(Peer.of(r.param("peer")), r);
        }
        return m;
    }

    private static double rate(Result r) {
        return r == null ? Double.NaN : r.throughput();
    }

    private static double ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? Double.NaN : a / b;
    }

    String render(String header) {
        out.append(header);
        for (String net : nets()) {
            throughput(net);
            latency(net);
        }
        bufferSweep();
        streams();
        roundTrip();
        clientServer();
        targets();
        return out.toString();
    }

    private TreeSet<String> nets() {
        TreeSet<String> nets = new TreeSet<>(Comparator.comparing((String n) -> !"loopback".equals(n)).thenComparing(n -> n));
        results.stream().map(r -> r.param("net")).filter(n -> n != null).forEach(nets::add);
        return nets;
    }

    private void throughput(String net) {
        Map<Integer, Map<Peer, Result>> m = bySize("net.NetThroughput", net);
        if (m.isEmpty()) {
            return;
        }
        out.append("\n### Seed 003: throughput, one stream, ").append(net)
                .append(" (ysuite buffer 8 KiB; msgs/s per peer)\n\n| size [B] | ysuite density [ns/msg] | ysuite [Mb/s] |");
        for (Peer p : Peer.values()) {
            out.append(' ').append(p.label()).append(" |");
        }
        out.append(" ysuite's advantage over JeroMQ | over Netty writeAndFlush | over raw TCP | ysuite alloc [B/msg] | ysuite app thread alloc [B/msg] |\n|");
        for (int i = 0; i < Peer.values().length + 8; i++) {
            out.append("---:|");
        }
        out.append('\n');
        m.forEach((size, row) -> {
            Result y = row.get(Peer.YSUITE);
            out.append("| ").append(size).append(" | ").append(y == null ? "" : Report.fmtDensity(y.density))
                    .append(" | ").append(y == null ? "" : Report.fmtRate(Report.mbps(size, y.density))).append(" |");
            for (Peer p : Peer.values()) {
                out.append(' ').append(Report.fmtRate(rate(row.get(p)))).append(" |");
            }
            out.append(' ').append(Report.fmtRatio(ratio(rate(y), rate(row.get(Peer.JEROMQ)))))
                    .append(" | ").append(Report.fmtRatio(ratio(rate(y), rate(row.get(Peer.NETTY_FLUSH)))))
                    .append(" | ").append(Report.fmtRatio(ratio(rate(y), rate(row.get(Peer.TCP)))))
                    .append(" | ").append(y == null ? "" : Report.fmtAlloc(y.allocPerMsg))
                    .append(" | ").append(y == null ? "" : Report.fmtAlloc(appAlloc(y))).append(" |\n");
        });
        out.append("\nThroughput is measured at the sending application thread; every path is bounded (windows, socket"
                + " buffers, JeroMQ's high-water mark, Netty's writability), so it runs at the receiver's pace. The"
                + " servers are separate JVMs; Netty's and JeroMQ's servers consume on their I/O thread, ysuite's and raw"
                + " TCP's hand each message to (or read it on) an application thread. Alloc is -prof gc's"
                + " gc.alloc.rate.norm of the client JVM: the application thread and its event loop together; app"
                + " thread alloc is the sending thread's own (ThreadMXBean, over the measured iterations).\n");
    }

    private void latency(String net) {
        Map<Integer, Map<Peer, Result>> m = bySize("net.NetLatency", net);
        if (m.isEmpty()) {
            return;
        }
        out.append("\n### Seed 003: latency (one-way = round trip / 2, µs), ").append(net).append("\n\n| size [B] |");
        Peer[] peers = {Peer.YSUITE, Peer.YSUITE_LOOP, Peer.TCP, Peer.JEROMQ, Peer.NETTY_FLUSH};
        for (Peer p : peers) {
            out.append(' ').append(p.label()).append(" |");
        }
        out.append(" ysuite's advantage over JeroMQ REQ/REP | over raw TCP |\n|");
        for (int i = 0; i < peers.length + 3; i++) {
            out.append("---:|");
        }
        out.append('\n');
        m.forEach((size, row) -> {
            out.append("| ").append(size).append(" |");
            for (Peer p : peers) {
                Result r = row.get(p);
                out.append(' ').append(r == null ? "" : String.format(Locale.ROOT, "%.1f", r.density / 2000)).append(" |");
            }
            Result y = row.get(Peer.YSUITE);
            out.append(' ').append(Report.fmtRatio(ratio(dens(row.get(Peer.JEROMQ)), dens(y))))
                    .append(" | ").append(Report.fmtRatio(ratio(dens(row.get(Peer.TCP)), dens(y)))).append(" |\n");
        });
        out.append("\nThe ratios are the peer's latency / ysuite's: higher is better; above 1.00x ysuite is faster.\n");
    }

    private static double dens(Result r) {
        return r == null ? Double.NaN : r.density;
    }

    private void bufferSweep() {
        List<Result> rows = rows("net.NetThroughput", r -> r.threads == 1 && "ysuite".equals(r.param("peer"))
                && r.intParam("size") == 6 && "loopback".equals(r.param("net")));
        if (rows.size() < 2) {
            return;
        }
        rows.sort(Comparator.comparingInt(r -> r.intParam("bufferSize")));
        out.append("\n### Seed 003: ysuite buffer size (the batch cap), 6-byte messages, loopback\n\n"
                + "| buffer [B] | density [ns/msg] | throughput [msgs/s] | [Mb/s] |\n|---:|---:|---:|---:|\n");
        for (Result r : rows) {
            out.append("| ").append(r.param("bufferSize")).append(" | ").append(Report.fmtDensity(r.density))
                    .append(" | ").append(Report.fmtRate(r.throughput())).append(" | ")
                    .append(Report.fmtRate(Report.mbps(6, r.density))).append(" |\n");
        }
    }

    private void streams() {
        List<Result> rows = rows("net.NetThroughput", r -> "loopback".equals(r.param("net"))
                && "8192".equals(r.param("bufferSize")) && ("ysuite".equals(r.param("peer")) || "tcp".equals(r.param("peer"))));
        Map<String, List<Result>> groups = new TreeMap<>();
        for (Result r : rows) {
            groups.computeIfAbsent(r.param("peer") + " " + r.param("size"), k -> new ArrayList<>()).add(r);
        }
        groups.values().removeIf(g -> g.stream().noneMatch(r -> r.threads > 1));
        if (groups.isEmpty()) {
            return;
        }
        out.append("\n### Seed 004: independent streams (each its own connection, server process and event loops),"
                + " loopback\n\n| peer | size [B] | streams | aggregate [msgs/s] | aggregate [Mb/s] | per-stream density [ns/msg] |"
                + "\n|---|---:|---:|---:|---:|---:|\n");
        groups.forEach((k, g) -> {
            g.sort(Comparator.comparingInt(r -> r.threads));
            for (Result r : g) {
                double agg = r.threads * r.throughput();
                out.append("| ").append(r.param("peer")).append(" | ").append(r.param("size")).append(" | ")
                        .append(r.threads).append(" | ").append(Report.fmtRate(agg)).append(" | ")
                        .append(Report.fmtRate(agg * r.intParam("size") * 8 / 1e6)).append(" | ")
                        .append(Report.fmtDensity(r.density)).append(" |\n");
            }
        });
        out.append("\nThis machine has ").append(cores).append(" cores: one stream already uses four threads (two per"
                + " side) plus the servers' JVMs, so more streams cannot show scaling here; the harness takes the"
                + " stream count as a parameter (--streams N) for bigger machines.\n");
    }

    private void clientServer() {
        List<Result> rows = rows("net.ClientServer", r -> true);
        if (rows.isEmpty()) {
            return;
        }
        Map<Peer, Map<String, Result>> m = new TreeMap<>();
        for (Result r : rows) {
            m.computeIfAbsent(Peer.of(r.param("peer")), k -> new TreeMap<>()).put(r.method, r);
        }
        String twoWay = rows.stream().filter(r -> r.method.endsWith("twoway")).map(r -> r.param("messages"))
                .findFirst().orElse("–");
        String oneWay = rows.stream().filter(r -> r.method.endsWith("oneway")).map(r -> r.param("messages"))
                .findFirst().orElse("–");
        out.append("\n### Seed 002: client and server in two JVMs, ").append(twoWay).append(" requests two-way, ")
                .append(oneWay).append(" messages one-way, loopback\n\n| peer | two-way [requests/s] | CPU per request, client / server [µs] |"
                        + " one-way [msgs/s] | CPU per message, client / server [ns] |\n|---|---:|---:|---:|---:|\n");
        m.forEach((p, r) -> out.append("| ").append(p.label()).append(" | ")
                .append(Report.fmtRate(rate(r.get("twoway")))).append(" | ").append(cpu(r.get("twoway"), 1e3))
                .append(" | ").append(Report.fmtRate(rate(r.get("oneway")))).append(" | ").append(cpu(r.get("oneway"), 1))
                .append(" |\n"));
        out.append("\nTwo-way: a request of two ints answered by their sum; one-way: one int per message, then an empty"
                + " message after which the server reports its count (checked). Wall-clock of each timed pass, the median of "
                + org.ysuite.bench.net.ClientServer.TIMED_PASSES + " passes, after an"
                + " untimed warm-up on the same connection (passes of a tenth of one, for at least "
                + org.ysuite.bench.net.ClientServer.WARMUP_NANOS / 1e9 + " s). CPU: the on-CPU time of every thread of the"
                + " client process (this JVM) and of the server process (/proc/PID/task/*/schedstat) over the median pass,"
                + " per message.\n");
    }

    /** "client / server" CPU per message of a row, in {@code unit} ns; empty without the row. */
    private static String cpu(Result r, double unit) {
        if (r == null || Double.isNaN(r.secondary(CLIENT_CPU))) {
            return "";
        }
        return String.format(Locale.ROOT, unit == 1 ? "%.0f / %.0f" : "%.1f / %.1f",
                r.secondary(CLIENT_CPU) / unit, r.secondary(SERVER_CPU) / unit);
    }

    /**
     * A result of the round-trip measurement ({@code org.ysuite.bench.net.RoundTrip.request}).
     *
     * @param peer the peer
     * @param size the request's size
     * @param mean mean round trip, ns
     * @param p50 median, ns
     * @param p99 99th percentile, ns
     * @param p999 99.9th percentile, ns
     * @param clientCpu client process CPU per round trip, ns
     * @param serverCpu server process CPU per round trip, ns
     * @param samples how many round trips were timed
     * @return the result (density: the mean)
     */
    static Result roundTripResult(Peer peer, int size, double mean, double p50, double p99, double p999,
                                  double clientCpu, double serverCpu, int samples) {
        Map<String, String> params = new java.util.LinkedHashMap<>();
        params.put("peer", peer.param());
        params.put("size", Integer.toString(size));
        params.put("samples", Integer.toString(samples));
        Result r = new Result("org.ysuite.bench.net.RoundTrip.request", params, 1, mean, Double.NaN, "ns/op",
                Double.NaN, new double[] {mean});
        r.secondary.put(P50, p50);
        r.secondary.put(P99, p99);
        r.secondary.put(P999, p999);
        r.secondary.put(CLIENT_CPU, clientCpu);
        r.secondary.put(SERVER_CPU, serverCpu);
        return r;
    }

    private Map<Peer, Result> roundTrips() {
        Map<Peer, Result> m = new TreeMap<>();
        rows(ROUND_TRIP, r -> true).forEach(r -> m.put(Peer.of(r.param("peer")), r));
        return m;
    }

    private static double p(Result r, String which) {
        return r == null ? Double.NaN : which == null ? r.density : r.secondary(which);
    }

    private void roundTrip() {
        Map<Peer, Result> m = roundTrips();
        if (m.isEmpty()) {
            return;
        }
        Result any = m.values().iterator().next();
        out.append("\n### ").append(any.param("size")).append(" B request/response, loopback (round trip, µs; ")
                .append(any.param("samples")).append(" timed per peer)\n\n| peer | mean | p50 | p99 | p99.9 |"
                        + " CPU per round trip, client [µs] | CPU per round trip, server [µs] |\n|---|---:|---:|---:|---:|---:|---:|\n");
        m.forEach((peer, r) -> out.append("| ").append(peer.label()).append(" | ")
                .append(us(r.density)).append(" | ").append(us(r.secondary(P50))).append(" | ")
                .append(us(r.secondary(P99))).append(" | ").append(us(r.secondary(P999))).append(" | ")
                .append(us(r.secondary(CLIENT_CPU))).append(" | ").append(us(r.secondary(SERVER_CPU))).append(" |\n"));
        out.append("\nEvery peer's client and echoing server (a JVM each) are connected at once and the rounds take turns"
                + " between the peers, so a change of load hits all alike; each round trip is timed on its own"
                + " (System.nanoTime). CPU: every thread of the client process (this JVM) and of the server process"
                + " (/proc/PID/task/*/schedstat), per round trip.\n");
    }

    private static String us(double ns) {
        return Double.isNaN(ns) ? "" : String.format(Locale.ROOT, "%.1f", ns / 1e3);
    }

    private void targets() {
        out.append("\n### Targets (loopback, one stream, ratios within this run)\n\n").append(Targets.HOW_RATIOS_READ)
                .append("\n\n| target | measured | met |\n|---|---|---|\n");
        Map<Integer, Map<Peer, Result>> t = bySize("net.NetThroughput", "loopback");
        for (int size : new int[] {6, 64}) {
            Map<Peer, Result> row = t.get(size);
            if (row == null) {
                continue;
            }
            double j = ratio(rate(row.get(Peer.YSUITE)), rate(row.get(Peer.JEROMQ)));
            double n = ratio(rate(row.get(Peer.YSUITE)), rate(row.get(Peer.NETTY_FLUSH)));
            target("throughput " + size + " B: advantage over JeroMQ PUSH/PULL >= 3.00x", j, j >= 3.0);
            target("throughput " + size + " B: advantage over Netty writeAndFlush >= 1.50x", n, n >= 1.5);
        }
        Map<Peer, Result> big = t.get(65536);
        if (big != null) {
            double r = ratio(rate(big.get(Peer.YSUITE)), rate(big.get(Peer.TCP)));
            target("64 KiB bandwidth: advantage over raw TCP >= 0.80x", r, r >= 0.8);
        }
        Map<Integer, Map<Peer, Result>> l = bySize("net.NetLatency", "loopback");
        l.forEach((size, row) -> {
            if (size <= 4096) {
                double j = ratio(dens(row.get(Peer.JEROMQ)), dens(row.get(Peer.YSUITE)));
                double tcp = ratio(dens(row.get(Peer.TCP)), dens(row.get(Peer.YSUITE)));
                target("latency " + size + " B: ysuite's advantage over JeroMQ REQ/REP >= 1.00x", j, j >= 1.0);
                // at most 1.3 times raw TCP's latency
                target("latency " + size + " B: ysuite's advantage over raw TCP >= 0.77x", tcp, tcp >= 1 / 1.3);
            }
        });
        Map<String, Map<Peer, Result>> cs = new TreeMap<>();
        for (Result r : rows("net.ClientServer", x -> true)) {
            cs.computeIfAbsent(r.method, k -> new TreeMap<>()).put(Peer.of(r.param("peer")), r);
        }
        Map<Peer, Result> rt = roundTrips();
        for (Peer y : new Peer[] {Peer.YSUITE, Peer.YSUITE_LOOP}) {
            Result yr = rt.get(y);
            if (yr == null) {
                continue;
            }
            for (String which : new String[] {null, P99}) {
                String stat = which == null ? "mean" : which;
                double n = ratio(p(rt.get(Peer.NETTY_FLUSH), which), p(yr, which));
                double j = ratio(p(rt.get(Peer.JEROMQ), which), p(yr, which));
                double tcp = ratio(p(rt.get(Peer.TCP), which), p(yr, which));
                String what = y.param() + " " + yr.param("size") + " B round trip, " + stat + ": advantage over ";
                target(what + "plain Netty >= 1.00x", n, n >= 1.0);
                target(what + "JeroMQ REQ/REP >= 1.00x", j, j >= 1.0);
                // at most twice raw TCP's round trip
                target(what + "raw TCP >= 0.50x", tcp, tcp >= 0.5);
            }
        }
        if (cs.containsKey("twoway")) {
            for (Peer y : new Peer[] {Peer.YSUITE, Peer.YSUITE_LOOP}) {
                if (y == Peer.YSUITE || cs.get("twoway").containsKey(y)) {
                    double r = ratio(rate(cs.get("twoway").get(y)), rate(cs.get("twoway").get(Peer.JEROMQ)));
                    target((y == Peer.YSUITE ? "" : y.param() + " ") + "seed 002 two-way: advantage over JeroMQ REQ/REP >= 1.00x", r, r >= 1.0);
                }
            }
        }
        if (cs.containsKey("oneway")) {
            double r = ratio(rate(cs.get("oneway").get(Peer.YSUITE)), rate(cs.get("oneway").get(Peer.JEROMQ)));
            target("seed 002 one-way: advantage over JeroMQ PUSH/PULL >= 3.00x", r, r >= 3.0);
        }
        double worst = rows("net.NetThroughput", r -> Peer.of(r.param("peer")) == Peer.YSUITE).stream()
                .mapToDouble(NetReport::appAlloc).filter(a -> !Double.isNaN(a)).max().orElse(Double.NaN);
        out.append("| 0 B/op on the application side (most of any ysuite throughput row, B/msg) | ")
                .append(Double.isNaN(worst) ? "not measured" : Report.fmtAlloc(worst)).append(" | ")
                .append(Double.isNaN(worst) ? "not measured" : worst < 0.5 ? "yes" : "no").append(" |\n");
        out.append("\nThe 0 B/op target is for the application side: the sending thread's own allocation"
                + " (ThreadMXBean); -prof gc's figure (the alloc column) is the whole client JVM, event loop included.\n");
    }

    /** The sending application thread's bytes per message (NaN if the run did not count them). */
    static double appAlloc(Result r) {
        double messages = r.secondary("appMessages");
        return messages > 0 ? r.secondary("appAllocBytes") / messages : Double.NaN;
    }

    private void target(String what, double measured, boolean met) {
        out.append("| ").append(what).append(" | ").append(Report.fmtRatio(measured)).append(" | ")
                .append(Double.isNaN(measured) ? "not measured" : met ? "yes" : "no").append(" |\n");
    }

    List<String> charts(Path dir, List<String> caption) throws IOException {
        List<String> written = new ArrayList<>();
        for (String net : nets()) {
            chart(dir, caption, written, "net-throughput-" + net, "Seed 003 throughput vs message size (" + net + ")", "msgs/s",
                    bySize("net.NetThroughput", net), Result::throughput, false);
            chart(dir, caption, written, "net-mbps-" + net, "Seed 003 throughput vs message size, Mb/s (" + net + ")", "Mb/s",
                    bySize("net.NetThroughput", net), r -> Report.mbps(r.intParam("size"), r.density), true);
            chart(dir, caption, written, "net-latency-" + net, "Seed 003 one-way latency vs message size (" + net + ")", "µs",
                    bySize("net.NetLatency", net), r -> r.density / 2000, false);
        }
        return written;
    }

    private static void chart(Path dir, List<String> caption, List<String> written, String name, String title, String yTitle,
                              Map<Integer, Map<Peer, Result>> m, ToDoubleFunction<Result> y, boolean logY)
            throws IOException {
        if (m.size() < 2) {
            return;
        }
        XYChart c = new XYChartBuilder().width(900).height(540).title(title).xAxisTitle("message size [bytes]")
                .yAxisTitle(yTitle).build();
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setYAxisLogarithmic(logY);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (Peer p : Peer.values()) {
            List<Map.Entry<Integer, Result>> pts = m.entrySet().stream().filter(e -> e.getValue().containsKey(p))
                    .map(e -> Map.entry(e.getKey(), e.getValue().get(p))).collect(Collectors.toList());
            if (!pts.isEmpty()) {
                c.addSeries(p.label(), pts.stream().mapToDouble(e -> e.getKey()).toArray(),
                        pts.stream().mapToDouble(e -> y.applyAsDouble(e.getValue())).toArray());
            }
        }
        Charts.savePng(c, dir.resolve(name + ".png"), caption);
        written.add(name + ".png");
    }
}
