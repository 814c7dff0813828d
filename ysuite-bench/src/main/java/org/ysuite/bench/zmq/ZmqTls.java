package org.ysuite.bench.zmq;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.netty.TestPki;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqSocket;

/**
 * ysuite-zmq PUSH to PULL over loopback tcp, one connection, plain or under TLS (the JDK's provider,
 * TLS 1.3, certificates made in memory by ysuite-netty's {@code TestPki}), quiet or during a flood of
 * hostile connections that never finish their handshake (50 at a time, reopened as the PULL's 300 ms
 * handshake interval closes them: silent, a cut greeting, garbage). The benchmark thread sends; a
 * receiver thread takes every message into one buffer. Each iteration prints the bytes the sending
 * thread allocated per message ({@code app B/op}), which is the application thread's figure whatever
 * {@code -prof gc} adds for the I/O threads.
 * <pre>
 * java -jar ysuite-bench/target/ysuite-bench.jar ZmqTls
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class ZmqTls {

    /** {@code plain} or {@code tls}. */
    @Param({"plain", "tls"})
    public String transport;

    /** Message size, bytes. */
    @Param({"64", "1024"})
    public int size;

    /** {@code quiet}, or {@code flood}: hostile half-open connections to the same PULL throughout. */
    @Param({"quiet", "flood"})
    public String load;

    private ZmqContext ctx;
    private ZmqSocket push;
    private byte[] message;
    private Thread receiver;
    private Thread flooder;
    private volatile boolean running;
    private long sent;
    private long allocatedBefore;
    private long sentBefore;

    /** Binds, connects, starts the receiver (and the flood). */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ctx = ZmqContext.create();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.setLinger(0);
        pull.setHandshakeInterval(300);
        pull.setReceiveTimeout(100);
        push = ctx.socket(SocketType.PUSH);
        push.setLinger(0);
        if (transport.equals("tls")) {
            TestPki.Identity ca = TestPki.ca("bench CA");
            TestPki.Identity server = TestPki.server(ca, "localhost", "127.0.0.1");
            SslContext s = SslContextBuilder.forServer(server.key(), server.cert()).sslProvider(SslProvider.JDK).build();
            SslContext c = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(ca.cert()).build();
            pull.setTls(s);
            push.setTls(c);
        }
        pull.bind("tcp://127.0.0.1:0");
        int port = URI.create(pull.lastEndpoint()).getPort();
        push.connect(pull.lastEndpoint());
        message = new byte[size];
        running = true;
        receiver = new Thread(() -> {
            byte[] buf = new byte[size];
            while (running) {
                pull.receive(buf, 0, buf.length, 0); // -1 after the 100 ms timeout: look at running again
            }
        }, "zmq-bench-receiver");
        receiver.start();
        if (load.equals("flood")) {
            flooder = new Thread(() -> flood(port), "zmq-bench-flood");
            flooder.start();
        }
    }

    private void flood(int port) {
        byte[] partialGreeting = {(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F};
        byte[] garbage = "GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        while (running) {
            List<Socket> open = new ArrayList<>();
            try {
                for (int i = 0; i < 50; i++) {
                    Socket s = new Socket();
                    open.add(s);
                    s.connect(new InetSocketAddress("127.0.0.1", port));
                    if (i % 3 == 1) {
                        s.getOutputStream().write(partialGreeting);
                    } else if (i % 3 == 2) {
                        s.getOutputStream().write(garbage);
                    }
                }
                for (Socket s : open) {
                    s.setSoTimeout(10_000);
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[1024];
                    while (in.read(buf) >= 0) {
                        // until the server closes it
                    }
                }
            } catch (IOException e) {
                // a reset or a refused connect under load: the next round opens new ones
            } finally {
                for (Socket s : open) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                }
            }
        }
    }

    /** Notes the sending thread's allocation so far (runs on the benchmark thread). */
    @Setup(Level.Iteration)
    public void mark() {
        allocatedBefore = allocated();
        sentBefore = sent;
    }

    /** Prints the sending thread's bytes allocated per message over the iteration. */
    @TearDown(Level.Iteration)
    public void report() {
        long n = sent - sentBefore;
        if (n > 0) {
            System.out.printf(" [app B/op %.3f]", (double) (allocated() - allocatedBefore) / n);
        }
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /** Stops the threads and closes the context. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        running = false;
        receiver.join();
        if (flooder != null) {
            flooder.join();
        }
        ctx.close();
    }

    /** One message from the application thread (blocks at the high-water mark: the pipeline's pace). */
    @Benchmark
    public void send() {
        push.send(message, 0);
        sent++;
    }
}
