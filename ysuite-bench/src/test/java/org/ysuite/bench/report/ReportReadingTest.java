package org.ysuite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user reads: the one help, the direction of every ratio of the targets table, the
 * "unstable" verdict, the run folders that keep earlier runs, and the charts' caption.
 */
class ReportReadingTest {

    /** A JMH JSON result: score, error, and one fork per {@code forks} entry (its iterations). */
    private static String json(String benchmark, String params, double score, double error, double[]... forks) {
        StringBuilder raw = new StringBuilder("[");
        for (int f = 0; f < forks.length; f++) {
            raw.append(f == 0 ? "" : ",").append('[');
            for (int i = 0; i < forks[f].length; i++) {
                raw.append(i == 0 ? "" : ",").append(forks[f][i]);
            }
            raw.append(']');
        }
        raw.append(']');
        return "{\"benchmark\":\"org.ysuite.bench." + benchmark + "\",\"mode\":\"avgt\",\"threads\":1,"
                + "\"forks\":" + forks.length + ",\"params\":{" + params + "},"
                + "\"primaryMetric\":{\"score\":" + score + ",\"scoreError\":" + error + ",\"scoreUnit\":\"ns/op\","
                + "\"rawData\":" + raw + "},\"secondaryMetrics\":{}}";
    }

    /** A stable row: error 2 % of the score, two forks 2 % apart. */
    private static String stable(String benchmark, String params, double score) {
        return json(benchmark, params, score, score * 0.02, new double[] {score * 0.99}, new double[] {score * 1.01});
    }

    /** The seed plan's rows, y-suite's densities multiplied by {@code ysFactor} against fixed peers. */
    private static List<Result> seedRun(double ysFactor) {
        List<String> rows = new ArrayList<>();
        for (String sig : new String[] {"pollset", "semaphore"}) {
            rows.add(stable("Throughput.ypipe", "\"signaler\":\"" + sig + "\"", 20 * ysFactor));
            rows.add(stable("WorstCase.ypipe", "\"signaler\":\"" + sig + "\",\"spin\":\"0\"", 4000 * ysFactor));
            rows.add(stable("WorstCase.ypipe", "\"signaler\":\"" + sig + "\",\"spin\":\"200\"", 30 * ysFactor));
        }
        rows.add(stable("Throughput.peer", "\"peer\":\"jctoolsMpscBlocking\"", 40));
        rows.add(stable("Throughput.peer", "\"peer\":\"unixSocketChannel\"", 4000));
        rows.add(stable("WorstCase.peer", "\"peer\":\"jctoolsMpscBlocking\"", 4400));
        rows.add(stable("WorstCase.peer", "\"peer\":\"unixSocketChannel\"", 6000));
        rows.add(stable("WorstCase.peer", "\"peer\":\"parkUnpark\"", 4100));
        rows.add(stable("WorstCase.peer", "\"peer\":\"jctoolsMpscBlockingSpin\"", 60));
        return Result.fromJmhJson("[" + String.join(",", rows) + "]");
    }

    /**
     * The "measured" ratios of the targets table that compare y-suite with a peer (the rows that
     * compare two y-suite rows, YPollset against YSemaphore, left out).
     */
    private static List<Double> targetRatios(String md) {
        String targets = md.substring(md.indexOf("### Targets"));
        List<Double> ratios = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^\\| ([^|]+) \\| >= [0-9.]+x \\| ([0-9.]+)x \\|").matcher(targets);
        while (m.find()) {
            if (!m.group(1).contains("YPollset vs YSemaphore")) {
                ratios.add(Double.parseDouble(m.group(2)));
            }
        }
        return ratios;
    }

    @Test
    void everyTargetRatioIsYsuitesAdvantageAndEveryGoalALowerBound() {
        String better = new Report(seedRun(0.5), 2).render("");
        String worse = new Report(seedRun(2.0), 2).render("");
        assertTrue(better.contains(Targets.HOW_RATIOS_READ), "the header says how the ratios read");
        List<Double> up = targetRatios(better);
        List<Double> down = targetRatios(worse);
        assertTrue(up.size() >= 10, "the seed's targets are there: " + up);
        assertEquals(up.size(), down.size());
        for (int i = 0; i < up.size(); i++) {
            // the same row, y-suite twice as fast in one run and half as fast in the other: the
            // advantage falls four times, whichever figure (a time, a rate) the row compares
            assertEquals(4.0, up.get(i) / down.get(i), 0.05, "row " + i + ": " + up.get(i) + " vs " + down.get(i));
        }
        Matcher goals = Pattern.compile("(?m)^\\| [^|]+ \\| ([<>]=) [0-9.]+x \\|").matcher(better);
        while (goals.find()) {
            assertEquals(">=", goals.group(1), "every goal on a ratio is a lower bound");
        }
    }

