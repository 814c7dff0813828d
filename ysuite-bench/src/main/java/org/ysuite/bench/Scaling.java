package org.ysuite.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.YPipe;
import org.ysuite.YSemaphore;
import org.ysuite.bench.support.CountingSink;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Window;

/**
 * Seed 004, scaling: independent streams, each a writer (a JMH thread) and a reader thread of
 * its own over its own YPipe and YSemaphore. Run it with {@code -t N} for N streams (the report
 * runs 1, 2, ... up to the cores); each stream needs two cores, so on a machine with fewer than
 * {@code 2 N} cores the streams compete for CPUs and the figure says nothing about the pipe.
 * The score is the per-stream density; aggregate throughput is {@code N * 1e9 / score}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class Scaling {

    /** One stream per JMH thread. */
    @State(Scope.Thread)
    public static class StreamState {
        YPipe<Long> pipe;
        YSemaphore wake;
        Window window;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            pipe = new YPipe<>();
            wake = new YSemaphore();
            window = new Window(Msg.WINDOW);
            CountingSink<Long> sink = new CountingSink<>();
            consumer = Partner.start("stream-reader", () -> {
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
     * One stream's writer: write, flush, signal a sleeping reader.
     *
     * @param s this thread's stream
     */
    @Benchmark
    @Transport(label = "YPipe streams", kind = Transport.Kind.YSUITE)
    public void ypipe(StreamState s) {
        s.window.beforeSend(1);
        s.pipe.write(Msg.MESSAGE);
        if (!s.pipe.flush()) {
            s.wake.signal(0);
        }
    }
}
