package org.ysuite.examples;

import java.util.Arrays;
import java.util.Locale;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.Z85;
import org.ysuite.zmq.ZmqCurve;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqSocket;

/**
 * libzmq's four perf tools ({@code perf/local_thr}, {@code remote_thr}, {@code local_lat},
 * {@code remote_lat}) over ysuite-zmq, with libzmq's command lines and output lines, so that either
 * side can be swapped for libzmq's own tools (or any other ZeroMQ's) in one run:
 * <pre>
 * java -jar ysuite-examples.jar local_thr  &lt;bind-to&gt;    &lt;message-size&gt; &lt;message-count&gt;
 * java -jar ysuite-examples.jar remote_thr &lt;connect-to&gt; &lt;message-size&gt; &lt;message-count&gt;
 * java -jar ysuite-examples.jar local_lat  &lt;bind-to&gt;    &lt;message-size&gt; &lt;roundtrip-count&gt;
 * java -jar ysuite-examples.jar remote_lat &lt;connect-to&gt; &lt;message-size&gt; &lt;roundtrip-count&gt;
 * </pre>
 * Throughput: {@code local_thr} binds a PULL socket and times from the first message received to
 * the last, printing {@code message size: N [B]}, {@code message count: N},
 * {@code mean throughput: N [msg/s]} and {@code mean throughput: N.NNN [Mb/s]}; {@code remote_thr}
 * connects a PUSH socket, sends, and closes with an unbounded linger so every message arrives.
 * Latency: {@code local_lat} binds a REP socket and echoes; {@code remote_lat} connects a REQ
 * socket and prints {@code message size: N [B]}, {@code roundtrip count: N} and
 * {@code average latency: N.NNN [us]}, the run's time over twice the round trips (half a round
 * trip, as libzmq prints it), then one line libzmq's tool does not print,
 * {@code p99 latency: N.NNN [us]}: the 99th percentile of the round trips, halved as the average is.
 * Default socket options otherwise; one I/O thread, as libzmq's tools.
 *
 * <p>CURVE (ZeroMQ RFC 25/26): with {@code CURVE_SERVER_SECRET} and {@code CURVE_SERVER_PUBLIC} set in
 * the environment (Z85, 40 characters each), the binding side ({@code local_*}) is a CURVE server with
 * that key pair, and the connecting side ({@code remote_*}) a CURVE client with a fresh key pair that
 * trusts {@code CURVE_SERVER_PUBLIC}; ysuite-bench's {@code zmq_perf.c} reads the same variables, so either
 * side may still be libzmq's.
 */
public final class ZmqPerf {

    private ZmqPerf() {
    }

    /**
     * Runs the tool {@code tool} with libzmq's arguments.
     *
     * @param tool {@code local_thr}, {@code remote_thr}, {@code local_lat} or {@code remote_lat}
     * @param args the endpoint, the message size in bytes and the message (or round trip) count
     */
    public static void main(String tool, String[] args) {
        if (args.length != 3) {
            System.err.println("usage: " + tool + " <" + (tool.startsWith("local") ? "bind-to" : "connect-to")
                    + "> <message-size> <" + (tool.endsWith("thr") ? "message-count" : "roundtrip-count") + ">");
            System.exit(1);
        }
        String endpoint = args[0];
        int size = Integer.parseInt(args[1]);
        long count = Long.parseLong(args[2]);
        if (size < 0 || count < 1) {
            throw new IllegalArgumentException("message-size " + size + " must be >= 0 and count " + count + " >= 1");
        }
        try (ZmqContext ctx = ZmqContext.create()) {
            switch (tool) {
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
                    throw new IllegalArgumentException("tool " + tool + ": not local_thr, remote_thr, local_lat or remote_lat");
            }
        }
    }