    @Test
    void theDefaultPolicyIsHeldAgainstTheSameSpinAndPureParkAgainstPeersThatBlockAtOnce() {
        String md = new Report(seedRun(1), 2).render("");
        String targets = md.substring(md.indexOf("### Targets"));
        assertTrue(targets.contains("| worst case, one-way time of a ping-pong: YPipe + YSemaphore (default policy) vs "
                + "the same spin before take() | >= 1.00x | 2.00x | met | 30.0 vs 60.0 ns one-way"), targets);
        assertFalse(targets.contains("(pure park) vs the same spin"), targets);
        assertTrue(targets.contains("| worst case, one-way time of a ping-pong: YPipe + YSemaphore (pure park) vs best "
                + "blocking peer | >= 1.00x | 1.10x | met | 4,000 vs 4,400 ns one-way"), targets);
    }

    @Test
    void advantageIsHigherIsBetterForCostsAndRates() {
        assertEquals(2.0, Targets.advantage(10, 20, false), 1e-12, "half the time per message");
        assertEquals(2.0, Targets.advantage(20, 10, true), 1e-12, "twice the rate");
    }

    @Test
    void theWorstCaseRowsSayTheyShowOneWayTime() {
        String md = new Report(seedRun(1), 2).render("");
        String targets = md.substring(md.indexOf("### Targets"));
        assertFalse(targets.contains("round trip:"), "the worst case's density is one-way time, not a round trip");
        assertTrue(targets.contains("worst case, one-way time of a ping-pong"));
    }

    @Test
    void aRowWithALargeErrorOrForkSpreadIsUnstableAndNotJudged() {
        Result noisy = Result.fromJmhJson("[" + json("Throughput.ypipe", "\"signaler\":\"semaphore\"", 100, 875,
                new double[] {40, 300}, new double[] {50, 60}) + "]").get(0);
        assertNotNull(noisy.unstable());
        Result forksApart = Result.fromJmhJson("[" + json("Throughput.ypipe", "\"signaler\":\"semaphore\"", 100, 5,
                new double[] {70}, new double[] {130}) + "]").get(0);
        assertTrue(forksApart.unstable().contains("fork means 60 % apart"), forksApart.unstable());
        Result steady = Result.fromJmhJson("[" + stable("Throughput.ypipe", "\"signaler\":\"semaphore\"", 100) + "]")
                .get(0);
        assertNull(steady.unstable());

        List<String> rows = new ArrayList<>();
        rows.add(json("Throughput.ypipe", "\"signaler\":\"semaphore\"", 100, 875, new double[] {40, 300}));
        rows.add(stable("Throughput.peer", "\"peer\":\"jctoolsMpscBlocking\"", 40));
        String md = new Report(Result.fromJmhJson("[" + String.join(",", rows) + "]"), 2).render("");
        String row = md.lines().filter(l -> l.startsWith("| throughput, flush per message: YPipe + YSemaphore vs best"))
                .findFirst().orElseThrow();
        assertTrue(row.contains("*unstable*"), row);
        assertFalse(row.contains("missed"), "an unstable row is not judged: " + row);
        assertTrue(md.contains("*unstable*: ± 875 % of the mean"), "the transport table marks it too");
    }

    @Test
    void helpListsEveryPlanOptionSectionAndRawJmh() {
        String help = Help.text();
        for (String s : new String[] {"--seed", "--all", "--quick", "--full", "--smoke", "--out DIR", "--from DIR",
            "--include REGEX", "report net", "--streams N", "--veth", "report amqp", "YSUITE_RABBITMQ_URI",
            "report zmq", "-l ", "-jmh-help", "--help", "results/latest"}) {
            assertTrue(help.contains(s), "the help names " + s);
        }
        assertTrue(help.contains(String.format(Locale.ROOT, "%d forks, warm-up %d x 0.4 s, measured %d x 0.25 s",
                ReportRunner.Mode.SEED.forks, ReportRunner.Mode.SEED.warmups, ReportRunner.Mode.SEED.iterations)),
                "the default plan's lengths: " + help);
    }

