package org.ysuite.bench.net;

import java.nio.ByteBuffer;

/**
 * Seed 002's client/server test, in two JVM processes: this one (the client) and a
 * {@link NetServer}. Two-way: a request of two ints answered by one int (their sum, checked);
 * one-way: one int, no answer, then an empty message after which the server prints how many it
 * counted. A pass's rate is its messages over the wall-clock time ({@link System#nanoTime()}) from
 * the first send to the last answer (two-way) or to the server's report of the last message
 * (one-way). Untimed warm-up passes of {@code n / 10} messages run first on the same connection,
 * until at least {@link #WARMUP_NANOS} have passed; then {@value #TIMED_PASSES} timed passes of
 * {@code n}, and the result is the median one. A single pass of 10^6 small messages lasts tens of
 * milliseconds for the faster peers, as long as one recompilation of their hot code after a
 * deoptimization (seen at the first timed pass: a branch the warm-up's profile never took), so
 * one pass measured the JIT as often as the transport.
 *
 * <p>{@code java -cp ysuite-bench.jar org.ysuite.bench.net.ClientServer <peer> <twoway|oneway> [n [loopback|veth]]}
 */
public final class ClientServer {

    /** The least warm-up time per peer, as JMH's default plan gives its benchmarks (3 × 500 ms): {@value} ns. */
    public static final long WARMUP_NANOS = 1_500_000_000L;
    /** Timed passes per run; the median one is the result. */
    public static final int TIMED_PASSES = 5;

    private ClientServer() {
    }

    /**
     * Runs the test for one peer and prints {@code <peer> <mode> <n> <msgs/s>}, the passes' rates and
     * the CPU per message.
     *
     * @param args {@code <peer> <twoway|oneway> [n [loopback|veth]]}
     * @throws Exception if the run fails
     */
    public static void main(String[] args) throws Exception {
        Peer peer = Peer.of(args[0]);
        boolean twoWay = "twoway".equals(args[1]);
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
        String net = args.length > 3 ? args[3] : "loopback";
        Measured m = measure(peer, twoWay, n, net);
        StringBuilder passes = new StringBuilder();
        for (double r : m.passRates) {
            passes.append(passes.length() == 0 ? "" : ", ").append(Math.round(r));
        }
        System.out.printf(java.util.Locale.ROOT, "%s %s %d %.0f msgs/s (median of %s), CPU per message: client %.0f ns, server %.0f ns%n",
                peer.param(), args[1], n, m.rate, passes, m.clientCpuNs, m.serverCpuNs);
    }

    /**
     * Runs {@value #TIMED_PASSES} timed passes of {@code n} messages, after untimed warm-up passes
     * of {@code n / 10} lasting at least {@link #WARMUP_NANOS}.
     *
     * @param peer the transport
     * @param twoWay request/reply, or one-way
     * @param n how many messages
     * @param net {@code loopback} or {@code veth}
     * @return messages per second and CPU per message of each side
     * @throws Exception if the run fails or an answer is wrong
     */
    public static Measured measure(Peer peer, boolean twoWay, int n, String net) throws Exception {
        try (ServerProcess server = ServerProcess.start(peer, twoWay ? "sum" : "sink", net,
                org.ysuite.netty.MessageStream.DEFAULT_BUFFER_SIZE)) {
            Client client = Client.connect(peer, twoWay, server.host, server.port,
                    org.ysuite.netty.MessageStream.DEFAULT_BUFFER_SIZE);
            try {
                // Warm-up: passes of a tenth of the run, on the same connection, until at least
                // WARMUP_NANOS have passed, so that every peer's code is compiled before timing
                // (a tenth of 10^6 one-way messages takes ~50 ms, less than the JIT needs).
                int warm = Math.max(1, n / 10);
                long sent = 0;
                long w0 = System.nanoTime();
                do {
                    sent += warm;
                    run(client, server, twoWay, warm, sent);
                } while (System.nanoTime() - w0 < WARMUP_NANOS);
                double[] rates = new double[TIMED_PASSES];
                double[] clientCpu = new double[TIMED_PASSES];
                double[] serverCpu = new double[TIMED_PASSES];
                for (int i = 0; i < TIMED_PASSES; i++) {
                    double c0 = NetCpu.self();
                    double s0 = NetCpu.nanos(server.pid());
                    long t0 = System.nanoTime();
                    sent += n;
                    run(client, server, twoWay, n, sent);
                    long ns = System.nanoTime() - t0;
                    // the one-way server has counted the last message (END) when run returns
                    rates[i] = n * 1e9 / ns;
                    clientCpu[i] = (NetCpu.self() - c0) / n;
                    serverCpu[i] = (NetCpu.nanos(server.pid()) - s0) / n;
                }
                int median = medianIndex(rates);
                return new Measured(rates[median], clientCpu[median], serverCpu[median], rates);
            } finally {
                client.close();
            }
        }
    }

    /** The index of the median of {@code values} (an odd count). */
    private static int medianIndex(double[] values) {
        Integer[] order = new Integer[values.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, java.util.Comparator.comparingDouble(i -> values[i]));
        return order[order.length / 2];
    }

    /**
     * One run's figures: those of its median timed pass.
     *
     * @param rate messages (two-way: requests) per second
     * @param clientCpuNs CPU of the client process per message, ns (NaN off Linux)
     * @param serverCpuNs CPU of the server process per message, ns (NaN off Linux)
     * @param passRates every timed pass's rate, in the order run
     */
    public record Measured(double rate, double clientCpuNs, double serverCpuNs, double[] passRates) {
    }

    private static void run(Client client, ServerProcess server, boolean twoWay, int n, long total)
            throws Exception {
        byte[] msg = new byte[8];
        byte[] reply = new byte[NetServer.MAX];
        ByteBuffer m = ByteBuffer.wrap(msg);
        ByteBuffer r = ByteBuffer.wrap(reply);
        if (twoWay) {
            for (int i = 0; i < n; i++) {
                m.putInt(0, i).putInt(4, 7);
                int len = client.request(msg, 8, reply);
                if (len != 4 || r.getInt(0) != i + 7) {
                    throw new IllegalStateException("wrong answer to request " + i + ": " + len + " bytes, " + r.getInt(0));
                }
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            m.putInt(0, i);
            client.send(msg, 4);
        }
        client.send(msg, 0); // the end marker
        client.flush();
        long counted = server.awaitEnd();
        if (counted != total) {
            throw new IllegalStateException("the server counted " + counted + " messages, not " + total);
        }
    }
}
