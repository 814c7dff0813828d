package org.ysuite.moduletest;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.ysuite.OffHeapYPipe;
import org.ysuite.PollableSignaler;
import org.ysuite.YPipe;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;
import org.ysuite.YSocketPair;
import org.ysuite.shared.SharedPipeReader;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;

/**
 * Uses every kind of ysuite type from a named module and prints one line per check, then
 * {@code consumer: ok}. Any failure is an exception and a non-zero exit status.
 */
public final class Consumer {

    /** Messages passed through each pipe. */
    static final int MESSAGES = 1_000;

    private Consumer() {
    }

    /**
     * Runs the checks.
     *
     * @param args ignored
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        System.out.println("module: " + Consumer.class.getModule().getName()
                + " reads " + YPipe.class.getModule().getName());
        System.out.println("YPipe+YSemaphore: " + pipeThrough(new YSemaphore()));
        System.out.println("YPipe+YPollset: " + pipeThrough(new YPollset()));
        for (YSocketPair.Kind kind : YSocketPair.Kind.values()) {
            try (YSocketPair pair = new YSocketPair(kind)) {
                System.out.println("YPipe+YSocketPair(" + kind + "): " + pipeThrough(pair));
            }
        }
        System.out.println("OffHeapYPipe: " + offHeap());
        System.out.println("SharedYPipe: " + shared());
        System.out.println("internal hidden: " + internalHidden());
        System.out.println("consumer: ok");
    }

    /**
     * One writer thread sends {@link #MESSAGES} integers through a {@link YPipe}, signalling the
     * reader (this thread) whenever a flush finds it asleep.
     */
    private static int pipeThrough(PollableSignaler signaler) throws InterruptedException {
        YPipe<Integer> pipe = new YPipe<>();
        Thread writer = new Thread(() -> {
            for (int i = 0; i < MESSAGES; i++) {
                pipe.write(i);
                if (!pipe.flush()) {
                    signaler.signal(0);
                }
            }
        }, "consumer-writer");
        writer.start();
        int expected = 0;
        while (expected < MESSAGES) {
            Integer v = pipe.read();
            if (v == null) {
                if (signaler.poll(id -> { }, 10, TimeUnit.SECONDS) == 0) {
                    throw new AssertionError("no wake-up within 10 s after message " + expected);
                }
                continue;
            }
            if (v != expected) {
                throw new AssertionError("expected " + expected + ", read " + v);
            }
            expected++;
        }
        writer.join(10_000);
        if (writer.isAlive()) {
            throw new AssertionError("writer did not finish");
        }
        return expected;
    }

    /** Writes and reads back {@link #MESSAGES} byte messages through an {@link OffHeapYPipe}. */
    private static int offHeap() {
        int read = 0;
        byte[] dst = new byte[64];
        try (OffHeapYPipe pipe = new OffHeapYPipe(4096)) {
            for (int i = 0; i < MESSAGES; i++) {
                byte[] msg = ("m" + i).getBytes(StandardCharsets.US_ASCII);
                if (!pipe.write(msg)) {
                    throw new AssertionError("pipe full at " + i);
                }
                pipe.flush();
                int n = pipe.read(dst);
                String got = new String(dst, 0, n, StandardCharsets.US_ASCII);
                if (!got.equals("m" + i)) {
                    throw new AssertionError("expected m" + i + ", read " + got);
                }
                read++;
            }
        }
        return read;
    }

    /**
     * Writes and reads back {@link #MESSAGES} byte messages through a {@link SharedYPipe} (the
     * exported package {@code org.ysuite.shared}), both sides in this process, over a file in a
     * fresh directory that is removed afterwards.
     */
    private static int shared() throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("ysuite-consumer");
        java.nio.file.Path file = dir.resolve("pipe");
        int read = 0;
        byte[] dst = new byte[64];
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            for (int i = 0; i < MESSAGES; i++) {
                byte[] msg = ("s" + i).getBytes(StandardCharsets.US_ASCII);
                if (!out.write(msg)) {
                    throw new AssertionError("shared pipe full at " + i);
                }
                out.flush(); // the reader, in this thread, is awake: no wake-up to send
                int n = in.read(dst);
                String got = n < 0 ? "nothing" : new String(dst, 0, n, StandardCharsets.US_ASCII);
                if (!got.equals("s" + i)) {
                    throw new AssertionError("expected s" + i + ", read " + got);
                }
                read++;
            }
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.delete(dir);
        }
        return read;
    }

    /**
     * The descriptor the JVM resolved exports {@code org.ysuite} and {@code org.ysuite.shared}
     * only. (The internal package is
     * opened, so at run time it is reachable by reflection; compiling against it fails, which
     * {@code ModulePathTest} checks with javac.)
     */
    private static String internalHidden() {
        java.util.Set<String> exports = new java.util.TreeSet<>();
        YPipe.class.getModule().getDescriptor().exports().forEach(e -> exports.add(e.source()));
        if (!exports.equals(java.util.Set.of("org.ysuite", "org.ysuite.shared"))) {
            throw new AssertionError("org.ysuite exports " + exports);
        }
        return "org.ysuite.internal not exported";
    }
}