    @Test
    void reportHelpPrintsTheSameHelpForEverySectionAndRunsNothing() throws Exception {
        for (String[] args : new String[][] {{"--help"}, {"-h"}, {"net", "--help"}, {"amqp", "-h"}, {"--all", "--help"}}) {
            PrintStream old = System.out;
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            int rc;
            try {
                rc = ReportRunner.run(args);
            } finally {
                System.setOut(old);
            }
            assertEquals(0, rc, String.join(" ", args));
            assertEquals(Help.text(), buf.toString(StandardCharsets.UTF_8), String.join(" ", args));
        }
    }

    @Test
    void theQuickPlanIsDescribedBeforeItStarts() {
        ReportRunner.Mode all = ReportRunner.Mode.QUICK;
        String d = ReportRunner.describe(all, null, ReportRunner.plan(all, null, 2), 2);
        Matcher m = Pattern.compile("Plan --all: (\\d+) benchmarks \\(parameter sets\\), (\\d+) forked JVMs.*About "
                + "(\\d+) min").matcher(d);
        assertTrue(m.find(), d);
        assertTrue(Integer.parseInt(m.group(1)) > 50, d);
        assertTrue(Integer.parseInt(m.group(3)) >= 5, d);
    }

    @Test
    void eachRunGetsItsOwnFolderAndLatestPointsToTheNewest(@TempDir Path tmp) throws Exception {
        Path base = tmp.resolve("results");
        LocalDateTime t = LocalDateTime.of(2026, 1, 2, 3, 4, 5);
        Path first = RunFolder.create(base, t);
        Files.writeString(first.resolve("report.md"), "first");
        Path second = RunFolder.create(base, t);
        assertNotEquals(first, second, "a second run in the same second gets a folder of its own");
        assertEquals("first", Files.readString(first.resolve("report.md")), "the earlier run is kept");
        Path latest = RunFolder.markLatest(base, first);
        RunFolder.markLatest(base, second);
        assertEquals(second.toRealPath(), latest.toRealPath(), "latest points at the newest run");
        assertEquals("2026-01-02T03-04-05", first.getFileName().toString());

        Path other = tmp.resolve("other");
        Files.createDirectories(other.resolve(RunFolder.LATEST)); // a real folder a user chose with --out
        Files.writeString(other.resolve(RunFolder.LATEST).resolve("report.md"), "mine");
        assertNull(RunFolder.markLatest(other, RunFolder.create(other, t)), "a real folder is left alone");
        assertEquals("mine", Files.readString(other.resolve(RunFolder.LATEST).resolve("report.md")));
    }

    @Test
    void everyChartCarriesTheLoadLineAndTheWarning(@TempDir Path tmp) throws Exception {
        String machine = "## ysuite benchmark report (seed run)\n\n- date: 2026-01-02T03:04:05Z\n- cpu: Some CPU\n"
                + "- cores: 2\n- load: other processes used 1.06 cores on average during the run, steal 0.00\n\n"
                + "**WARNING: the machine was busy: other processes used 1.06 of its 2 cores**\n";
        List<String> caption = Charts.caption(machine);
        assertTrue(caption.contains("load: other processes used 1.06 cores on average during the run, steal 0.00"),
                caption.toString());
        assertTrue(caption.stream().anyMatch(l -> l.startsWith("WARNING: the machine was busy")), caption.toString());
        List<Charts.Chart> charts = Charts.orNone(new Charts(new Report(seedRun(1), 2), tmp, caption)::drawAll);
        org.junit.jupiter.api.Assumptions.assumeFalse(charts.isEmpty(), "this JDK cannot draw text here");
        for (Charts.Chart c : charts) {
            java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(tmp.resolve(c.file).toFile());
            // the caption strip under the plot: dark text on white in its last lines
            boolean text = false;
            for (int y = img.getHeight() - 40; y < img.getHeight() && !text; y++) {
                for (int x = 0; x < img.getWidth() / 2 && !text; x++) {
                    text = (img.getRGB(x, y) & 0xffffff) != 0xffffff;
                }
            }
            assertTrue(text, c.file + " has its caption");
        }
    }
}
