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
import org.ysuite.OffHeapYPipe;
import org.ysuite.YPipe;
import org.ysuite.YSemaphore;
import org.ysuite.bench.support.CountingSink;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Window;

/**
 * Seed 000, scenario 3, sender-side batching: write {@code batch} messages, flush once (and
 * signal the reader if the flush found it asleep). One invocation sends {@value #MESSAGES}
 * messages in batches of {@code batch}, so the score is the density in ns/msg for that batch
 * size; the reader drains with consumer-side batching and sleeps when it finds nothing, as in
 * {@link Throughput}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class SenderBatch {

    /** Messages per invocation: every batch size divides it. */
    public static final int MESSAGES = 1024;

    /** YPipe of Long, reader woken by a YSemaphore. */
    @State(Scope.Benchmark)
    public static class YPipeBatch {
        /** Messages written per flush. */
        @Param({"1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024"})
        public int batch;

        YPipe<Long> pipe;
        YSemaphore wake;
        Window window;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            pipe = new YPipe<>(Msg.CHUNK);
            wake = new YSemaphore();
            window = new Window(Msg.WINDOW);
            CountingSink<Long> sink = new CountingSink<>();
            consumer = Partner.start("ypipe-reader", () -> {
                int n = pipe.readBatch(sink);
                if (n == 0) {
                    wake.await();
                } else {
                    window.consumed(n);
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /**
     * YPipe: {@code batch} writes, one flush.
     *
     * @param s state
     */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    @Transport(label = "YPipe", kind = Transport.Kind.YSUITE)
    public void ypipe(YPipeBatch s) {
        YPipe<Long> pipe = s.pipe;
        int batch = s.batch;
        s.window.beforeSend(MESSAGES);
        for (int sent = 0; sent < MESSAGES; sent += batch) {
            for (int i = 0; i < batch; i++) {
                pipe.write(Msg.MESSAGE);
            }
            if (!pipe.flush()) {
                s.wake.signal(0);
            }
        }
    }

    /**
     * The throughput scenario's OffHeapYPipe state (8-byte messages over a 64 KiB ring, reader
     * woken by a YSemaphore), with the number of messages written per flush.
     */
    @State(Scope.Benchmark)
    public static class OffHeapBatch {
        /** Messages written per flush. */
        @Param({"1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024"})
        public int batch;

        ThroughputPeers.OffHeap stream;

        /** Starts the reader. */
        @Setup(Level.Trial)
        public void setup() {
            stream = new ThroughputPeers.OffHeap();
        }

        /**
         * Stops the reader and frees the ring.
         *
         * @throws Exception if the reader does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            stream.close();
        }
    }

    /**
     * OffHeapYPipe: {@code batch} writes, one flush; a full ring is flushed, and the writer
     * waits for space.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    @Transport(label = "OffHeapYPipe (8 B)", kind = Transport.Kind.YSUITE)
    public void offHeapYPipe(OffHeapBatch s) throws InterruptedException {
        OffHeapYPipe pipe = s.stream.pipe;
        YSemaphore wake = s.stream.wake;
        byte[] payload = s.stream.payload;
        int batch = s.batch;
        for (int sent = 0; sent < MESSAGES; sent += batch) {
            for (int i = 0; i < batch; i++) {
                while (!pipe.write(payload)) {
                    if (!pipe.flush()) {
                        wake.signal(0);
                    }
                    pipe.awaitSpace(payload.length);
                }
            }
            if (!pipe.flush()) {
                wake.signal(0);
            }
        }
    }
}
