package org.ysuite.bench.zmq;

import java.util.Arrays;
import java.util.Locale;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * libzmq's four perf tools over JeroMQ 0.6, with libzmq's command lines and output lines, so that
 * JeroMQ↔JeroMQ is measured the way libzmq↔libzmq and ysuite↔ysuite are (and any side can be
 * swapped for another's):
 * <pre>
 * java -cp ysuite-bench.jar org.ysuite.bench.zmq.JeromqPerf local_thr  &lt;bind-to&gt;    &lt;message-size&gt; &lt;message-count&gt;
 * java -cp ysuite-bench.jar org.ysuite.bench.zmq.JeromqPerf remote_thr &lt;connect-to&gt; &lt;message-size&gt; &lt;message-count&gt;
 * java -cp ysuite-bench.jar org.ysuite.bench.zmq.JeromqPerf local_lat  &lt;bind-to&gt;    &lt;message-size&gt; &lt;roundtrip-count&gt;
 * java -cp ysuite-bench.jar org.ysuite.bench.zmq.JeromqPerf remote_lat &lt;connect-to&gt; &lt;message-size&gt; &lt;roundtrip-count&gt;
 * </pre>
 * PUSH/PULL for throughput (timed from the first message received to the last), REQ/REP for
 * latency (the run's time over twice the round trips), default socket options.
 */
public final class JeromqPerf {

    private JeromqPerf() {
    }

    /**
     * Runs one tool.
     *
     * @param args the tool's name, the endpoint, the message size in bytes and the count
     */
    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: JeromqPerf local_thr|remote_thr|local_lat|remote_lat <endpoint> <message-size> <count>");
            System.exit(2);
        }
        String endpoint = args[1];
        int size = Integer.parseInt(args[2]);
        long count = Long.parseLong(args[3]);
        if (size < 0 || count < 1) {
            throw new IllegalArgumentException("message-size " + size + " must be >= 0 and count " + count + " >= 1");
        }
        try (ZContext ctx = new ZContext(1)) {
            switch (args[0]) {
                case "local_thr":
                    localThr(ctx, endpoint, size, count);
                    break;
                case "remote_thr":
                    remoteThr(ctx, endpoint, size, count);
                    break;
                case "local_lat":
                    localLat(ctx, endpoint, size, count);
                    break;
                case "remote_lat":
                    remoteLat(ctx, endpoint, size, count);
                    break;
                default:
                    throw new IllegalArgumentException("tool " + args[0] + ": not local_thr, remote_thr, local_lat or remote_lat");
            }
        }
    }

    private static byte[] receiveSized(ZMQ.Socket s, int size) {
        byte[] m = s.recv(0);
        if (m == null || m.length != size) {
            throw new IllegalStateException("message of " + (m == null ? "no" : m.length) + " B, expected " + size + " B");
        }
        return m;
    }

    private static void localThr(ZContext ctx, String endpoint, int size, long count) {
        ZMQ.Socket s = ctx.createSocket(SocketType.PULL);
        s.bind(endpoint);
        receiveSized(s, size);
        long start = System.nanoTime();
        for (long i = 1; i < count; i++) {
            receiveSized(s, size);
        }
        long elapsedUs = Math.max(1, (System.nanoTime() - start) / 1000);
        System.out.print(PerfOutput.throughput(size, count, elapsedUs));
    }

    private static void remoteThr(ZContext ctx, String endpoint, int size, long count) {
        ZMQ.Socket s = ctx.createSocket(SocketType.PUSH);
        s.setLinger(-1); // deliver everything before the context closes, as libzmq's default does
        s.connect(endpoint);
        byte[] m = new byte[size];
        for (long i = 0; i < count; i++) {
            s.send(m, 0);
        }
    }

    private static void localLat(ZContext ctx, String endpoint, int size, long count) {
        ZMQ.Socket s = ctx.createSocket(SocketType.REP);
        s.setLinger(-1);
        s.bind(endpoint);
        for (long i = 0; i < count; i++) {
            s.send(receiveSized(s, size), 0);
        }
    }

    private static void remoteLat(ZContext ctx, String endpoint, int size, long count) {
        ZMQ.Socket s = ctx.createSocket(SocketType.REQ);
        s.connect(endpoint);
        byte[] m = new byte[size];
        long[] trips = new long[Math.toIntExact(count)];
        long start = System.nanoTime();
        for (int i = 0; i < trips.length; i++) {
            long t0 = System.nanoTime();
            s.send(m, 0);
            m = receiveSized(s, size);
            trips[i] = System.nanoTime() - t0;
        }
        long elapsedUs = (System.nanoTime() - start) / 1000;
        System.out.print(PerfOutput.latency(size, count, elapsedUs));
        Arrays.sort(trips);
        System.out.printf(Locale.ROOT, "p99 latency: %.3f [us]%n", trips[(int) ((trips.length * 99L + 99) / 100) - 1] / 2000.0);
    }

    /** libzmq perf's output lines, shared by the JVM programs. */
    static final class PerfOutput {
        private PerfOutput() {
        }

        static String throughput(int size, long count, long elapsedUs) {
            long throughput = (long) ((double) count / (double) elapsedUs * 1_000_000.0);
            double megabits = (double) throughput * size * 8.0 / 1_000_000.0;
            return String.format(Locale.ROOT, "message size: %d [B]%nmessage count: %d%nmean throughput: %d [msg/s]%n"
                    + "mean throughput: %.3f [Mb/s]%n", size, count, throughput, megabits);
        }

        static String latency(int size, long count, long elapsedUs) {
            return String.format(Locale.ROOT, "message size: %d [B]%nroundtrip count: %d%naverage latency: %.3f [us]%n",
                    size, count, (double) elapsedUs / (count * 2.0));
        }
    }
}
