package org.ysuite.bench.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar ysuite-bench.jar report zmq-peers [--peers N[,N...]] [--sockets router,pub] [--rounds R] [--out DIR] [--examples-jar JAR]}:
 * one ROUTER and one PUB socket with many peers, ysuite's against libzmq's. The server is one process
 * (ysuite's: {@code ysuite-examples.jar peers_server}, a JVM with default options; libzmq's: our own
 * {@code zmq_peers.c server}); the N peers are libzmq DEALERs or SUBs in one other process ({@code zmq_peers.c
 * clients}, the same for both servers). Every process is started with {@code ulimit -n} raised to {@value #FD_LIMIT},
 * or to the hard limit where it cannot be raised that far; each libzmq socket holds a TCP descriptor and
 * an eventfd for its mailbox, so the peers are split over as many client processes as that limit needs.
 *
 * <p>Per server, socket and N:
 * <ul>
 * <li><b>every peer served</b>: ROUTER: each DEALER sends one request, the ROUTER answers each routing id,
 * and the clients count the DEALERs that got their answer. PUB: the clients count the SUBs that
 * received each published message; the row gives the fewest over the rounds.</li>
 * <li><b>memory per idle peer</b>: the server's resident set ({@code VmRSS} of {@code /proc/PID/status})
 * right after its bind and again when all N peers are connected, served once and idle for
 * {@value #SETTLE_MS} ms, the difference over N. For the JVM also the heap used after a
 * {@code System.gc()} and the direct memory (the JDK's direct buffers), the same difference over N.</li>
 * <li><b>PUB fan-out</b>: every SUB subscribed first (the server publishes a warm-up message until every
 * SUB has seen one); then per round the server stamps CLOCK_MONOTONIC just before its one send (Java's
 * {@code System.nanoTime()} is that clock on Linux) and the clients stamp each receipt; the fan-out time is
 * the last receipt less the send, on the same machine. The median (and range) over the rounds.</li>
 * </ul>
 * Writes {@code zmq-peers.md} (the table, the load) and {@code zmq-peers-runs.csv} into the output folder.
 */
public final class ZmqPeersRunner {

    /** The descriptor limit the server and the clients ask for. */
    static final int FD_LIMIT = 65536;
    /** Descriptors a client process keeps beside its sockets' two each (libzmq's context, epoll, stdio). */
    private static final int FD_SPARE = 256;
    /** How long the connected peers are left idle before the memory is read. */
    static final long SETTLE_MS = 2000;
    private static final long CONNECT_TIMEOUT_MS = 300_000;
    private static final long ROUND_TIMEOUT_MS = 30_000;
    /**
     * Between warm-up messages: each goes to every connected SUB, so more often would load the servers'
     * I/O threads while they still accept connections.
     */
    private static final long WARM_INTERVAL_MS = 1000;

    private final List<String> csv = new ArrayList<>(List.of(
            "server,socket,peers,served,rss_before_kib,rss_idle_kib,rss_per_peer_b,heap_per_peer_b,direct_per_peer_b,fanout_median_ms,fanout_min_ms,fanout_max_ms,note"));
    private final StringBuilder rows = new StringBuilder();
    private boolean failed;
    /** The most peers one client process holds: two descriptors each under the limit the processes get. */
    private int perProcess;

    private ZmqPeersRunner() {
    }

    /**
     * Runs the many-peers section.
     *
     * @param args the parsed command line: {@code [--peers N[,N...]] [--sockets router,pub] [--rounds R] [--out DIR] [--examples-jar JAR]}
     * @return 0 when every peer was served in every run, 1 otherwise, 2 on bad arguments
     * @throws IOException if the output cannot be written or the C program cannot be built
     */
    static int run(ReportArgs args) throws IOException {
        List<String> sockets = args.has(ReportArgs.Option.SOCKETS)
                ? List.of(args.value(ReportArgs.Option.SOCKETS).split(",")) : List.of("router", "pub");
        Path out = args.path(ReportArgs.Option.OUT, Paths.get("results-zmq-peers"));
        Path examples = args.path(ReportArgs.Option.EXAMPLES_JAR, null);
        int[] peers = {10_000};
        int rounds;
        try {
            rounds = args.intValue(ReportArgs.Option.ROUNDS, 10, 1, 999);
            if (args.has(ReportArgs.Option.PEERS)) {
                peers = Arrays.stream(args.value(ReportArgs.Option.PEERS).split(",")).mapToInt(Integer::parseInt).toArray();
            }
        } catch (IllegalArgumentException e) { // NumberFormatException too
            return ReportArgs.usage(args.section, e.getMessage());
        }
        for (int n : peers) {
            if (n < 1 || n > FD_LIMIT / 2 - 1000) {
                return ReportArgs.usage(args.section, "--peers " + n + " must be between 1 and " + (FD_LIMIT / 2 - 1000));
            }
        }
        if (sockets.isEmpty() || !List.of("router", "pub").containsAll(sockets)) {
            return ReportArgs.usage(args.section, "--sockets " + sockets + " must name router, pub or both");
        }
        Files.createDirectories(out);
        return new ZmqPeersRunner().execute(peers, sockets, rounds, out, examples);
    }

    private int execute(int[] peers, List<String> sockets, int rounds, Path out, Path examples) throws IOException {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Path examplesJar = examples != null ? examples : ZmqReportRunner.findExamplesJar(ZmqReportRunner.ownJar());
        String c = ZmqReportRunner.buildC(out, "zmq_peers").toString();
        List<String> notes = new ArrayList<>();
        List<String> ysuite = null;
        if (examplesJar != null && Files.isRegularFile(examplesJar)) {
            ysuite = List.of(java, "-jar", examplesJar.toString(), "peers_server");
        } else {
            notes.add("ysuite left out: ysuite-examples.jar not found (build it: mvn -pl ysuite-examples -am package, or pass --examples-jar)");
        }
        int limit = Math.min(FD_LIMIT, hardFdLimit());
        perProcess = Math.max(1, (limit - FD_SPARE) / 2);
        notes.add("descriptor limit of every process: " + limit + " (the most peers per client process: " + perProcess + ")");
        int cores = Runtime.getRuntime().availableProcessors();
        Load.Sample before = Load.sample();
        long start = System.nanoTime();
        for (int n : peers) {
            for (String socket : sockets) {
                trial("libzmq", List.of(c, "server"), List.of(c, "clients"), socket, n, rounds);
                if (ysuite != null) {
                    trial("ysuite", ysuite, List.of(c, "clients"), socket, n, rounds);
                }
            }
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        Load load = new Load(cores, before, Load.sample());
        StringBuilder md = new StringBuilder("# ZeroMQ: many peers on one socket, ysuite and libzmq\n\n");
        md.append(String.format(Locale.ROOT, "tcp loopback, %d cores, %d fan-out round(s), %d s. Clients: libzmq DEALERs/SUBs "
                + "in one or more other processes. Memory: the server's VmRSS after all peers are connected, served once and idle, less "
                + "its VmRSS after bind, over N (JVM: also heap used after System.gc() and direct buffers, same "
                + "difference over N). Fan-out: one PUB send to the last SUB's receipt, median (min-max).%n", cores, rounds, seconds));
        for (String note : notes) {
            md.append('\n').append(note).append('\n');
        }
        md.append("\n| server | socket | N | every peer served | RSS per idle peer | heap per idle peer | direct per idle peer | fan-out |\n");
        md.append("|---|---|---:|---|---:|---:|---:|---:|\n").append(rows);
        md.append("\n## Load\n\n").append(load.markdown());
        System.out.println();
        System.out.print(md);
        Files.write(out.resolve("zmq-peers.md"), md.toString().getBytes(StandardCharsets.UTF_8));
        Files.write(out.resolve("zmq-peers-runs.csv"), csv, StandardCharsets.UTF_8);
        System.out.println("\nwritten: " + out.resolve("zmq-peers.md") + ", " + out.resolve("zmq-peers-runs.csv"));
        return failed ? 1 : 0;
    }

    /** One server with N peers on one socket type: served, memory, and (PUB) the fan-out rounds. */
    private void trial(String name, List<String> serverCmd, List<String> clientsCmd, String socket, int n, int rounds) {
        System.out.printf(Locale.ROOT, "%s %s, %d peers ...%n", name, socket, n);
        String endpoint = "tcp://127.0.0.1:" + ZmqReportRunner.freePort();
        String note = "";
        int served = -1;
        long rssBefore = -1;
        long rssIdle = -1;
        long[] heap = {-1, -1};
        long[] direct = {-1, -1};
        double[] fanout = new double[0];
        try (Child server = Child.start(serverCmd, socket, endpoint, n)) {
            server.await("bound", 60_000);
            rssBefore = server.rssKib();
            server.send("stats");
            parseStats(server.await("stats", 60_000), heap, direct, 0);
            if (socket.equals("router")) {
                server.send("serve");
            }
            try (Clients clients = new Clients(clientsCmd, socket, endpoint, n, perProcess)) {
                served = socket.equals("router") ? clients.answered() : clients.ready(server);
                Thread.sleep(SETTLE_MS);
                server.send("stats");
                parseStats(server.await("stats", 60_000), heap, direct, 1);
                rssIdle = server.rssKib();
                if (served == n && socket.equals("pub")) {
                    fanout = new double[rounds];
                    for (int r = 1; r <= rounds; r++) {
                        server.send("pub " + r);
                        long sent = Long.parseLong(server.await("sent " + r + " ", ROUND_TIMEOUT_MS).split(" ")[2]);
                        long last = clients.lastReceipt(r);
                        if (last < 0) {
                            served = clients.count("round " + r + " count ");
                            note = "round " + r + ": " + served + " of " + n + " received in " + ROUND_TIMEOUT_MS / 1000 + " s";
                            fanout = Arrays.copyOf(fanout, r - 1);
                            break;
                        }
                        fanout[r - 1] = (last - sent) / 1e6;
                        Thread.sleep(200);
                    }
                } else if (served != n) {
                    note = served + " of " + n + " peers served in " + CONNECT_TIMEOUT_MS / 1000 + " s";
                }
            }
            server.send("quit");
        } catch (IOException | RuntimeException e) {
            note = e.getMessage() == null ? e.toString() : e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            note = "interrupted";
        }
        if (served != n) {
            failed = true;
        }
        record(name, socket, n, served, rssBefore, rssIdle, heap, direct, fanout, note);
    }

    /** The hard limit on open descriptors of a process started from here ({@code ulimit -Hn}). */
    private static int hardFdLimit() throws IOException {
        Process p = new ProcessBuilder("bash", "-c", "ulimit -Hn").redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            p.waitFor(30, TimeUnit.SECONDS);
            return out.equals("unlimited") ? FD_LIMIT : Integer.parseInt(out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the descriptor limit", e);
        } catch (NumberFormatException e) {
            throw new IOException("ulimit -Hn said " + e.getMessage(), e);
        }
    }

    /** N client sockets split over client processes of at most {@code perProcess} each. */
    private static final class Clients implements AutoCloseable {
        private final List<Child> children = new ArrayList<>();
        private final List<Integer> sizes = new ArrayList<>();

        Clients(List<String> command, String socket, String endpoint, int n, int perProcess) throws IOException {
            int processes = (n + perProcess - 1) / perProcess;
            for (int i = 0; i < processes; i++) {
                int size = n / processes + (i < n % processes ? 1 : 0);
                sizes.add(size);
                children.add(Child.start(command, socket, endpoint, size));
            }
        }

        /** ROUTER: waits until every DEALER has its answer; the number that did. */
        int answered() throws IOException, InterruptedException {
            int total = 0;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECT_TIMEOUT_MS);
            for (int i = 0; i < children.size(); i++) {
                long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                total += children.get(i).awaitOrNull("answered " + sizes.get(i) + " ", left) != null
                        ? sizes.get(i) : children.get(i).count("answered ");
            }
            return total;
        }

        /** PUB: publishes warm-up messages until every SUB has seen one (its subscription arrived); the number that did. */
        int ready(Child server) throws IOException, InterruptedException {
            boolean[] ready = new boolean[children.size()];
            int left = children.size();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECT_TIMEOUT_MS);
            while (left > 0 && System.nanoTime() < deadline) {
                server.send("warm");
                for (int i = 0; i < children.size(); i++) {
                    if (!ready[i] && children.get(i).awaitOrNull("ready " + sizes.get(i), WARM_INTERVAL_MS / children.size()) != null) {
                        ready[i] = true;
                        left--;
                    }
                }
            }
            int total = 0;
            for (int i = 0; i < children.size(); i++) {
                total += ready[i] ? sizes.get(i) : children.get(i).count("ready ");
            }
            return total;
        }

        /** The latest CLOCK_MONOTONIC receipt of round {@code r} over every process, or -1 if some SUB missed it. */
        long lastReceipt(int r) throws InterruptedException {
            long last = -1;
            for (Child c : children) {
                String l = c.awaitOrNull("round " + r + " last ", ROUND_TIMEOUT_MS);
                if (l == null) {
                    return -1;
                }
                last = Math.max(last, Long.parseLong(l.split(" ")[3]));
            }
            return last;
        }

        /** The counts of every process on their lines starting with {@code prefix}, summed. */
        int count(String prefix) throws IOException, InterruptedException {
            int total = 0;
            for (Child c : children) {
                total += c.count(prefix);
            }
            return total;
        }

        @Override
        public void close() throws InterruptedException, IOException {
            for (Child c : children) {
                c.send("quit");
            }
            for (Child c : children) {
                c.close();
            }
        }
    }

    /** {@code stats heap=B direct=B nettyDirect=B} (ysuite) or {@code stats} (libzmq: nothing to add). */
    private static void parseStats(String line, long[] heap, long[] direct, int at) {
        for (String part : line.split(" ")) {
            if (part.startsWith("heap=")) {
                heap[at] = Long.parseLong(part.substring(5));
            } else if (part.startsWith("direct=")) {
                direct[at] = Long.parseLong(part.substring(7));
            }
        }
    }

    private void record(String name, String socket, int n, int served, long rssBefore, long rssIdle,
                        long[] heap, long[] direct, double[] fanout, String note) {
        double rssPerPeer = rssBefore >= 0 && rssIdle >= 0 ? (rssIdle - rssBefore) * 1024.0 / n : Double.NaN;
        double heapPerPeer = heap[0] >= 0 && heap[1] >= 0 ? (heap[1] - heap[0]) / (double) n : Double.NaN;
        double directPerPeer = direct[0] >= 0 && direct[1] >= 0 ? (direct[1] - direct[0]) / (double) n : Double.NaN;
        double[] f = fanout.clone();
        Arrays.sort(f);
        double median = f.length == 0 ? Double.NaN : f.length % 2 == 1 ? f[f.length / 2] : (f[f.length / 2 - 1] + f[f.length / 2]) / 2;
        double min = f.length == 0 ? Double.NaN : f[0];
        double max = f.length == 0 ? Double.NaN : f[f.length - 1];
        String servedCell = served == n ? "yes, " + n + " of " + n : (served < 0 ? "failed" : served + " of " + n);
        String fan = socket.equals("router") ? "" : f.length == 0 ? "n/a"
                : String.format(Locale.ROOT, "%.2f ms (%.2f-%.2f, %d rounds)", median, min, max, f.length);
        rows.append(String.format(Locale.ROOT, "| %s | %s | %,d | %s | %s | %s | %s | %s |%n", name, socket.toUpperCase(Locale.ROOT), n,
                servedCell + (note.isEmpty() ? "" : " (" + note + ")"), kib(rssPerPeer), kib(heapPerPeer), kib(directPerPeer), fan));
        csv.add(String.join(",", name, socket, Integer.toString(n), Integer.toString(served), Long.toString(rssBefore),
                Long.toString(rssIdle), num(rssPerPeer), num(heapPerPeer), num(directPerPeer), num(median), num(min), num(max),
                note.replace(',', ';').replace('\n', ' ')));
        System.out.println("  " + rows.substring(rows.lastIndexOf("| " + name)).strip());
    }

    private static String kib(double bytes) {
        return Double.isNaN(bytes) ? "n/a" : String.format(Locale.ROOT, "%.1f KiB", bytes / 1024);
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.1f", v);
    }

    /** A child process with a raised descriptor limit, its stdout read line by line on a daemon thread. */
    private static final class Child implements AutoCloseable {
        private final Process process;
        private final Writer in;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final List<String> seen = new ArrayList<>();

        private Child(Process process) {
            this.process = process;
            this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l = r.readLine(); l != null; l = r.readLine()) {
                        lines.add(l);
                    }
                } catch (IOException e) {
                    lines.add("reader: " + e);
                }
            }, "zmq-peers-reader-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        /** Starts {@code command role socket endpoint n} under {@code ulimit -n FD_LIMIT}. */
        static Child start(List<String> command, String socket, String endpoint, int n) throws IOException {
            List<String> c = new ArrayList<>(List.of("bash", "-c",
                    "{ ulimit -n " + FD_LIMIT + " || ulimit -n \"$(ulimit -Hn)\"; } 2>/dev/null && exec \"$@\"", "bash"));
            c.addAll(command);
            c.addAll(List.of(socket, endpoint, Integer.toString(n)));
            return new Child(new ProcessBuilder(c).redirectErrorStream(true).start());
        }

        void send(String line) throws IOException {
            if (process.isAlive()) {
                in.write(line + "\n");
                in.flush();
            }
        }

        /** The first line starting with {@code prefix} within {@code timeoutMs}; throws with what was seen if none. */
        String await(String prefix, long timeoutMs) throws IOException, InterruptedException {
            String l = awaitOrNull(prefix, timeoutMs);
            if (l == null) {
                throw new IOException("no \"" + prefix.strip() + "\" in " + timeoutMs / 1000.0 + " s"
                        + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + "; output: " + tail());
            }
            return l;
        }

        /** The first line starting with {@code prefix} within {@code timeoutMs}, or null (also once the process has gone). */
        String awaitOrNull(String prefix, long timeoutMs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            for (;;) {
                long left = deadline - System.nanoTime();
                String l = left > 0 ? lines.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS) : lines.poll();
                if (l == null && left > 0 && !process.isAlive()) {
                    l = lines.poll(500, TimeUnit.MILLISECONDS); // what it printed last may still be in the pipe
                    if (l == null) {
                        return null;
                    }
                } else if (l == null) {
                    if (left > 0) {
                        continue;
                    }
                    return null;
                }
                seen.add(l);
                if (l.startsWith(prefix)) {
                    return l;
                }
            }
        }

        /** Asks a client process for its counts and returns the one on the line starting with {@code prefix}. */
        int count(String prefix) throws IOException, InterruptedException {
            send("report");
            String line = awaitOrNull(prefix, 10_000);
            return line == null ? 0 : Integer.parseInt(line.substring(prefix.length()).trim().split(" ")[0]);
        }

        private String tail() {
            List<String> last = seen.subList(Math.max(0, seen.size() - 3), seen.size());
            return last.isEmpty() ? "(none)" : String.join(" / ", last);
        }

        /** The process's VmRSS in KiB (Linux). */
        long rssKib() throws IOException {
            for (String l : Files.readAllLines(Paths.get("/proc", Long.toString(process.pid()), "status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.substring(6).trim().split("\\s+")[0]);
                }
            }
            throw new IOException("no VmRSS in /proc/" + process.pid() + "/status");
        }

        @Override
        public void close() throws InterruptedException {
            try {
                in.close();
            } catch (IOException e) {
                // the process has gone: nothing to tell it
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
