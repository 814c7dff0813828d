package org.ysuite.bench.net;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The request/response measurement of the network report: every peer's client and echoing
 * {@link NetServer} (a JVM each) connected at once, then rounds that take turns between the peers
 * (interleaved, so that a change of the machine's load hits every peer alike), each timing single
 * round trips with {@link System#nanoTime()} into a {@link LatencyRecorder}. The result per peer:
 * mean, p50, p99 and p99.9 over all rounds, and the CPU time per round trip of the client process
 * (this JVM: the application thread and the client's I/O threads) and of the server process.
 *
 * <p>{@code java -cp ysuite-bench.jar org.ysuite.bench.net.RoundTrip [size [rounds [perRound [warmup [peer,...]]]]]}
 */
public final class RoundTrip {

    /** One peer's figures. */
    public static final class Stats {
        /** The peer. */
        public final Peer peer;
        /** The samples. */
        public final LatencyRecorder latency;
        /** Client process CPU per round trip, ns (NaN off Linux). */
        public double clientCpuNs;
        /** Server process CPU per round trip, ns (NaN off Linux). */
        public double serverCpuNs;

        Stats(Peer peer, int expected) {
            this.peer = peer;
            this.latency = new LatencyRecorder(expected);
        }
    }

    private RoundTrip() {
    }

    /**
     * Prints one line per peer: mean, p50, p99, p99.9 (µs) and CPU per round trip (µs).
     *
     * @param args {@code [size [rounds [perRound [warmup [peer,...]]]]]}; defaults 16, 5, 10000, 20000, every
     *     request/response peer
     * @throws Exception if a run fails
     */
    public static void main(String[] args) throws Exception {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int perRound = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 20_000;
        List<Peer> peers = args.length > 4 ? parse(args[4]) : Peer.requestReply();
        System.out.println("peer mean p50 p99 p99.9 [us] clientCpu serverCpu [us/rt]");
        for (Stats s : measure(peers, size, rounds, perRound, warmup).values()) {
            System.out.printf(Locale.ROOT, "%s %.1f %.1f %.1f %.1f %.1f %.1f%n", s.peer.param(), s.latency.mean() / 1e3,
                    s.latency.percentile(0.5) / 1e3, s.latency.percentile(0.99) / 1e3,
                    s.latency.percentile(0.999) / 1e3, s.clientCpuNs / 1e3, s.serverCpuNs / 1e3);
        }
    }

    private static List<Peer> parse(String list) {
        List<Peer> out = new ArrayList<>();
        for (String p : list.split(",")) {
            out.add(Peer.of(p));
        }
        return out;
    }

    /**
     * Runs the measurement.
     *
     * @param peers the peers, each with its own server process and connection
     * @param size the request's size in bytes (the reply is the same size)
     * @param rounds how many turns each peer gets
     * @param perRound round trips timed per turn
     * @param warmup untimed round trips per peer before the first round
     * @return the figures per peer, in the order given
     * @throws Exception if a server cannot start, a connection fails or a reply is wrong
     * @throws IllegalArgumentException if a count is below 1 or {@code size} is negative or over 64 KiB
     */
    public static Map<Peer, Stats> measure(List<Peer> peers, int size, int rounds, int perRound, int warmup)
            throws Exception {
        if (rounds < 1 || perRound < 1 || warmup < 0 || size < 0 || size > NetServer.MAX) {
            throw new IllegalArgumentException("rounds and perRound must be >= 1, warmup >= 0 and size in 0.."
                    + NetServer.MAX + ": " + rounds + ", " + perRound + ", " + warmup + ", " + size);
        }
        Map<Peer, Stats> stats = new LinkedHashMap<>();
        List<ServerProcess> servers = new ArrayList<>();
        List<Client> clients = new ArrayList<>();
        try {
            for (Peer p : peers) {
                ServerProcess s = ServerProcess.start(p, "echo", "loopback",
                        org.ysuite.netty.MessageStream.DEFAULT_BUFFER_SIZE);
                servers.add(s);
                clients.add(Client.connect(p, true, s.host, s.port, org.ysuite.netty.MessageStream.DEFAULT_BUFFER_SIZE));
                stats.put(p, new Stats(p, rounds * perRound));
            }
            byte[] msg = new byte[size];
            byte[] reply = new byte[NetServer.MAX];
            for (int i = 0; i < peers.size(); i++) {
                for (int k = 0; k < warmup; k++) {
                    once(clients.get(i), msg, size, reply);
                }
            }
            double[] clientCpu = new double[peers.size()];
            double[] serverCpu = new double[peers.size()];
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < peers.size(); i++) {
                    Client c = clients.get(i);
                    LatencyRecorder rec = stats.get(peers.get(i)).latency;
                    long pid = servers.get(i).pid();
                    double c0 = NetCpu.self();
                    double s0 = NetCpu.nanos(pid);
                    for (int k = 0; k < perRound; k++) {
                        long t0 = System.nanoTime();
                        once(c, msg, size, reply);
                        rec.add(System.nanoTime() - t0);
                    }
                    clientCpu[i] += NetCpu.self() - c0;
                    serverCpu[i] += NetCpu.nanos(pid) - s0;
                }
            }
            for (int i = 0; i < peers.size(); i++) {
                Stats s = stats.get(peers.get(i));
                s.clientCpuNs = clientCpu[i] / ((double) rounds * perRound);
                s.serverCpuNs = serverCpu[i] / ((double) rounds * perRound);
            }
            return stats;
        } finally {
            for (Client c : clients) {
                try {
                    c.close();
                } catch (Exception e) {
                    // the server is ended below either way
                }
            }
            for (ServerProcess s : servers) {
                s.close();
            }
        }
    }

    private static void once(Client c, byte[] msg, int size, byte[] reply) throws Exception {
        int n = c.request(msg, size, reply);
        if (n != size) {
            throw new IllegalStateException("reply of " + n + " bytes to a request of " + size);
        }
    }
}
