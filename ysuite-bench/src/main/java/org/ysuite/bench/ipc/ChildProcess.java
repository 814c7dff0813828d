package org.ysuite.bench.ipc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.ysuite.bench.support.Msg;

/**
 * A JVM started with this JVM's class path (the benchmark jar) running a main class: its
 * standard output is read by a daemon thread into a queue, so every wait for one of its lines is
 * bounded; its standard error goes to ours (JMH's log). {@link #close()} waits a bounded time
 * for it to end by itself, then ends it.
 */
final class ChildProcess implements AutoCloseable {

    /** End of stream on the child's output, in the queue. */
    private static final String EOF = "\u0000EOF";

    private final Process process;
    private final String command;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildProcess(Process process, String command) {
        this.process = process;
        this.command = command;
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the child is gone
            }
            lines.add(EOF);
        }, "child-output");
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts {@code mainClass} with {@code args} and waits (at most 60 s) for its {@code READY} line.
     *
     * @param mainClass the child's main class, on this JVM's class path
     * @param args its arguments
     * @return the running child
     * @throws IOException if it cannot start or is not ready in time (it is then killed)
     */
    static ChildProcess start(Class<?> mainClass, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx256m", Msg.NATIVE, Msg.AGRONA_OPENS, "-cp", System.getProperty("java.class.path"),
                mainClass.getName()));
        cmd.addAll(List.of(args));
        ChildProcess child = new ChildProcess(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start(), mainClass.getSimpleName() + " " + String.join(" ", args));
        try {
            child.awaitLine("READY", 60, TimeUnit.SECONDS);
        } catch (IOException e) {
            child.process.destroyForcibly();
            throw e;
        }
        return child;
    }

    /** The child's process id. */
    long pid() {
        return process.pid();
    }

    /**
     * Waits for the next output line that starts with {@code prefix} (skipping others).
     *
     * @return the line
     * @throws IOException if the child's output ends first, or the time runs out
     */
    String awaitLine(String prefix, long timeout, TimeUnit unit) throws IOException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        try {
            for (;;) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IOException("no '" + prefix + "' line from " + command + " within " + timeout + " " + unit);
                }
                if (line.equals(EOF)) {
                    throw new IOException(command + " ended before its '" + prefix + "' line (exit "
                            + (process.isAlive() ? "pending" : process.exitValue()) + ")");
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for " + command, e);
        }
    }

    /**
     * Waits up to 10 s for the child to end by itself (the caller has closed its end of the
     * link), then ends it (SIGTERM, then SIGKILL).
     *
     * @return the child's exit code, or -1 if it had to be ended
     * @throws InterruptedException if interrupted while waiting
     */
    int stop() throws InterruptedException {
        if (process.waitFor(10, TimeUnit.SECONDS)) {
            return process.exitValue();
        }
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        return -1;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
