package org.ysuite.examples;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqSocket;

/**
 * The server side of {@code report zmq-peers} over ysuite-zmq: one ROUTER or one PUB socket for many
 * peers, driven by lines on stdin and answering with lines on stdout, as the C program
 * {@code zmq_peers server} does with libzmq:
 * <pre>
 * java -jar ysuite-examples.jar peers_server router|pub &lt;bind-to&gt; &lt;n&gt;
 * </pre>
 * It binds, prints {@code bound}, then reads commands: {@code serve} (ROUTER: answers {@code n} requests,
 * each {@code [routing id][payload]} sent back to its routing id, then prints {@code served n}),
 * {@code warm} (PUB: publishes {@code w}), {@code pub K}
 * (PUB: publishes {@code t K} and prints {@code sent K T}, T being {@link System#nanoTime()} just before
 * the send, which on Linux is CLOCK_MONOTONIC, the C clients' clock), {@code stats} (after a
 * {@link System#gc()}, prints {@code stats heap=B direct=B nettyDirect=B}: the heap used, the JDK's direct
 * buffers, and the default Netty allocator's direct memory, -1 where not known), {@code quit}.
 */
public final class ZmqPeers {

    private ZmqPeers() {
    }

    /**
     * Runs the server.
     *
     * @param args {@code router|pub}, the endpoint to bind and the number of peers
     * @throws IOException if stdin cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3 || !(args[0].equals("router") || args[0].equals("pub"))) {
            System.err.println("usage: peers_server router|pub <bind-to> <n>");
            System.exit(2);
        }
        boolean router = args[0].equals("router");
        int n = Integer.parseInt(args[2]);
        if (n < 1) {
            throw new IllegalArgumentException("n " + n + " must be at least 1");
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try (ZmqContext ctx = ZmqContext.create(); ZmqSocket s = ctx.socket(router ? SocketType.ROUTER : SocketType.PUB)) {
            s.setLinger(0);
            s.bind(args[1]);
            System.out.println("bound");
            for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
                if (line.equals("stats")) {
                    System.gc();
                    Runtime rt = Runtime.getRuntime();
                    System.out.printf(Locale.ROOT, "stats heap=%d direct=%d nettyDirect=%d%n",
                            rt.totalMemory() - rt.freeMemory(), jdkDirect(), nettyDirect());
                } else if (line.equals("serve") && router) {
                    for (int i = 0; i < n; i++) {
                        byte[] id = s.receive(0);
                        byte[] payload = s.receive(0);
                        s.send(id, ZmqSocket.SNDMORE);
                        s.send(payload, 0);
                    }
                    System.out.println("served " + n);
                } else if (line.equals("warm") && !router) {
                    s.send("w", 0);
                } else if (line.startsWith("pub ") && !router) {
                    int k = Integer.parseInt(line.substring(4).trim());
                    byte[] m = ("t " + k).getBytes(StandardCharsets.US_ASCII);
                    long t = System.nanoTime();
                    s.send(m, 0);
                    System.out.println("sent " + k + " " + t);
                } else {
                    System.err.println("peers_server: unknown command " + line);
                }
            }
        }
    }

    private static long jdkDirect() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b.getMemoryUsed();
            }
        }
        return -1;
    }

    private static long nettyDirect() {
        ByteBufAllocator a = ByteBufAllocator.DEFAULT;
        return a instanceof ByteBufAllocatorMetricProvider ? ((ByteBufAllocatorMetricProvider) a).metric().usedDirectMemory() : -1;
    }
}
