package org.ysuite.tools;

import static org.ysuite.internal.SharedPipeDescriptor.CAPACITY_AT;
import static org.ysuite.internal.SharedPipeDescriptor.CLOSED;
import static org.ysuite.internal.SharedPipeDescriptor.FREE;
import static org.ysuite.internal.SharedPipeDescriptor.HEADER_SIZE;
import static org.ysuite.internal.SharedPipeDescriptor.HEADER_SIZE_AT;
import static org.ysuite.internal.SharedPipeDescriptor.INT;
import static org.ysuite.internal.SharedPipeDescriptor.LONG;
import static org.ysuite.internal.SharedPipeDescriptor.MAGIC;
import static org.ysuite.internal.SharedPipeDescriptor.MAGIC_AT;
import static org.ysuite.internal.SharedPipeDescriptor.OPEN;
import static org.ysuite.internal.SharedPipeDescriptor.READER_AT;
import static org.ysuite.internal.SharedPipeDescriptor.VERSION;
import static org.ysuite.internal.SharedPipeDescriptor.VERSION_AT;
import static org.ysuite.internal.SharedPipeDescriptor.WRITER_AT;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.ysuite.internal.CheckedRecordRing;
import org.ysuite.internal.RecordRing;
import org.ysuite.internal.SharedPipeCounters;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;

/**
 * The shared pipes' stat tool, in the spirit of Aeron's {@code AeronStat}: prints the counters
 * that each {@link SharedYPipe} keeps in its file (see {@link SharedPipeWriter#stats()} for what
 * they count), for every pipe file it is given or finds in a directory, once or every second.
 * <pre>
 * java -jar ysuite-tools-VERSION.jar stat [--watch] FILE|DIR...
 * java -jar ysuite-tools-VERSION.jar jfc &gt; ysuite.jfc
 * </pre>
 * The jar's main class is this one; {@code jfc} prints the Flight Recorder settings that enable
 * every ysuite event (the jar's resource {@code org/ysuite/tools/ysuite.jfc}, see
 * docs/observability.md).
 * A directory is listed, not descended into: its regular files whose magic number is a pipe
 * file's are shown, other files are skipped with a note on standard error, and names starting
 * with {@code .} (a creator's temporary files) are passed over. A file that cannot be shown (a
 * named file that is not a pipe file, another layout version, shorter than the header,
 * unreadable) gets one line on standard error. With {@code --watch}, the table is printed every
 * second with each pipe's messages flushed per second, until the tool is stopped.
 *
 * <p>The tool only reads: it opens no side and takes no lock, maps the file read-only and reads
 * each counter once, untorn (the message counts: the writer's anchor plus the records it walks in
 * the ring, see {@code SharedPipeCounters}); it loads nothing but this jar's classes (no
 * jnr-ffi): the tools jar holds ysuite-core's classes and runs alone. A side's state is
 * {@code open PID} while the process that opened it is alive, {@code dead? PID} when no process with that pid and start time is
 * visible (it died without closing, or it runs in another pid namespace: without the side's
 * lock the tool cannot tell), {@code closed PID}, {@code free} or {@code bad N} for a value no
 * ysuite writes.
 *
 * <p>Exit status: 0 when every named file was shown, 1 when a named file could not be, 2 for a
 * usage error.
 */
public final class SharedPipeStat {

    private static final String USAGE = "usage: java -jar ysuite-tools-VERSION.jar stat [--watch] FILE|DIR...\n"
            + "  prints the counters of each shared pipe file given, or found in a given directory\n"
            + "  --watch  print them again every second, with messages flushed per second\n"
            + "  -h, --help  print this text\n"
            + "usage: java -jar ysuite-tools-VERSION.jar jfc > ysuite.jfc\n"
            + "  prints Flight Recorder settings that enable every ysuite event; then\n"
            + "  java -XX:StartFlightRecording:settings=default,settings=ysuite.jfc,filename=app.jfr ...";

    /** The settings file enabling every ysuite event: a resource of this jar (from docs/ysuite.jfc). */
    static final String JFC_RESOURCE = "ysuite.jfc";

    private SharedPipeStat() {
    }

