package org.ysuite.bench.net;

import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Two ways of waking a thread, measured in one run and interleaved: a ping-pong of two threads
 * that wait in {@link LockSupport#park()} and wake each other with {@link LockSupport#unpark},
 * and a ping-pong of two threads each blocked in a {@link SocketChannel#read} of a TCP loopback
 * connection ({@code TCP_NODELAY}, one byte each way). Rounds alternate between the two; each
 * prints its mean round trip (two wake-ups) and at the end the median and range per kind.
 *
 * <p>{@code java -cp ysuite-bench.jar org.ysuite.bench.net.WakeCompare [rounds [round trips per round]]}
 * (default 7 rounds of 20,000).
 */
public final class WakeCompare {

    private WakeCompare() {
    }

    /**
     * Runs the comparison.
     *
     * @param args {@code [rounds [n]]}
     * @throws Exception if the socket fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        double[] park = new double[rounds];
        double[] sock = new double[rounds];
        parkPingPong(n); // warm-up of both
        socketPingPong(n);
        for (int r = 0; r < rounds; r++) {
            park[r] = parkPingPong(n);
            sock[r] = socketPingPong(n);
            System.out.printf(Locale.ROOT, "round %d: park/unpark %.1f us, blocking socket %.1f us%n", r, park[r] / 1e3,
                    sock[r] / 1e3);
        }
        System.out.printf(Locale.ROOT, "park/unpark     median %.1f us (%.1f-%.1f)%n", med(park) / 1e3,
                Arrays.stream(park).min().getAsDouble() / 1e3, Arrays.stream(park).max().getAsDouble() / 1e3);
        System.out.printf(Locale.ROOT, "blocking socket median %.1f us (%.1f-%.1f)%n", med(sock) / 1e3,
                Arrays.stream(sock).min().getAsDouble() / 1e3, Arrays.stream(sock).max().getAsDouble() / 1e3);
    }

    private static double med(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** The turn: odd while the peer has to answer. Volatile: its write happens before the unpark. */
    private static volatile long turn;

    /** Mean round trip in ns of {@code n} park/unpark ping-pongs. */
    static double parkPingPong(int n) throws InterruptedException {
        turn = 0;
        Thread main = Thread.currentThread();
        Thread peer = new Thread(() -> {
            for (long i = 0; i < n; i++) {
                while (turn != 2 * i + 1) {
                    LockSupport.park();
                }
                turn = 2 * i + 2;
                LockSupport.unpark(main);
            }
        }, "wake-park-peer");
        peer.start();
        long t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            turn = 2 * i + 1;
            LockSupport.unpark(peer);
            while (turn != 2 * i + 2) {
                LockSupport.park();
            }
        }
        long ns = System.nanoTime() - t0;
        peer.join();
        return ns / (double) n;
    }

    /** Mean round trip in ns of {@code n} one-byte ping-pongs over blocking TCP loopback. */
    static double socketPingPong(int n) throws Exception {
        try (ServerSocketChannel ss = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel c = SocketChannel.open(ss.getLocalAddress());
             SocketChannel s = ss.accept()) {
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Thread peer = new Thread(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(1);
                try {
                    for (int i = 0; i < n; i++) {
                        b.clear();
                        NetServer.readFully(s, b);
                        b.flip();
                        s.write(b);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "wake-socket-peer");
            peer.start();
            ByteBuffer b = ByteBuffer.allocateDirect(1);
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                b.clear();
                c.write(b);
                b.clear();
                NetServer.readFully(c, b);
            }
            long ns = System.nanoTime() - t0;
            peer.join();
            return ns / (double) n;
        }
    }
}
