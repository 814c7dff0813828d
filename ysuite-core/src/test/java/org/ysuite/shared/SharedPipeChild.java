package org.ysuite.shared;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The writer process of the two-JVM tests: {@code SharedPipeChild <file> <firstSeq> <count|-1>
 * <seed> <maxLength> [go]} opens the pipe's writer side, prints {@code OPEN} (with {@code go}:
 * then waits for a line on its standard input), writes {@code count}
 * {@link SharedMessages} (forever for -1) flushing after random batches, then closes and prints
 * {@code DONE}. Also {@link #start} it from a test.
 */
public final class SharedPipeChild {

    private SharedPipeChild() {
    }

    /**
     * The child's entry point.
     *
     * @param args file, first sequence number, count (-1: until killed), seed, longest message,
     *     optionally {@code go} (wait for a byte on standard input after OPEN)
     * @throws Exception on any failure (the exit status is then non-zero)
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        long seq = Long.parseLong(args[1]);
        long count = Long.parseLong(args[2]);
        SharedMessages messages = new SharedMessages(Long.parseLong(args[3]), Integer.parseInt(args[4]));
        SplittableRandom batches = new SplittableRandom(Long.parseLong(args[3]) ^ 0x5DEECE66DL);
        try (SharedPipeWriter out = SharedYPipe.builder(file).openWriter()) {
            System.out.println("OPEN");
            System.out.flush();
            if (args.length > 5 && "go".equals(args[5]) && System.in.read() < 0) {
                throw new IllegalStateException("no go: the test's end of standard input closed");
            }
            long end = count < 0 ? Long.MAX_VALUE : seq + count;
            int batch = 1 + batches.nextInt(16);
            while (seq < end) {
                int length = messages.make(seq);
                while (!out.write(messages.bytes(), 0, length, false)) {
                    out.flush();
                    out.awaitSpace(length);
                }
                seq++;
                if (--batch == 0) {
                    out.flush();
                    batch = 1 + batches.nextInt(16);
                }
            }
            out.flush();
        }
        System.out.println("DONE");
        System.out.flush();
    }

    /**
     * Starts a child JVM running this class with {@code args}, on the test's own class path
     * (module path entries included), standard error inherited.
     */
    static Process start(boolean quickStart, String... args) throws Exception {
        return new ProcessBuilder(command(SharedPipeChild.class, quickStart, args))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** The command line of a child JVM running {@code main} with {@code args} on the test's class path. */
    public static List<String> command(Class<?> main, boolean quickStart, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        if (Runtime.version().feature() >= 24) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.add("-Xmx64m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Xshare:auto");
        if (quickStart) {
            cmd.add("-XX:TieredStopAtLevel=1");
        }
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add(main.getName());
        for (String a : args) {
            cmd.add(a);
        }
        return cmd;
    }

    /** The test's classes, the library's and its dependencies, whether on module or class path. */
    static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        entries.add(Paths.get("target", "test-classes").toAbsolutePath().toString());
        entries.add(Paths.get("target", "classes").toAbsolutePath().toString());
        for (String property : new String[] {"jdk.module.path", "java.class.path"}) {
            String value = System.getProperty(property);
            if (value != null) {
                for (String e : value.split(File.pathSeparator)) {
                    if (!e.isEmpty() && (e.contains("jnr") || e.contains("jffi") || e.contains("asm")
                            || e.endsWith("classes"))) {
                        entries.add(e);
                    }
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
