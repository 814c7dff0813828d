package org.ysuite.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Draws the report's PNG charts with XChart: density and throughput against the sender batch
 * size (seed 000), throughput and Mb/s against the message size (seed 003), and bar charts of
 * the worst case and the maximal throughput.
 */
final class Charts {

    private static final int W = 900;
    private static final int H = 540;

    private final Report report;
    private final Path dir;
    private final List<String> written = new ArrayList<>();

    Charts(Report report, Path dir) {
        this.report = report;
        this.dir = dir;
    }

    List<String> drawAll() throws IOException {
        batch("batch-density", "Sender-side batching: density", "ns/msg", r -> r.density);
        batch("batch-throughput", "Sender-side batching: throughput", "msgs/sec", Result::throughput);
        size("size-throughput", "Throughput vs message size (OffHeapYPipe)", "msgs/sec",
                r -> r.throughput(), false);
        size("size-mbps", "Throughput vs message size, Mb/s (OffHeapYPipe vs memory copy)", "Mb/s",
                r -> Report.mbps(r.intParam("size"), r.density), true);
        size("size-density", "Density vs message size (OffHeapYPipe)", "ns/msg", r -> r.density, false);
        size("size-latency", "One-way latency vs message size (OffHeapYPipe ping-pong)", "ns",
                r -> r.density, false);
        bars("worst-case", "WorstCase", "Worst case: one-way ns/msg (lower is better)", "ns/msg",
                r -> r.density);
        bars("throughput", "Throughput", "Maximal throughput: msgs/sec (higher is better)", "msgs/sec",
                Result::throughput);
        sparse();
        return written;
    }

    /** Sparse traffic: each transport's reader CPU against its one-way latency, one point per rate. */
    private void sparse() throws IOException {
        List<Result> rows = report.of("SparseTraffic").stream().filter(r -> !"0".equals(r.param("rate")))
                .collect(Collectors.toList());
        if (rows.isEmpty()) {
            return;
        }
        XYChart c = new XYChartBuilder().width(W).height(H)
                .title("Sparse traffic: reader CPU vs one-way latency (a line per transport, 10^4 -> 10^5 msgs/s)")
                .xAxisTitle("reader CPU [% of a core]").yAxisTitle("one-way latency [us]").build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (Map.Entry<String, List<Result>> e : group(rows, r -> r.label).entrySet()) {
            List<Result> s = e.getValue();
            s.sort(Comparator.comparingInt(r -> r.intParam("rate")));
            c.addSeries(e.getKey(), s.stream().mapToDouble(r -> r.secondary("readerCpuPercent")).toArray(),
                    s.stream().mapToDouble(r -> r.secondary("latencyNs") / 1000).toArray());
        }
        save(c, "sparse");
    }

