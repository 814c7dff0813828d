package org.ysuite.zmq.wire;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A libzmq peer: a python3 script with pyzmq in a subprocess, its output read line by line. */
final class PythonPeer implements AutoCloseable {

    private static String python;
    private static boolean looked;

    final Process process;
    final BufferedReader out;
    private final Path script;

    private PythonPeer(Process process, Path script) {
        this.process = process;
        this.script = script;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The python3 that imports zmq, or null if none. */
    static synchronized String python() throws InterruptedException {
        if (!looked) {
            looked = true;
            for (String candidate : new String[] {"/usr/bin/python3", "python3"}) {
                try {
                    Process p = new ProcessBuilder(candidate, "-c", "import zmq").redirectErrorStream(true).start();
                    if (p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0) {
                        python = candidate;
                        break;
                    }
                    p.destroyForcibly();
                } catch (IOException notThere) {
                    // try the next
                }
            }
        }
        return python;
    }

    /** Runs {@code lines} as a script with {@code args}; stderr goes with stdout. */
    static PythonPeer start(List<String> lines, String... args) throws IOException, InterruptedException {
        Path file = Files.createTempFile("zmtp-peer", ".py");
        Files.writeString(file, String.join("\n", lines) + "\n");
        List<String> command = new ArrayList<>(List.of(python(), file.toString()));
        command.addAll(List.of(args));
        return new PythonPeer(new ProcessBuilder(command).redirectErrorStream(true).start(), file);
    }

    /** The next line the script printed; fails if it ended first. */
    String line() throws IOException {
        String line = out.readLine();
        if (line == null) {
            throw new AssertionError("the python peer ended without printing the line expected");
        }
        return line;
    }

    /** Sends {@code signal} (e.g. STOP, CONT) to the process. */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + signal + " failed");
        }
    }

    /** Whether the script exits with status 0 within {@code millis}. */
    boolean exitsCleanly(long millis) throws InterruptedException {
        return process.waitFor(millis, TimeUnit.MILLISECONDS) && process.exitValue() == 0;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        out.close();
        Files.deleteIfExists(script);
    }
}