    /**
     * Makes {@code s} a CURVE server (binding side) or client (connecting side) when
     * {@code CURVE_SERVER_SECRET} and {@code CURVE_SERVER_PUBLIC} are set; leaves it NULL otherwise.
     */
    private static void secure(ZmqSocket s, boolean binds) {
        String secret = System.getenv("CURVE_SERVER_SECRET");
        String publicKey = System.getenv("CURVE_SERVER_PUBLIC");
        if (secret == null || publicKey == null) {
            return;
        }
        if (secret.length() != 40 || publicKey.length() != 40) {
            throw new IllegalArgumentException("CURVE_SERVER_SECRET and CURVE_SERVER_PUBLIC: " + secret.length()
                    + " and " + publicKey.length() + " characters, 40 Z85 characters each");
        }
        if (binds) {
            s.setCurveServer(true);
            s.setCurvePublicKey(Z85.decode(publicKey));
            s.setCurveSecretKey(Z85.decode(secret));
        } else {
            s.setCurveKeyPair(ZmqCurve.keyPair());
            s.setCurveServerKey(Z85.decode(publicKey));
        }
    }

    /** Receives one frame into {@code buf}, which must be exactly {@code size} bytes. */
    private static void receiveSized(ZmqSocket s, byte[] buf, int size) {
        int n = s.receive(buf, 0, buf.length, 0);
        if (n != size) {
            throw new IllegalStateException("message of " + n + " B, expected " + size + " B");
        }
    }

    private static void localThr(ZmqContext ctx, String endpoint, int size, long count) {
        try (ZmqSocket s = ctx.socket(SocketType.PULL)) {
            secure(s, true);
            s.bind(endpoint);
            byte[] buf = new byte[Math.max(size, 1)];
            receiveSized(s, buf, size);
            long start = System.nanoTime();
            for (long i = 1; i < count; i++) {
                receiveSized(s, buf, size);
            }
            long elapsedUs = Math.max(1, (System.nanoTime() - start) / 1000);
            long throughput = (long) ((double) count / (double) elapsedUs * 1_000_000.0);
            double megabits = (double) throughput * size * 8.0 / 1_000_000.0;
            System.out.printf(Locale.ROOT, "message size: %d [B]%n", size);
            System.out.printf(Locale.ROOT, "message count: %d%n", count);
            System.out.printf(Locale.ROOT, "mean throughput: %d [msg/s]%n", throughput);
            System.out.printf(Locale.ROOT, "mean throughput: %.3f [Mb/s]%n", megabits);
        }
    }

    private static void remoteThr(ZmqContext ctx, String endpoint, int size, long count) {
        try (ZmqSocket s = ctx.socket(SocketType.PUSH)) {
            s.setLinger(-1); // every message reaches local_thr before close returns
            secure(s, false);
            s.connect(endpoint);
            byte[] m = new byte[size];
            for (long i = 0; i < count; i++) {
                s.send(m, 0);
            }
        }
    }

    private static void localLat(ZmqContext ctx, String endpoint, int size, long count) {
        try (ZmqSocket s = ctx.socket(SocketType.REP)) {
            s.setLinger(-1); // the last reply reaches remote_lat before close returns
            secure(s, true);
            s.bind(endpoint);
            byte[] buf = new byte[Math.max(size, 1)];
            for (long i = 0; i < count; i++) {
                receiveSized(s, buf, size);
                s.send(buf, 0, size, 0);
            }
        }
    }

    private static void remoteLat(ZmqContext ctx, String endpoint, int size, long count) {
        try (ZmqSocket s = ctx.socket(SocketType.REQ)) {
            secure(s, false);
            s.connect(endpoint);
            byte[] buf = new byte[Math.max(size, 1)];
            long[] trips = new long[Math.toIntExact(count)];
            long start = System.nanoTime();
            for (int i = 0; i < trips.length; i++) {
                long t0 = System.nanoTime();
                s.send(buf, 0, size, 0);
                receiveSized(s, buf, size);
                trips[i] = System.nanoTime() - t0;
            }
            long elapsedUs = (System.nanoTime() - start) / 1000;
            System.out.printf(Locale.ROOT, "message size: %d [B]%n", size);
            System.out.printf(Locale.ROOT, "roundtrip count: %d%n", count);
            System.out.printf(Locale.ROOT, "average latency: %.3f [us]%n", (double) elapsedUs / (count * 2.0));
            System.out.printf(Locale.ROOT, "p99 latency: %.3f [us]%n", p99(trips) / 2000.0);
        }
    }

    /** The 99th percentile (nearest rank) of {@code trips}, which it sorts. */
    static long p99(long[] trips) {
        Arrays.sort(trips);
        return trips[(int) ((trips.length * 99L + 99) / 100) - 1];
    }
}
