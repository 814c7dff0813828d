package org.ysuite.zmq.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A libzmq peer in a child process: {@code zmq_peer.py} (this package's test resource) run by
 * Debian's {@code python3} with {@code python3-zmq} (libzmq 4.3), driven over its stdin/stdout one
 * line per command (the script's docstring lists them). Every wait is bounded by {@link #WAIT_S};
 * {@link #close()} kills the process (after SIGCONT, should a test have stopped it).
 */
final class PyPeer implements Interop.End, AutoCloseable {

    /** The failure bound of every wait on the peer: generous, for a loaded 2-core machine. */
    static final long WAIT_S = 30;
    private static final String SCRIPT = "zmq_peer.py";
    private static final HexFormat HEX = HexFormat.of();
    private static volatile Path script;

    private final Process process;
    private final Writer in;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path stderr;
    private final String endpoint;

    private PyPeer(Process process, Path stderr) throws IOException {
        this.process = process;
        this.stderr = stderr;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        InputStream out = process.getInputStream();
        Thread reader = new Thread(() -> pump(out), "zmq_peer.py stdout " + process.pid());
        reader.setDaemon(true);
        reader.start();
        String ready = line();
        if (!ready.startsWith("READY ")) {
            close();
            throw new IllegalStateException("zmq_peer.py did not start: " + ready + diagnostics());
        }
        this.endpoint = ready.substring("READY ".length());
    }

    /**
     * The python that imports zmq (Debian's python3-zmq): $YSUITE_PYTHON if set, else the first of
     * /usr/bin/python3 and python3 that imports zmq, looked for once; null if none does. The one locator of
     * the tests' python peers.
     */
    static synchronized String python() {
        if (!looked) {
            looked = true;
            String env = System.getenv("YSUITE_PYTHON");
            python = env != null && !env.isEmpty() ? env : firstImportingZmq("/usr/bin/python3", "python3");
        }
        return python;
    }

    private static String python;
    private static boolean looked;

    private static String firstImportingZmq(String... candidates) {
        for (String candidate : candidates) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import zmq").redirectErrorStream(true).start();
                if (p.waitFor(WAIT_S, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
                p.destroyForcibly();
            } catch (IOException notThere) {
                // try the next
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    /**
     * Starts a peer.
     *
     * @param type libzmq's socket type name, e.g. {@code PULL}
     * @param bind true to bind {@code endpoint}, false to connect to it
     * @param endpoint the endpoint ({@code tcp://127.0.0.1:*} to bind a free port)
     * @param options libzmq options as {@code NAME=VALUE}, set before bind/connect
     * @return the running peer, bound or connecting
     * @throws IOException if no python imports zmq, or it cannot be started
     */
    static PyPeer start(String type, boolean bind, String endpoint, String... options) throws IOException {
        String python = python();
        if (python == null) {
            throw new IOException("no python3 that imports zmq (install python3-zmq or set YSUITE_PYTHON)");
        }
        List<String> cmd = new ArrayList<>(List.of(python, script().toString(), type, bind ? "bind" : "connect", endpoint));
        cmd.addAll(Arrays.asList(options));
        Path err = Files.createTempFile("zmq_peer", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        return new PyPeer(p, err);
    }

    /**
     * A CURVE key pair made by libzmq's {@code zmq_curve_keypair} (through pyzmq): public then secret, Z85.
     *
     * @throws IOException if no python imports zmq, or it fails
     */
    static String[] curveKeyPair() throws IOException, InterruptedException {
        String python = python();
        if (python == null) {
            throw new IOException("no python3 that imports zmq (install python3-zmq or set YSUITE_PYTHON)");
        }
        Process p = new ProcessBuilder(python, script().toString(), "keypair").redirectErrorStream(true).start();
        String line = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        if (!p.waitFor(WAIT_S, TimeUnit.SECONDS) || p.exitValue() != 0 || line.split(" ").length != 2) {
            throw new IOException("zmq_peer.py keypair: " + line);
        }
        return line.split(" ");
    }

    private static Path script() throws IOException {
        Path s = script;
        if (s == null) {
            synchronized (PyPeer.class) {
                s = script;
                if (s == null) {
                    Path dir = Files.createTempDirectory("ysuite-zmq-interop");
                    s = dir.resolve(SCRIPT);
                    try (InputStream r = PyPeer.class.getResourceAsStream(SCRIPT)) {
                        if (r == null) {
                            throw new IOException(SCRIPT + " is not on the test classpath beside " + PyPeer.class.getName());
                        }
                        Files.copy(r, s);
                    }
                    s.toFile().deleteOnExit();
                    dir.toFile().deleteOnExit();
                    script = s;
                }
            }
        }
        return s;
    }

    private void pump(InputStream out) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(out, StandardCharsets.US_ASCII))) {
            for (String l; (l = r.readLine()) != null; ) {
                lines.add(l);
            }
        } catch (IOException e) {
            // the process ended: line() reports it
        }
        lines.add("EOF");
    }

    /** The endpoint the peer bound (wildcard resolved) or connects to. */
    String endpoint() {
        return endpoint;
    }

    /** The peer's process id, for signals. */
    long pid() {
        return process.pid();
    }

    private String line() {
        try {
            String l = lines.poll(WAIT_S, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError("zmq_peer.py answered nothing in " + WAIT_S + " s" + diagnostics());
            }
            if (l.equals("EOF") || l.startsWith("ERROR")) {
                throw new AssertionError("zmq_peer.py: " + l + diagnostics());
            }
            return l;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private String command(String c) {
        try {
            in.write(c);
            in.write('\n');
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("zmq_peer.py's stdin" + diagnostics(), e);
        }
        return line();
    }

    private String diagnostics() {
        try {
            String err = Files.readString(stderr);
            return err.isEmpty() ? "" : "; its stderr: " + err;
        } catch (IOException e) {
            return "";
        }
    }

    static String hex(byte[] frame) {
        return frame.length == 0 ? "-" : HEX.formatHex(frame);
    }

    /**
     * Sends one message, a frame per argument.
     *
     * @param frames the frames
     */
    @Override
    public void send(byte[]... frames) {
        StringBuilder b = new StringBuilder("send");
        for (byte[] f : frames) {
            b.append(' ').append(hex(f));
        }
        expect("OK", command(b.toString()));
    }

    /**
     * Sends one message, a frame per string (UTF-8).
     *
     * @param frames the frames
     */
    void send(String... frames) {
        send(Interop.bytes(frames));
    }

    /**
     * Sends the decimal numbers {@code from}..{@code to - 1}, one single-frame message each.
     *
     * @param from the first
     * @param to one past the last
     */
    void sendSequence(long from, long to) {
        expect("OK", command("sendseq " + from + " " + to));
    }

    /**
     * Receives one message.
     *
     * @param millis how long the peer waits for it
     * @return its frames, or null if none came in time
     */
    @Override
    public List<byte[]> receive(long millis) {
        String l = command("recv " + millis);
        if (l.equals("TIMEOUT")) {
            return null;
        }
        String[] parts = l.split(" ");
        List<byte[]> frames = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            frames.add(parts[i].equals("-") ? new byte[0] : HEX.parseHex(parts[i]));
        }
        return frames;
    }

    /**
     * Receives one message within {@link #WAIT_S}.
     *
     * @return its frames
     */
    @Override
    public List<byte[]> receive() {
        List<byte[]> m = receive(TimeUnit.SECONDS.toMillis(WAIT_S) - 1000);
        if (m == null) {
            throw new AssertionError("the libzmq peer received nothing in " + WAIT_S + " s");
        }
        return m;
    }

    /**
     * Subscribes (SUB/XSUB's ZMQ_SUBSCRIBE).
     *
     * @param prefix the prefix
     */
    @Override
    public void subscribe(byte[] prefix) {
        expect("OK", command("sub " + hex(prefix)));
    }

    /**
     * Unsubscribes (ZMQ_UNSUBSCRIBE).
     *
     * @param prefix the prefix
     */
    @Override
    public void unsubscribe(byte[] prefix) {
        expect("OK", command("unsub " + hex(prefix)));
    }

    /**
     * The socket monitor's events so far, by libzmq's names without {@code ZMQ_EVENT_}.
     *
     * @return e.g. {@code [CONNECTED, HANDSHAKE_SUCCEEDED]}
     */
    List<String> events() {
        String l = command("events");
        List<String> e = new ArrayList<>(Arrays.asList(l.split(" ")));
        e.remove(0);
        return e;
    }

    /**
     * What the peer's ZAP handler (started by its {@code ZAP_USERS} option) was asked so far.
     *
     * @return one {@code domain/mechanism/username} per request, {@code -} for an empty field
     */
    List<String> zapAsked() {
        List<String> e = new ArrayList<>(Arrays.asList(command("zapasked").split(" ")));
        e.remove(0);
        return e;
    }

    /**
     * Waits until the socket monitor has reported {@code event} (e.g. {@code HANDSHAKE_SUCCEEDED}),
     * asking every 20 ms, within {@link #WAIT_S}.
     *
     * @param event libzmq's event name without {@code ZMQ_EVENT_}
     */
    void awaitEvent(String event) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        List<String> seen = events();
        while (!seen.contains(event)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("libzmq reported no " + event + " in " + WAIT_S + " s; its events: " + seen);
            }
            try {
                Thread.sleep(20); // polling another process's state, bounded by the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
            seen = events();
        }
    }

    /**
     * Closes the peer's socket with a linger and ends its context (and the process).
     *
     * @param lingerMillis libzmq's ZMQ_LINGER for the close
     */
    void closeSocket(int lingerMillis) {
        expect("CLOSED", command("close " + lingerMillis));
    }

    /**
     * Sends a signal to the peer ({@code STOP}, {@code CONT}, {@code KILL}) with {@code kill(1)}.
     *
     * @param signal the signal's name
     */
    void signal(String signal) {
        try {
            Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
            if (!k.waitFor(WAIT_S, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new AssertionError("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Kills the peer at once (SIGKILL) and waits for it to end.
     */
    void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(WAIT_S, TimeUnit.SECONDS)) {
                throw new AssertionError("zmq_peer.py " + process.pid() + " survived SIGKILL for " + WAIT_S + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void expect(String expected, String actual) {
        if (!expected.equals(actual)) {
            throw new AssertionError("zmq_peer.py answered " + actual + ", expected " + expected);
        }
    }

    @Override
    public String toString() {
        return "libzmq (pyzmq " + process.pid() + ")";
    }

    /** Ends the process (SIGCONT first, in case a test stopped it, then SIGKILL) and removes its stderr file. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor(WAIT_S, TimeUnit.SECONDS);
            } catch (IOException e) {
                // the kill below still ends it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            kill();
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException e) {
            // a temp file
        }
    }
}
