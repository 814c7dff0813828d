package org.ysuite.bench.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link NetServer} in its own JVM process (started with this JVM's class path), on loopback or
 * inside the network namespace of {@link Netns} (then reached over the veth pair).
 */
public final class ServerProcess implements AutoCloseable {

    private final Process process;
    private final BufferedReader out;
    /**
     * The system property whose value (JVM options separated by spaces) is added to every server's
     * command line, e.g. {@code -Dysuite.bench.serverJvmArgs=-XX:StartFlightRecording=filename=/tmp/jfr/}
     * to profile the servers as well as the client.
     */
    public static final String SERVER_JVM_ARGS = "ysuite.bench.serverJvmArgs";

    /** The address the client connects to. */
    public final String host;
    /** The server's port. */
    public final int port;

    private ServerProcess(Process process, BufferedReader out, String host, int port) {
        this.process = process;
        this.out = out;
        this.host = host;
        this.port = port;
    }

    /**
     * Starts a server and waits for its {@code READY} line.
     *
     * @param peer the transport
     * @param mode {@code sink}, {@code echo} or {@code sum}
     * @param net {@code loopback} or {@code veth}
     * @param bufferSize the ysuite stream's buffer size
     * @return the running server
     * @throws IOException if it cannot be started or does not get ready
     */
    public static ServerProcess start(Peer peer, String mode, String net, int bufferSize) throws IOException {
        boolean veth = "veth".equals(net);
        String host = veth ? Netns.SERVER_ADDRESS : "127.0.0.1";
        List<String> cmd = new ArrayList<>();
        if (veth) {
            cmd.addAll(List.of("ip", "netns", "exec", Netns.NAME));
        }
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        if (Runtime.version().feature() >= 24) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        String extra = System.getProperty(SERVER_JVM_ARGS, "").trim();
        if (!extra.isEmpty()) {
            cmd.addAll(List.of(extra.split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), NetServer.class.getName(),
                peer.param(), mode, host, Integer.toString(bufferSize)));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
        String line = r.readLine();
        while (line != null && !line.startsWith("READY ") && line.startsWith("[")) {
            line = r.readLine(); // a JVM log line (e.g. JFR's, from SERVER_JVM_ARGS) before READY
        }
        if (line == null || !line.startsWith("READY ")) {
            p.destroyForcibly();
            throw new IOException("the " + peer + " server did not start: " + line + " (" + String.join(" ", cmd) + ")");
        }
        return new ServerProcess(p, r, host, Integer.parseInt(line.substring(6).trim()));
    }

    /**
     * Returns the server process's id (for its CPU time, {@link NetCpu#nanos(long)}).
     *
     * @return the pid
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Waits for the server's next {@code END <count>} line (the end of a one-way run).
     *
     * @return the count it printed
     * @throws IOException if the server ended first
     */
    public long awaitEnd() throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("END ")) {
                return Long.parseLong(line.substring(4).trim());
            }
        }
        throw new IOException("the server ended without END");
    }

    /** Ends the server (SIGTERM; SIGKILL if it has not ended 5 s later). */
    @Override
    public void close() throws InterruptedException {
        process.destroy(); // a JeroMQ server never learns that its client has gone
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }
}
