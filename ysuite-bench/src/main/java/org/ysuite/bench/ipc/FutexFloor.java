package org.ysuite.bench.ipc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The C floor of the cross-process worst case: {@code futex_pingpong.c} (shipped in the jar
 * beside this class, from {@code ysuite-bench/src/main/c}) compiled with {@code gcc -O2} into a
 * temporary folder and run in its {@code serve} mode: two processes of its own (fork) bounce a
 * message over a shared mapping with shared futexes, {@code rounds} round trips per request
 * read from its standard input, each answered with {@code done <ns>}.
 */
final class FutexFloor implements AutoCloseable {

    /** The source's resource name, beside this class. */
    static final String SOURCE = "futex_pingpong.c";

    private final Process process;
    private final Writer requests;
    private final BufferedReader answers;

    private FutexFloor(Process process) {
        this.process = process;
        this.requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
    }

    /**
     * Whether {@code gcc} can be run here.
     *
     * @return true if {@code gcc --version} ran and exited 0 within 30 s
     */
    static boolean gccAvailable() {
        try {
            Process p = new ProcessBuilder("gcc", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Compiles the program into {@code dir} and starts it.
     *
     * @param dir an empty folder of this run
     * @param spins rounds the waiting side polls before it sleeps ({@code 0}: pure futex)
     * @return the running program
     * @throws IOException if gcc is missing or fails (its output is in the message)
     */
    static FutexFloor start(Path dir, int spins) throws IOException {
        Path src = dir.resolve(SOURCE);
        try (InputStream in = FutexFloor.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IOException(SOURCE + " is not in the jar beside " + FutexFloor.class.getName());
            }
            Files.copy(in, src);
        }
        Path bin = dir.resolve("futex_pingpong");
        Path log = dir.resolve("gcc.log");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-o", bin.toString(), src.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IOException("gcc not found: the C futex floor needs gcc on the PATH (" + e.getMessage() + ")", e);
        }
        try {
            if (!gcc.waitFor(120, TimeUnit.SECONDS)) {
                gcc.destroyForcibly();
                throw new IOException("gcc took more than 120 s on " + src);
            }
        } catch (InterruptedException e) {
            gcc.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compiling " + src, e);
        }
        if (gcc.exitValue() != 0) {
            throw new IOException("gcc failed on " + src + ": " + Files.readString(log));
        }
        return new FutexFloor(new ProcessBuilder(bin.toString(), "serve", Integer.toString(spins))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    /**
     * Runs {@code rounds} round trips.
     *
     * @param rounds how many
     * @return their time as the program measured it, ns
     * @throws IOException if the program failed (it gives up by itself after 10 s without a message)
     */
    long run(int rounds) throws IOException {
        requests.write(rounds + "\n");
        requests.flush();
        String line = answers.readLine();
        if (line == null || !line.startsWith("done ")) {
            throw new IOException("futex_pingpong answered " + line + " (exit "
                    + (process.isAlive() ? "pending" : process.exitValue()) + ")");
        }
        return Long.parseLong(line.substring(5).trim());
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            requests.close(); // end of input: the program stops its child and exits
        } finally {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
