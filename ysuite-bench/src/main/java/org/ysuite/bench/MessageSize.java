package org.ysuite.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.YSemaphore;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;

/**
 * Seed 003, message sizes 1 B to 64 KiB through an OffHeapYPipe: throughput (density, msgs/s,
 * Mb/s) with one flush per message, one-message latency (ping-pong, one way), and a
 * memory-copy baseline of the same sizes (the physical limit of the machine).
 *
 * <p>The writer copies each message from a {@code byte[]} into the ring; the reader copies it
 * out into its own {@code byte[]} (a reader that only looked at the ring would not be a fair
 * comparison with the copy). The ring is 1 MiB for every size.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class MessageSize {

    /** Ring capacity for every size. */
    public static final int RING = 1 << 20;

    /** Message sizes of seed 003. */
    @State(Scope.Benchmark)
    public static class Size {
        /** Message size in bytes. */
        @Param({"1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024", "2048", "4096",
                "8192", "16384", "32768", "65536"})
        public int size;
    }

    /** OffHeapYPipe stream: writer flushes each message, reader copies each out. */
    @State(Scope.Benchmark)
    public static class Stream {
        OffHeapYPipe pipe;
        YSemaphore wake;
        byte[] payload;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup(Size size) {
            pipe = new OffHeapYPipe(RING);
            wake = new YSemaphore();
            payload = new byte[size.size];
            MessageHandler handler = handler(size.size);
            consumer = Partner.start("size-reader", () -> {
                if (pipe.readBatch(handler) == 0) {
                    wake.await();
                }
            });
        }

        /** The reader's handler: copies each message out (the copying path's second copy). */
        MessageHandler handler(int size) {
            byte[] dst = new byte[size];
            return (buf, off, len) -> buf.get(off, dst, 0, len);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
            pipe.close();
        }
    }

    /**
     * Throughput: write one message (waiting for space when full), flush, signal if needed.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @Transport(label = "OffHeapYPipe", kind = Transport.Kind.YSUITE)
    public void throughput(Stream s) throws InterruptedException {
        OffHeapYPipe pipe = s.pipe;
        byte[] payload = s.payload;
        while (!pipe.write(payload)) {
            pipe.awaitSpace(payload.length);
        }
        if (!pipe.flush()) {
            s.wake.signal(0);
        }
    }

    /**
     * OffHeapYPipe stream without copies on the pipe's side: the writer builds each message in
     * place ({@code claim}, one bulk put of the payload into the ring, {@code commit}) and the
     * reader uses it where it lies (its view: it reads the first and last byte). One memory
     * copy per message in all, against the copying path's two ({@link #throughput}).
     */
    @State(Scope.Benchmark)
    public static class ZeroCopyStream extends Stream {
        java.nio.ByteBuffer ring;
        long sum;

        @Override
        MessageHandler handler(int size) {
            ring = pipe.claimBuffer(); // the ring the writer claims into (setup made the pipe)
            return (buf, off, len) -> sum += buf.get(off) + buf.get(off + len - 1);
        }
    }

    /**
     * Zero-copy throughput: claim (waiting for space when full), put the payload in place,
     * commit, flush, signal if needed.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @Transport(label = "OffHeapYPipe zero-copy (claim/commit, view)", kind = Transport.Kind.YSUITE)
    public void zeroCopy(ZeroCopyStream s) throws InterruptedException {
        OffHeapYPipe pipe = s.pipe;
        byte[] payload = s.payload;
        int at;
        while ((at = pipe.claim(payload.length)) < 0) {
            pipe.awaitSpace(payload.length);
        }
        s.ring.put(at, payload);
        pipe.commit(false);
        if (!pipe.flush()) {
            s.wake.signal(0);
        }
    }

    /** Ping-pong over two OffHeapYPipes; the echo copies the message out and sends it back. */
    @State(Scope.Benchmark)
    public static class PingPong {
        OffHeapYPipe ping;
        OffHeapYPipe pong;
        YSemaphore echoWake;
        YSemaphore mainWake;
        byte[] payload;
        byte[] in;
        Partner echo;

        @Setup(Level.Trial)
        public void setup(Size size) {
            ping = new OffHeapYPipe(RING);
            pong = new OffHeapYPipe(RING);
            echoWake = new YSemaphore();
            mainWake = new YSemaphore();
            payload = new byte[size.size];
            in = new byte[size.size];
            byte[] buf = new byte[size.size];
            echo = Partner.start("size-echo", () -> {
                int n;
                while ((n = ping.read(buf)) < 0) {
                    echoWake.await();
                }
                if (!pong.write(buf, 0, n, false)) {
                    throw new IllegalStateException("pong ring full with one message in flight");
                }
                if (!pong.flush()) {
                    mainWake.signal(0);
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            echo.stop(null);
            ping.close();
            pong.close();
        }
    }

    /**
     * One-message latency: a round trip of one message, counted as two (one-way latency).
     *
     * @param s state
     * @return bytes received
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "OffHeapYPipe latency", kind = Transport.Kind.YSUITE)
    public int latency(PingPong s) throws InterruptedException {
        s.ping.write(s.payload);
        if (!s.ping.flush()) {
            s.echoWake.signal(0);
        }
        int n;
        while ((n = s.pong.read(s.in)) < 0) {
            s.mainWake.await();
        }
        return n;
    }

    /** Source and destination of the memory-copy baselines. */
    @State(Scope.Benchmark)
    public static class Copy {
        byte[] src;
        byte[] dst;
        byte[] ring;
        int position;

        @Setup(Level.Trial)
        public void setup(Size size) {
            src = new byte[size.size];
            dst = new byte[size.size];
            ring = new byte[RING];
        }
    }

    /**
     * Memory-copy baseline (the target's): one System.arraycopy of the message size between
     * the same two arrays, on one thread; for small sizes both stay in the core's cache.
     *
     * @param c state
     * @return the destination
     */
    @Benchmark
    @Transport(label = "memory copy", kind = Transport.Kind.BASELINE)
    public byte[] memoryCopy(Copy c) {
        System.arraycopy(c.src, 0, c.dst, 0, c.src.length);
        return c.dst;
    }

    /**
     * Second baseline: one System.arraycopy of the message size into successive positions of a
     * buffer as large as the pipe's ring, so the copy streams through the same memory footprint
     * instead of staying in the core's cache (context for the pipe's figure, not its target).
     *
     * @param c state
     * @return the ring
     */
    @Benchmark
    @Transport(label = "memory copy through a 1 MiB ring", kind = Transport.Kind.BASELINE)
    public byte[] memoryCopyRing(Copy c) {
        int len = c.src.length;
        int pos = c.position;
        if (pos + len > RING) {
            pos = 0;
        }
        System.arraycopy(c.src, 0, c.ring, pos, len);
        c.position = pos + len;
        return c.ring;
    }
}
