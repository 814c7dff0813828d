package org.ysuite.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the report's PNG charts with XChart: bar charts of the worst case and the maximal
 * throughput, density and throughput against the sender batch size (seed 000), throughput, Mb/s
 * and latency against the message size (seed 003), and the sparse-traffic trade-off.
 *
 * <p>Every chart gives each contender the same colour ({@link #colour(Result)}: y-suite always
 * blue, each peer its own), puts its legend below the plot, takes a logarithmic axis where the
 * values span two decades or more, and fits its axes to the data. Under every chart stands the
 * run's caption ({@link #caption(String)}: the machine, the load during the run and the warning
 * when the machine was busy), so a chart copied out of the report keeps its caveat.
 */
final class Charts {

    /** A chart written: its file name (in the results folder) and its title. */
    static final class Chart {
        final String file;
        final String title;

        Chart(String file, String title) {
            this.file = file;
            this.title = title;
        }
    }

    private static final int W = 1300;
    private static final int H = 620;
    /** y-suite's colour on every chart. */
    static final Color YSUITE = new Color(0x1f, 0x5f, 0xc4);
    /** Baselines (the JVM's park/unpark floor, a memory copy). */
    static final Color BASELINE = new Color(0x70, 0x70, 0x70);
    /** Each peer's colour, by its label (the longest matching prefix wins). */
    private static final Map<String, Color> PEERS = new LinkedHashMap<>();

    static {
        PEERS.put("Unix-domain SocketChannel", new Color(0xd6, 0x27, 0x28));
        PEERS.put("AF_UNIX SocketChannel", new Color(0xd6, 0x27, 0x28));
        PEERS.put("SynchronousQueue", new Color(0x8c, 0x56, 0x4b));
        PEERS.put("LinkedTransferQueue", new Color(0x94, 0x67, 0xbd));
        PEERS.put("ArrayBlockingQueue", new Color(0xb5, 0xa6, 0x00));
        PEERS.put("JCTools MpscBlockingConsumerArrayQueue", new Color(0xff, 0x7f, 0x0e));
        PEERS.put("JCTools SpscArrayQueue", new Color(0xf7, 0xb6, 0x6d));
        PEERS.put("Disruptor (BlockingWaitStrategy)", new Color(0x2c, 0xa0, 0x2c));
        PEERS.put("Disruptor (BusySpinWaitStrategy)", new Color(0x8f, 0xd1, 0x7f));
        PEERS.put("Disruptor (LiteBlockingWaitStrategy)", new Color(0x1a, 0x5e, 0x1a));
        PEERS.put("JeroMQ", new Color(0xe3, 0x77, 0xc2));
        PEERS.put("Agrona OneToOneConcurrentArrayQueue (busy-spin)", new Color(0x17, 0xbe, 0xcf));
        PEERS.put("Agrona OneToOneConcurrentArrayQueue + BackoffIdleStrategy", new Color(0x0b, 0x7a, 0x85));
        PEERS.put("Agrona OneToOneRingBuffer", new Color(0x7f, 0xd8, 0xe0));
        PEERS.put("Aeron", new Color(0x5a, 0x3d, 0x8a));
    }

    /** Colours for peers missing from {@link #PEERS}, picked by the label's hash (stable across charts). */
    private static final Color[] OTHERS = {new Color(0xad, 0x49, 0x4a), new Color(0x63, 0x79, 0x39),
        new Color(0x84, 0x3c, 0x39), new Color(0xce, 0x6d, 0xbd), new Color(0x39, 0x3b, 0x79)};

    private final Report report;
    private final Path dir;
    private final List<String> caption;
    private final List<Chart> written = new ArrayList<>();

    /**
     * @param report the run's tables
     * @param dir the results folder
     * @param caption the lines stamped under every chart ({@link #caption(String)})
     */
    Charts(Report report, Path dir, List<String> caption) {
        this.report = report;
        this.dir = dir;
        this.caption = List.copyOf(caption);
    }