    private void save(Object chart, String name) throws IOException {
        Path file = dir.resolve(name);
        if (chart instanceof XYChart) {
            BitmapEncoder.saveBitmap((XYChart) chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        } else {
            BitmapEncoder.saveBitmap((CategoryChart) chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        }
        written.add(name + ".png");
    }

    private XYChart xy(String title, String xTitle, String yTitle) {
        XYChart c = new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setYAxisDecimalPattern("#,###");
        c.getStyler().setXAxisDecimalPattern("#,###");
        return c;
    }

    private void batch(String name, String title, String yTitle, ToDoubleFunction<Result> y) throws IOException {
        List<Result> rows = report.of("SenderBatch");
        if (rows.isEmpty()) {
            return;
        }
        XYChart c = xy(title, "messages per flush (batch size)", yTitle);
        Map<String, List<Result>> bySeries = group(rows, r -> r.label);
        for (Map.Entry<String, List<Result>> e : bySeries.entrySet()) {
            List<Result> s = e.getValue();
            s.sort(Comparator.comparingInt(r -> r.intParam("batch")));
            c.addSeries(e.getKey(), s.stream().mapToDouble(r -> r.intParam("batch")).toArray(),
                    s.stream().mapToDouble(y).toArray());
        }
        save(c, name);
    }

    private void size(String name, String title, String yTitle, ToDoubleFunction<Result> y, boolean withCopy)
            throws IOException {
        List<Result> rows = report.of("MessageSize");
        if (rows.isEmpty()) {
            return;
        }
        XYChart c = xy(title, "message size [bytes]", yTitle);
        String pick = name.equals("size-latency") ? "latency" : "throughput";
        List<Result> pipe = rows.stream().filter(r -> r.method.equals(pick))
                .sorted(Comparator.comparingInt(r -> r.intParam("size"))).collect(Collectors.toList());
        if (!pipe.isEmpty()) {
            c.addSeries(pick.equals("latency") ? "OffHeapYPipe one-way latency" : "OffHeapYPipe",
                    pipe.stream().mapToDouble(r -> r.intParam("size")).toArray(),
                    pipe.stream().mapToDouble(y).toArray());
        }
        if (withCopy) {
            List<Result> copy = rows.stream().filter(r -> r.method.equals("memoryCopy"))
                    .sorted(Comparator.comparingInt(r -> r.intParam("size"))).collect(Collectors.toList());
            if (!copy.isEmpty()) {
                c.addSeries("memory copy (one thread, cache-hot)",
                        copy.stream().mapToDouble(r -> r.intParam("size")).toArray(),
                        copy.stream().mapToDouble(y).toArray());
            }
            List<Result> ring = rows.stream().filter(r -> r.method.equals("memoryCopyRing"))
                    .sorted(Comparator.comparingInt(r -> r.intParam("size"))).collect(Collectors.toList());
            if (!ring.isEmpty()) {
                c.addSeries("memory copy through a 1 MiB ring (one thread)",
                        ring.stream().mapToDouble(r -> r.intParam("size")).toArray(),
                        ring.stream().mapToDouble(y).toArray());
            }
            c.getStyler().setYAxisLogarithmic(true);
            double max = c.getSeriesMap().values().stream()
                    .flatMapToDouble(sr -> java.util.Arrays.stream(sr.getYData())).max().orElse(1);
            double min = c.getSeriesMap().values().stream()
                    .flatMapToDouble(sr -> java.util.Arrays.stream(sr.getYData())).min().orElse(1);
            c.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(max))));
            c.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
        }
        if (!c.getSeriesMap().isEmpty()) {
            save(c, name);
        }
    }

    private void bars(String name, String scenario, String title, String yTitle, ToDoubleFunction<Result> y)
            throws IOException {
        List<Result> rows = report.of(scenario);
        if (rows.isEmpty()) {
            return;
        }
        rows.sort(Comparator.comparingDouble(r -> r.density));
        CategoryChart c = new CategoryChartBuilder().width(1100).height(720).title(title).yAxisTitle(yTitle).build();
        c.getStyler().setYAxisDecimalPattern("#,###");
        c.getStyler().setXAxisLabelRotation(60);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        c.getStyler().setOverlapped(true);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        List<String> labels = rows.stream().map(r -> r.label).collect(Collectors.toList());
        // one series per kind, zero elsewhere, so the kinds get their own colours
        Map<String, double[]> series = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            Result r = rows.get(i);
            series.computeIfAbsent(Report.kindName(r.kind), k -> new double[rows.size()])[i] = y.applyAsDouble(r);
        }
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            List<Double> v = new ArrayList<>();
            for (double d : e.getValue()) {
                v.add(d);
            }
            c.addSeries(e.getKey(), labels, v);
        }
        save(c, name);
    }

    private static <K> Map<K, List<Result>> group(List<Result> rows, java.util.function.Function<Result, K> key) {
        Map<K, List<Result>> m = new TreeMap<>();
        for (Result r : rows) {
            m.computeIfAbsent(key.apply(r), k -> new ArrayList<>()).add(r);
        }
        return m;
    }
}