    /**
     * Runs the tool: {@code stat [--watch] FILE|DIR...} (see the class description).
     *
     * @param args the command {@code stat}, an optional {@code --watch}, then files and directories
     */
    public static void main(String[] args) {
        int status = run(args, System.out, System.err, Integer.MAX_VALUE);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Returns the table the tool prints once for {@code paths} (files and directories): the
     * header line, one line per pipe file, then one line per file that could not be shown or
     * was skipped.
     *
     * @param paths pipe files, and directories to look in
     * @return the lines, each ending with a line separator
     * @throws NullPointerException if {@code paths} or one of them is null
     */
    public static String format(Path... paths) {
        Objects.requireNonNull(paths, "paths");
        StringBuilder out = new StringBuilder();
        StringBuilder notes = new StringBuilder();
        new Round(false).print(Arrays.asList(paths), out, notes);
        return out.append(notes).toString();
    }

    /** The tool, with its streams, for {@code rounds} rounds at most (a test's bound on --watch). */
    static int run(String[] args, PrintStream out, PrintStream err, int rounds) {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        if (rest.size() == 1 && (rest.get(0).equals("--help") || rest.get(0).equals("-h"))) {
            out.println(USAGE);
            return 0;
        }
        if (rest.size() == 1 && rest.get(0).equals("jfc")) {
            return printJfc(out, err);
        }
        if (rest.isEmpty() || !rest.remove(0).equals("stat")) {
            err.println(USAGE);
            return 2;
        }
        if (rest.contains("--help") || rest.contains("-h")) {
            out.println(USAGE);
            return 0;
        }
        boolean watch = !rest.isEmpty() && rest.get(0).equals("--watch");
        if (watch) {
            rest.remove(0);
        }
        if (rest.isEmpty() || rest.get(0).startsWith("-")) {
            err.println(rest.isEmpty() ? "stat: no FILE or DIR given" : "stat: unknown option " + rest.get(0));
            err.println(USAGE);
            return 2;
        }
        List<Path> paths = new ArrayList<>();
        for (String a : rest) {
            paths.add(Path.of(a));
        }
        Round round = new Round(watch);
        for (int i = 0; ; i++) {
            StringBuilder table = new StringBuilder();
            StringBuilder notes = new StringBuilder();
            boolean allShown = round.print(paths, table, notes);
            out.print(table);
            out.flush();
            err.print(notes);
            err.flush();
            if (!watch || i + 1 >= rounds) {
                return allShown ? 0 : 1;
            }
            try {
                TimeUnit.SECONDS.sleep(1);
            } catch (InterruptedException e) {
                return allShown ? 0 : 1;
            }
            out.println();
        }
    }

    /** Prints the jar's settings file (the command {@code jfc}); 1 if the jar lacks it. */
    private static int printJfc(PrintStream out, PrintStream err) {
        try (java.io.InputStream in = SharedPipeStat.class.getResourceAsStream(JFC_RESOURCE)) {
            if (in == null) {
                err.println("jfc: the resource org/ysuite/tools/" + JFC_RESOURCE + " is not in this jar");
                return 1;
            }
            out.write(in.readAllBytes());
            out.flush();
            return 0;
        } catch (IOException e) {
            err.println("jfc: cannot read org/ysuite/tools/" + JFC_RESOURCE + ": " + e);
            return 1;
        }
    }

    /** One table; in --watch, also what the last one saw (rates, and the mappings kept). */
    private static final class Round {
        private final boolean watch;
        /** Each file's header mapping, kept while the file is the same (re-mapping leaks until a GC). */
        private Map<Path, Mapping> mappings = new HashMap<>();
        private Map<Path, Long> lastFlushed = new HashMap<>();
        private long lastNanos;

        Round(boolean watch) {
            this.watch = watch;
        }

        /** Prints the table; false if a named file could not be shown. */
        boolean print(List<Path> paths, StringBuilder out, StringBuilder notes) {
            long now = System.nanoTime();
            Map<Path, Mapping> seen = new HashMap<>();
            Map<Path, Long> flushed = new HashMap<>();
            out.append(String.format("%10s %-13s %-13s %12s %12s %10s %10s %10s %11s %12s %s%s%n",
                    "capacity", "writer", "reader", "flushed", "consumed", "depth", "wakeups", "sleeps",
                    "asleep-ms", "writer-waits", watch ? "flushed/s  " : "", "file"));
            boolean allShown = true;
            for (Path p : paths) {
                if (Files.isDirectory(p)) {
                    for (Path f : list(p, notes)) {
                        show(f, false, now, seen, flushed, out, notes);
                    }
                } else {
                    allShown &= show(p, true, now, seen, flushed, out, notes);
                }
            }
            mappings = seen;
            lastFlushed = flushed;
            lastNanos = now;
            return allShown;
        }

        private boolean show(Path file, boolean named, long now, Map<Path, Mapping> seen,
                Map<Path, Long> flushed, StringBuilder out, StringBuilder notes) {
            try {
                Mapping m = map(file, named, notes);
                if (m == null) {
                    return false;
                }
                seen.put(file, m);
                ByteBuffer h = m.header;
                String writer = side(h, WRITER_AT);
                String reader = side(h, READER_AT);
                SharedPipeCounters.Values v = SharedPipeCounters.read(h, m.ring);
                String rate = "";
                if (watch) {
                    Long before = lastFlushed.get(file);
                    rate = before == null ? String.format("%10s ", "-")
                            : String.format("%10d ", (long) ((v.flushed - before) * 1e9 / Math.max(1, now - lastNanos)));
                }
                flushed.put(file, v.flushed);
                out.append(String.format("%10d %-13s %-13s %12d %12d %10d %10d %10d %11d %12d %s%s%n",
                        m.capacity, writer, reader, v.flushed, v.consumed, v.depth(), v.wakeups, v.sleeps,
                        TimeUnit.NANOSECONDS.toMillis(v.sleepNanos), v.writerWaits, rate, file));
                return true;
            } catch (InternalError e) {
                notes.append(file).append(": truncated while being read (").append(e.getMessage()).append(")\n");
                return false;
            }
        }

        /**
         * The file's header, mapped read-only (the last round's mapping while it is the same
         * file), or null with a note: not a pipe file, another version, too short, unreadable.
         */
        private Mapping map(Path file, boolean named, StringBuilder notes) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = ch.size();
                ByteBuffer fixed = ByteBuffer.allocate(32).order(ByteOrder.nativeOrder());
                while (fixed.hasRemaining() && ch.read(fixed, fixed.position()) > 0) {
                    // the fixed fields, written once when the file was made
                }
                if (fixed.position() < 8 || fixed.getLong(MAGIC_AT) != MAGIC) {
                    notes.append(named ? "" : "skipped ").append(file).append(": not a pipe file (")
                            .append(fixed.position() < 8 ? size + " bytes" : "no \"YSPIPE01\" magic").append(")\n");
                    return null;
                }
                int version = fixed.position() < 12 ? -1 : fixed.getInt(VERSION_AT);
                if (version != VERSION) {
                    notes.append(file).append(": pipe file layout version ").append(version)
                            .append(", this tool reads version ").append(VERSION).append('\n');
                    return null;
                }
                if (size < HEADER_SIZE || fixed.getInt(HEADER_SIZE_AT) != HEADER_SIZE) {
                    notes.append(file).append(": truncated or corrupt: ").append(size).append(" bytes, header size ")
                            .append(fixed.position() < 16 ? "?" : fixed.getInt(HEADER_SIZE_AT))
                            .append(" (a pipe file has a ").append(HEADER_SIZE).append("-byte header)\n");
                    return null;
                }
                Object key = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
                Mapping last = mappings.get(file);
                if (last != null && key != null && key.equals(last.key)) {
                    return last;
                }
                ByteBuffer header = ch.map(FileChannel.MapMode.READ_ONLY, 0, HEADER_SIZE).order(ByteOrder.nativeOrder());
                int capacity = fixed.getInt(CAPACITY_AT);
                return new Mapping(key, header, capacity, ring(ch, size, capacity, file));
            } catch (NoSuchFileException e) {
                notes.append(file).append(": no such file\n");
            } catch (AccessDeniedException e) {
                notes.append(file).append(": permission denied\n");
            } catch (IOException e) {
                notes.append(file).append(": cannot read: ").append(e.getMessage()).append('\n');
            }
            return null;
        }
    }

    /**
     * The file's ring, mapped read-only, for the message counts' walk ({@code SharedPipeCounters});
     * null if the header's capacity is no ring's or the file is too short for it (the counts then
     * show the writer's anchor alone).
     */
    private static CheckedRecordRing ring(FileChannel ch, long size, int capacity, Path file) throws IOException {
        try {
            RecordRing.checkCapacity(capacity);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (size < (long) HEADER_SIZE + capacity) {
            return null;
        }
        return new CheckedRecordRing(ch.map(FileChannel.MapMode.READ_ONLY, HEADER_SIZE, capacity), file.toString());
    }

    /**
     * A mapping: the file it maps (its key), its capacity (written once, at creation), its header
     * and its ring (or null).
     */
    private static final class Mapping {
        final Object key;
        final ByteBuffer header;
        final int capacity;
        final CheckedRecordRing ring;

        Mapping(Object key, ByteBuffer header, int capacity, CheckedRecordRing ring) {
            this.key = key;
            this.header = header;
            this.capacity = capacity;
            this.ring = ring;
        }
    }

    /** A directory's regular files (not followed links, not descended), by name; not "." ones. */
    private static List<Path> list(Path dir, StringBuilder notes) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (!p.getFileName().toString().startsWith(".") && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    files.add(p);
                }
            }
        } catch (IOException e) {
            notes.append(dir).append(": cannot list: ").append(e).append('\n');
        }
        files.sort(null);
        return files;
    }

    /** A side's record: its state (read once), and who holds it. */
    private static String side(ByteBuffer header, int at) {
        int state = (int) INT.getAcquire(header, at); // publishes pid and start time
        int pid = (int) INT.getOpaque(header, at + 4);
        long startMillis = (long) LONG.getOpaque(header, at + 8);
        switch (state) {
            case FREE:
                return "free";
            case OPEN:
                return (alive(pid, startMillis) ? "open " : "dead? ") + pid;
            case CLOSED:
                return "closed " + pid;
            default:
                return "bad " + state;
        }
    }

    /** A visible process with that pid, started then (within a second) if the time is known. */
    private static boolean alive(int pid, long startMillis) {
        Optional<ProcessHandle> p = pid <= 0 ? Optional.empty() : ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return false;
        }
        return startMillis < 0 || p.get().info().startInstant()
                .map(t -> Math.abs(t.toEpochMilli() - startMillis) < 1000).orElse(true);
    }
}