    /**
     * The caption of a run's charts, from its {@code machine.md}: the run's title and date, the
     * cpu and cores, the load line and, when the machine was busy, the warning.
     *
     * @param machine the text of {@code machine.md}
     * @return the lines, the load's always among them ("load: n/a" when the run recorded none)
     */
    static List<String> caption(String machine) {
        String title = "";
        String date = "";
        String cpu = "";
        String load = "load: n/a (the run recorded none)";
        String warning = null;
        for (String line : machine.split("\n")) {
            if (line.startsWith("## ")) {
                title = line.substring(3).trim();
            } else if (line.startsWith("- date: ")) {
                date = line.substring(8).trim();
            } else if (line.startsWith("- cpu: ")) {
                cpu = line.substring(7).trim();
            } else if (line.startsWith("- cores: ")) {
                cpu = cpu + ", " + line.substring(9).trim() + " cores";
            } else if (line.startsWith("- load: ")) {
                load = "load: " + line.substring(8).trim();
            } else if (line.startsWith("- load average")) {
                load = load.startsWith("load: n/a") ? line.substring(2).trim() : load;
            } else if (line.startsWith("**WARNING")) {
                warning = line.replace("**", "").trim();
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(String.join(" · ", List.of(title, date, cpu).stream().filter(x -> !x.isEmpty())
                .collect(Collectors.toList())));
        lines.add(load);
        if (warning != null) {
            lines.add(warning);
        }
        return lines;
    }

    /**
     * Writes {@code chart} as a PNG with {@code caption} stamped in a strip under it (a line that
     * starts with "WARNING" in red), wrapped to the chart's width.
     *
     * @param chart an XChart chart
     * @param file the PNG file
     * @param caption the lines to stamp
     * @throws IOException if the file cannot be written
     */
    static void savePng(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file, List<String> caption)
            throws IOException {
        java.awt.image.BufferedImage plot = BitmapEncoder.getBufferedImage(chart);
        int width = plot.getWidth();
        java.awt.Font font = new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN, 13);
        java.awt.image.BufferedImage probe = new java.awt.image.BufferedImage(1, 1,
                java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D pg = probe.createGraphics();
        java.awt.FontMetrics fm = pg.getFontMetrics(font);
        List<String[]> lines = new ArrayList<>(); // {text, "w" for a warning}
        for (String line : caption) {
            String kind = line.startsWith("WARNING") ? "w" : "";
            for (String part : wrap(line, fm, width - 20)) {
                lines.add(new String[] {part, kind});
            }
        }
        pg.dispose();
        int lineHeight = fm.getHeight();
        java.awt.image.BufferedImage out = new java.awt.image.BufferedImage(width,
                plot.getHeight() + lineHeight * lines.size() + 12, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = out.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, out.getWidth(), out.getHeight());
            g.drawImage(plot, 0, 0, null);
            g.setRenderingHint(java.awt.RenderingHints.KEY_TEXT_ANTIALIASING,
                    java.awt.RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setFont(font);
            int y = plot.getHeight() + fm.getAscent() + 4;
            for (String[] l : lines) {
                g.setColor("w".equals(l[1]) ? new Color(0xc0, 0x10, 0x10) : Color.DARK_GRAY);
                g.drawString(l[0], 10, y);
                y += lineHeight;
            }
        } finally {
            g.dispose();
        }
        String name = file.getFileName().toString();
        Path png = name.endsWith(".png") ? file : file.resolveSibling(name + ".png");
        if (!javax.imageio.ImageIO.write(out, "png", png.toFile())) {
            throw new IOException("no PNG writer in this JDK for " + png);
        }
    }

    /** {@code text} cut at spaces into lines no wider than {@code width} pixels. */
    private static List<String> wrap(String text, java.awt.FontMetrics fm, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && fm.stringWidth(line + " " + word) > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.length() == 0 ? "" : " ").append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    /** Draws charts; may fail where the JDK's fonts cannot load. */
    interface Drawing<T> {
        /**
         * Draws.
         *
         * @return what was drawn
         * @throws IOException if a file cannot be written
         */
        List<T> draw() throws IOException;
    }

    /**
     * Runs {@code drawing}, or, where AWT cannot draw text on this machine (a headless server
     * without the font libraries: {@link LinkageError} from {@code libfontmanager}, or AWT's own
     * errors), says so on the terminal and returns no chart: the tables are the report, the
     * charts only show them.
     */
    static <T> List<T> orNone(Drawing<T> drawing) throws IOException {
        try {
            return drawing.draw();
        } catch (LinkageError | java.awt.AWTError | IllegalStateException e) {
            System.out.println("charts left out: this JDK cannot draw text here (" + e + ")");
            return List.of();
        }
    }

    /**
     * The colour of a row's contender: y-suite's blue for every y-suite row, grey for baselines,
     * else the peer's own colour, the same on every chart.
     */
    static Color colour(Result r) {
        if (r.isYsuite()) {
            return YSUITE;
        }
        return colourOf(r.label, r.kind == org.ysuite.bench.support.Transport.Kind.BASELINE);
    }

    static Color colourOf(String label, boolean baseline) {
        String best = null;
        for (String prefix : PEERS.keySet()) {
            if (label.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
                best = prefix;
            }
        }
        if (best != null) {
            return PEERS.get(best);
        }
        return baseline ? BASELINE : OTHERS[Math.floorMod(label.hashCode(), OTHERS.length)];
    }

    List<Chart> drawAll() throws IOException {
        bars("worst-case", "WorstCase", "Worst case: one-way time per message (lower is better)",
                "ns/msg", r -> r.density);
        bars("throughput", "Throughput", "Maximal throughput: messages per second (higher is better)",
                "msgs/sec", Result::throughput);
        batch("batch-density", "Sender-side batching: density", "ns/msg", r -> r.density);
        batch("batch-throughput", "Sender-side batching: throughput", "msgs/sec", Result::throughput);
        size("size-throughput", "Throughput vs message size (OffHeapYPipe)", "msgs/sec", Result::throughput, false);
        size("size-mbps", "Throughput vs message size, Mb/s (OffHeapYPipe vs memory copy)", "Mb/s",
                r -> Report.mbps(r.intParam("size"), r.density), true);
        size("size-density", "Density vs message size (OffHeapYPipe)", "ns/msg", r -> r.density, false);
        size("size-latency", "One-way latency vs message size (OffHeapYPipe ping-pong)", "ns", r -> r.density, false);
        sparse();
        return written;
    }

    /** Whether values from {@code min} to {@code max} span two decades or more (then: log scale). */
    static boolean spansDecades(double min, double max) {
        return min > 0 && max / min >= 100;
    }

    /** Fits an axis to the data: on a log axis the data's range and a quarter, on a linear one a margin of a tenth. */
    private static boolean fit(AxesChartStyler s, boolean yAxis, double[] values, boolean forceLog) {
        return fit(s, yAxis, values, forceLog, false);
    }

    /** As {@link #fit(AxesChartStyler, boolean, double[], boolean)}; bars: whole decades, a third below the shortest bar. */
    private static boolean fit(AxesChartStyler s, boolean yAxis, double[] values, boolean forceLog, boolean bars) {
        double min = Arrays.stream(values).filter(v -> v > 0 && Double.isFinite(v)).min().orElse(1);
        double max = Arrays.stream(values).filter(Double::isFinite).max().orElse(1);
        boolean log = forceLog || spansDecades(min, max);
        double lo;
        double hi;
        if (log && !bars) {
            lo = min / 1.25; // the data's own range: whole decades would leave most of the axis empty
            hi = max * 1.25;
        } else if (log) {
            // a third of the lowest value at least below it: the shortest bar stays visible
            lo = Math.pow(10, Math.floor(Math.log10(min / 3)));
            hi = Math.pow(10, Math.ceil(Math.log10(max)));
            if (hi <= lo) {
                hi = lo * 10;
            }
        } else {
            double pad = (max - min) / 10;
            lo = Math.max(0, min - pad);
            hi = max + (pad == 0 ? Math.abs(max) / 10 + 1 : pad);
        }
        if (yAxis) {
            s.setYAxisLogarithmic(log);
            s.setYAxisMin(lo);
            s.setYAxisMax(hi);
        } else {
            s.setXAxisLogarithmic(log);
            s.setXAxisMin(lo);
            s.setXAxisMax(hi);
        }
        return log;
    }

    private static void commonStyle(Styler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setLegendPosition(Styler.LegendPosition.OutsideE); // right of the plot, never on the data
        s.setLegendLayout(Styler.LegendLayout.Vertical);
        s.setLegendBorderColor(Color.WHITE);
    }

    private void save(Object chart, String name, String title) throws IOException {
        savePng((org.knowm.xchart.internal.chartpart.Chart<?, ?>) chart, dir.resolve(name + ".png"), caption);
        written.add(new Chart(name + ".png", title));
    }

    private XYChart xy(String title, String xTitle, String yTitle) {
        XYChart c = new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        commonStyle(c.getStyler());
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        c.getStyler().setXAxisDecimalPattern("#,##0.##");
        c.getStyler().setMarkerSize(8);
        return c;
    }

    /** y-suite series are told apart on one chart by their marker and line (they share the colour). */
    private static final Marker[] MARKERS = {SeriesMarkers.CIRCLE, SeriesMarkers.DIAMOND, SeriesMarkers.SQUARE,
        SeriesMarkers.TRIANGLE_UP, SeriesMarkers.TRIANGLE_DOWN};

    private static void style(XYSeries s, Color colour, int nthOfColour) {
        s.setLineColor(colour);
        s.setMarkerColor(colour);
        s.setMarker(MARKERS[nthOfColour % MARKERS.length]);
        if (nthOfColour > 0) {
            s.setLineStyle(new BasicStroke(2.0f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10.0f,
                    new float[] {8.0f, 5.0f}, 0.0f));
        }
    }

    /** Adds one line per label, in the contender's colour; returns every y value. */
    private static double[] lines(XYChart c, Map<String, List<Result>> bySeries, ToDoubleFunction<Result> x,
                                  ToDoubleFunction<Result> y) {
        Map<Color, Integer> seen = new LinkedHashMap<>();
        List<Double> ys = new ArrayList<>();
        for (Map.Entry<String, List<Result>> e : bySeries.entrySet()) {
            List<Result> s = e.getValue();
            double[] yv = s.stream().mapToDouble(y).toArray();
            Color colour = colour(s.get(0));
            int n = seen.merge(colour, 1, Integer::sum) - 1;
            style(c.addSeries(e.getKey(), s.stream().mapToDouble(x).toArray(), yv), colour, n);
            Arrays.stream(yv).forEach(ys::add);
        }
        return ys.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private void batch(String name, String title, String yTitle, ToDoubleFunction<Result> y) throws IOException {
        List<Result> rows = report.of("SenderBatch");
        if (rows.isEmpty()) {
            return;
        }
        XYChart c = xy(title, "messages per flush (batch size)", yTitle);
        Map<String, List<Result>> bySeries = group(rows, r -> r.label);
        bySeries.values().forEach(s -> s.sort(Comparator.comparingInt(r -> r.intParam("batch"))));
        double[] ys = lines(c, bySeries, r -> r.intParam("batch"), y);
        fit(c.getStyler(), false, rows.stream().mapToDouble(r -> r.intParam("batch")).toArray(), true);
        fit(c.getStyler(), true, ys, false);
        save(c, name, title);
    }

    private void size(String name, String title, String yTitle, ToDoubleFunction<Result> y, boolean withCopy)
            throws IOException {
        List<Result> rows = report.of("MessageSize");
        String pick = name.equals("size-latency") ? "latency" : "throughput";
        List<String> methods = withCopy ? List.of(pick, "memoryCopy", "memoryCopyRing") : List.of(pick);
        Map<String, List<Result>> bySeries = new LinkedHashMap<>();
        for (String m : methods) {
            List<Result> s = rows.stream().filter(r -> r.method.equals(m))
                    .sorted(Comparator.comparingInt(r -> r.intParam("size"))).collect(Collectors.toList());
            if (!s.isEmpty()) {
                String label = m.equals("latency") ? "OffHeapYPipe one-way latency"
                        : m.equals("memoryCopy") ? "memory copy (one thread, cache-hot)"
                        : m.equals("memoryCopyRing") ? "memory copy through a 1 MiB ring (one thread)" : "OffHeapYPipe";
                bySeries.put(label, s);
            }
        }
        if (bySeries.isEmpty()) {
            return;
        }
        XYChart c = xy(title, "message size [bytes]", yTitle);
        double[] ys = lines(c, bySeries, r -> r.intParam("size"), y);
        fit(c.getStyler(), false, rows.stream().mapToDouble(r -> r.intParam("size")).toArray(), true);
        fit(c.getStyler(), true, ys, false);
        save(c, name, title);
    }

    /**
     * Sparse traffic: each transport's reader CPU against its one-way latency, a line per transport
     * from its 10^4 msgs/s point (a circle) to its 10^5 msgs/s point (a square), both marked.
     */
    private void sparse() throws IOException {
        List<Result> rows = report.of("SparseTraffic").stream().filter(r -> !"0".equals(r.param("rate")))
                .collect(Collectors.toList());
        if (rows.isEmpty()) {
            return;
        }
        String title = "Sparse traffic: reader CPU vs one-way latency, a line per transport";
        XYChart c = xy(title, "reader CPU [% of a core]", "one-way latency [µs]");
        ToDoubleFunction<Result> cpu = r -> r.secondary("readerCpuPercent");
        ToDoubleFunction<Result> latency = r -> r.secondary("latencyNs") / 1000;
        Map<String, List<Result>> bySeries = group(rows, r -> r.label);
        bySeries.values().forEach(s -> s.sort(Comparator.comparingInt(r -> r.intParam("rate"))));
        double[] ys = lines(c, bySeries, cpu, latency);
        for (XYSeries s : c.getSeriesMap().values()) {
            s.setMarker(SeriesMarkers.NONE);
        }
        // the rates: one marker series each, in black over the lines
        Map<Integer, List<Result>> byRate = new TreeMap<>();
        rows.forEach(r -> byRate.computeIfAbsent(r.intParam("rate"), k -> new ArrayList<>()).add(r));
        Marker[] rateMarkers = {SeriesMarkers.CIRCLE, SeriesMarkers.SQUARE, SeriesMarkers.DIAMOND};
        int i = 0;
        for (Map.Entry<Integer, List<Result>> e : byRate.entrySet()) {
            int rate = e.getKey();
            String name = (isPowerOfTen(rate)
                    ? "10^" + (int) Math.round(Math.log10(rate)) : Report.fmtRate(rate)) + " msgs/s";
            XYSeries s = c.addSeries(name, e.getValue().stream().mapToDouble(cpu).toArray(),
                    e.getValue().stream().mapToDouble(latency).toArray());
            s.setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarker(rateMarkers[i++ % rateMarkers.length]);
            s.setMarkerColor(Color.BLACK);
        }
        fit(c.getStyler(), false, rows.stream().mapToDouble(cpu).toArray(), false);
        fit(c.getStyler(), true, ys, false);
        save(c, "sparse", title);
    }

    private static boolean isPowerOfTen(int n) {
        while (n >= 10 && n % 10 == 0) {
            n /= 10;
        }
        return n == 1;
    }

    private void bars(String name, String scenario, String title, String yTitle, ToDoubleFunction<Result> y)
            throws IOException {
        List<Result> rows = report.of(scenario);
        if (rows.isEmpty()) {
            return;
        }
        rows.sort(Comparator.comparingDouble(r -> r.density));
        CategoryChart c = new CategoryChartBuilder().width(1200).height(820).title(title).yAxisTitle(yTitle).build();
        commonStyle(c.getStyler());
        c.getStyler().setYAxisDecimalPattern("#,##0.#");
        c.getStyler().setXAxisLabelRotation(90);
        c.getStyler().setOverlapped(true); // one bar per category: each series has a value at its rows only
        c.getStyler().setAvailableSpaceFill(0.8);
        List<String> labels = rows.stream().map(r -> r.label).collect(Collectors.toList());
        // one series per contender (y-suite's rows together), absent (null) at the other rows
        Map<String, List<Double>> series = new LinkedHashMap<>();
        Map<String, Color> colours = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            Result r = rows.get(i);
            String key = r.isYsuite() ? "y-suite" : r.label;
            int at = i;
            series.computeIfAbsent(key, k -> new ArrayList<>(java.util.Collections.nCopies(rows.size(), null)))
                    .set(at, y.applyAsDouble(r));
            colours.put(key, colour(r));
        }
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            CategorySeries s = c.addSeries(e.getKey(), labels, e.getValue());
            s.setFillColor(colours.get(e.getKey()));
        }
        boolean log = fit(c.getStyler(), true, rows.stream().mapToDouble(y).toArray(), false, true);
        c.getStyler().setLegendVisible(false); // the axis names every bar; y-suite's are blue (in the title)
        c.setTitle(title + (log ? ", log scale" : "") + " — y-suite in blue");
        save(c, name, title);
    }

    private static <K> Map<K, List<Result>> group(List<Result> rows, java.util.function.Function<Result, K> key) {
        Map<K, List<Result>> m = new TreeMap<>();
        for (Result r : rows) {
            m.computeIfAbsent(key.apply(r), k -> new ArrayList<>()).add(r);
        }
        return m;
    }
}
