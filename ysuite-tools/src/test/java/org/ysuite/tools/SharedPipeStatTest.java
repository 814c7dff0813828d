package org.ysuite.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ysuite.internal.SharedPipeDescriptor;
import org.ysuite.shared.SharedPipeReader;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;

/** {@link SharedPipeStat}: the table of a live pipe, directories, hostile files, and the tool alone in a JVM. */
class SharedPipeStatTest {

    private static final long PID = ProcessHandle.current().pid();

    /** A fresh directory per test, holding the pipe file {@link #file}. */
    @TempDir
    Path dir;
    Path file;

    @BeforeEach
    void name() {
        file = dir.resolve("pipe");
    }

    @Test
    void aLivePipesRowHoldsItsCountersAndSides() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            sendFiveReadTwo(out, in);
            List<String> lines = lines(SharedPipeStat.format(file));
            assertEquals(2, lines.size(), lines.toString());
            assertEquals(List.of("capacity", "writer", "reader", "flushed", "consumed", "depth", "wakeups", "sleeps",
                    "asleep-ms", "writer-waits", "file"), words(lines.get(0)));
            assertEquals(List.of("4096", "open", "" + PID, "open", "" + PID, "5", "2", "3", "0", "0", "0", "0",
                    file.toString()), words(lines.get(1)));
        }
        List<String> closed = words(lines(SharedPipeStat.format(file)).get(1));
        assertEquals(List.of("closed", "" + PID, "closed", "" + PID, "5", "2", "3"), closed.subList(1, 8));
    }

    @Test
    void aDirectoryShowsItsPipeFilesAndSkipsTheRest() throws Exception {
        Files.writeString(dir.resolve("notes.txt"), "not a pipe");
        Files.writeString(dir.resolve(".pipe.123.tmp"), "a creator's temporary file: passed over");
        Files.createDirectory(dir.resolve("sub"));
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            assertTrue(out.write(new byte[3]));
            assertTrue(out.flush());
            List<String> lines = lines(SharedPipeStat.format(dir));
            assertEquals(3, lines.size(), lines.toString());
            assertEquals(List.of("4096", "open", "" + PID, "free", "1", "0", "1"), words(lines.get(1)).subList(0, 7));
            assertEquals("skipped " + dir.resolve("notes.txt") + ": not a pipe file (no \"YSPIPE01\" magic)",
                    lines.get(2));
        }
    }

    @Test
    void hostileFilesGetOneClearLineEachNeverAnException() throws Exception {
        SharedYPipe.createWriter(file, 4096).close();
        Path wrongMagic = copy("wrong-magic");
        patchFile(wrongMagic, 0, "NOTAPIPE".getBytes(StandardCharsets.US_ASCII));
        Path oldVersion = copy("old-version");
        patchFile(oldVersion, SharedPipeDescriptor.VERSION_AT, intBytes(2));
        Path truncated = copy("truncated");
        try (FileChannel ch = FileChannel.open(truncated, StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }
        Path tiny = dir.resolve("tiny");
        Files.write(tiny, new byte[5]);
        Path garbage = copy("garbage");
        for (int at = SharedPipeDescriptor.ANCHOR_COUNT_AT; at < SharedPipeDescriptor.SLEEP_NANOS_AT + 8; at += 8) {
            patchFile(garbage, at, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, -at).array());
        }
        patchFile(garbage, SharedPipeDescriptor.WRITER_AT, intBytes(7));
        patchFile(garbage, SharedPipeDescriptor.READER_AT, intBytes(SharedPipeDescriptor.OPEN));
        patchFile(garbage, SharedPipeDescriptor.READER_AT + 4, intBytes(-3)); // pid

        List<String> lines = lines(SharedPipeStat.format(wrongMagic, oldVersion, truncated, tiny, garbage));
        assertEquals(6, lines.size(), lines.toString());
        // the garbage printed as it is: states 7 and OPEN of pid -3, counters -offset; the anchor's
        // position (-1048) is no position, so flushed and consumed are its count alone, depth 0
        assertEquals(List.of("4096", "bad", "7", "dead?", "-3", "-1024", "-1024", "0", "-1032", "-1160", "0", "-1040",
                garbage.toString()), words(lines.get(1)));
        assertEquals(List.of(
                wrongMagic + ": not a pipe file (no \"YSPIPE01\" magic)",
                oldVersion + ": pipe file layout version 2, this tool reads version 4",
                truncated + ": truncated or corrupt: 100 bytes, header size 4096 (a pipe file has a 4096-byte header)",
                tiny + ": not a pipe file (5 bytes)"), lines.subList(2, 6));
        assertEquals(1, run("stat", garbage.toString(), wrongMagic.toString()).status, "a named file not shown");
    }

    @Test
    void usageErrorsExitWithTwoAndWatchPrintsRatesFromItsSecondTable() throws Exception {
        assertEquals(2, run().status);
        assertEquals(2, run("stats", file.toString()).status);
        assertEquals(2, run("stat").status);
        assertEquals(2, run("stat", "--bogus", file.toString()).status);
        Result help = run("--help");
        assertEquals(0, help.status);
        assertTrue(help.out.startsWith("usage: java -jar ysuite-tools-VERSION.jar stat"), help.out);
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            assertTrue(out.write(new byte[3]));
            assertTrue(out.flush());
            Result watched = SharedPipeStatTest.run(2, "stat", "--watch", dir.toString());
            assertEquals(0, watched.status, watched.err);
            List<String> lines = lines(watched.out);
            assertEquals(5, lines.size(), watched.out); // header, row, blank, header, row
            assertTrue(lines.get(0).contains(" flushed/s "), lines.get(0));
            assertEquals("-", words(lines.get(1)).get(11), "no rate before the second table");
            assertEquals("0", words(lines.get(4)).get(11), "nothing flushed between the two tables");
        }
    }

    /** {@code stat --help} and {@code stat -h} (also after {@code --watch}) print the usage, exit 0. */
    @Test
    void statHelpPrintsTheUsage() {
        for (String[] args : new String[][] {{"stat", "--help"}, {"stat", "-h"}, {"-h"},
                {"stat", "--watch", "--help"}, {"stat", "--help", file.toString()}}) {
            Result help = run(args);
            assertEquals(0, help.status, String.join(" ", args) + ": " + help.err);
            assertTrue(help.out.contains("stat [--watch] FILE|DIR..."), help.out);
            assertTrue(help.out.contains("jfc > ysuite.jfc"), help.out);
            assertEquals("", help.err, String.join(" ", args));
        }
    }

    /** {@code jfc} prints the jar's settings file: well-formed, every ysuite event enabled. */
    @Test
    void jfcPrintsSettingsThatEnableEveryEvent() throws Exception {
        Result jfc = run("jfc");
        assertEquals(0, jfc.status, jfc.err);
        // The JDK's own parser reads it (what -XX:StartFlightRecording:settings=FILE uses).
        Path saved = dir.resolve("ysuite.jfc");
        Files.writeString(saved, jfc.out);
        java.util.Map<String, String> settings = jdk.jfr.Configuration.create(saved).getSettings();
        for (String event : List.of("Park", "Wakeup", "WriterBlocked", "PeerGone")) {
            assertEquals("true", settings.get("org.ysuite." + event + "#enabled"), event + ": " + settings);
        }
    }

    /**
     * The tool alone: a JVM whose class path is this module's classes and ysuite-core's (what the
     * tools jar holds), without jnr-ffi or any other jar.
     */
    @Test
    void theToolRunsWithItsAndTheCoreClassesAlone() throws Exception {
        Path tools = Path.of(SharedPipeStat.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path core = Path.of(SharedYPipe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.exists(tools.resolve("org/ysuite/tools/ysuite.jfc")), tools.toString());
        for (Path p : List.of(tools, core)) {
            assertFalse(p.toString().contains("jnr"), "the class path must hold no jnr-ffi: " + p);
        }
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            sendFiveReadTwo(out, in);
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            Process p = new ProcessBuilder(java.toString(), "-cp", tools + File.pathSeparator + core,
                    SharedPipeStat.class.getName(), "stat", file.toString()).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), output);
            assertEquals(0, p.exitValue(), output);
            List<String> lines = lines(output);
            assertEquals(2, lines.size(), output);
            assertEquals(List.of("4096", "open", "" + PID, "open", "" + PID, "5", "2", "3"),
                    words(lines.get(1)).subList(0, 8), output);
        }
    }

    private static void sendFiveReadTwo(SharedPipeWriter out, SharedPipeReader in) {
        for (int i = 0; i < 5; i++) {
            assertTrue(out.write(new byte[i + 1]));
        }
        assertTrue(out.flush());
        assertEquals(1, in.read(new byte[8]));
        assertEquals(2, in.read(new byte[8]));
    }

    private Path copy(String name) throws Exception {
        return Files.copy(file, dir.resolve(name));
    }

    private static void patchFile(Path f, int offset, byte[] bytes) throws Exception {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), offset);
        }
    }

    private static byte[] intBytes(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, v).array();
    }

    private static List<String> lines(String text) {
        return text.lines().collect(Collectors.toList());
    }

    private static List<String> words(String line) {
        return Arrays.asList(line.trim().split("\\s+"));
    }

    private static Result run(String... args) {
        return run(1, args);
    }

    private static Result run(int rounds, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = SharedPipeStat.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), rounds);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static final class Result {
        final int status;
        final String out;
        final String err;

        Result(int status, String out, String err) {
            this.status = status;
            this.out = out;
            this.err = err;
        }
    }
}
