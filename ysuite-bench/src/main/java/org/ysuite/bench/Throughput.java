package org.ysuite.bench;

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
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.YPipe;
import org.ysuite.bench.support.CountingSink;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Wake;
import org.ysuite.bench.support.Window;

/**
 * Seed 000, scenario 2, maximal throughput: the JMH thread pushes messages one by one as fast
 * as it can, flushing (publishing) each; a consumer thread owned by the state drains everything
 * available in one batch (consumer-side batching) and, for the blocking transports, goes to
 * sleep when it finds nothing. One operation is one message, so the score is the density in
 * ns/msg and 1e9 / score the throughput in msgs/s.
 *
 * <p>{@link #ypipe} measures the YPipe rows (one per signaler); {@link #peer} every other
 * contender, the one its state's {@code peer} parameter names ({@link ThroughputPeers.Peer}).
 * Unbounded transports are held to a credit window ({@link Window}) of {@value Msg#WINDOW}
 * messages; bounded ones have a capacity of {@value Msg#CAPACITY}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
@Timeout(time = 60)
public class Throughput {

    /** YPipe of Long, the reader woken by the chosen signaler. */
    @State(Scope.Benchmark)
    public static class YPipeStream {
        /** Signaler: YPollset ("with poll"), YSemaphore ("without poll"), YSocketPair. */
        @Param({Wake.POLLSET, Wake.SEMAPHORE, Wake.SOCKETPAIR, Wake.EVENTFD})
        public String signaler;

        YPipe<Long> pipe;
        Wake wake;
        Window window;
        Partner consumer;

        /** Starts the reader. */
        @Setup(Level.Trial)
        public void setup() {
            pipe = new YPipe<>(); // the reader spins as the default policy says...
            wake = Wake.create(signaler, 0); // ...and parks on the signaler at once (its default)
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

        /**
         * Stops the reader.
         *
         * @throws Exception if it does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
            wake.close();
        }
    }

    /**
     * YPipe: write, flush, signal when the flush finds the reader asleep.
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "YPipe", kind = Transport.Kind.YSUITE)
    public void ypipe(YPipeStream s) {
        s.window.beforeSend(1);
        s.pipe.write(Msg.MESSAGE);
        if (!s.pipe.flush()) {
            s.wake.signal();
        }
    }

    /** Every other contender's stream, made by {@link ThroughputPeers.Peer}. */
    @State(Scope.Benchmark)
    public static class Peers {
        /** The contender (all of them unless {@code -p peer=...} says otherwise). */
        @Param
        public ThroughputPeers.Peer peer;

        ThroughputPeers.Sender sender;

        /**
         * Opens the contender's stream and starts its reader.
         *
         * @throws Exception if it cannot be set up
         */
        @Setup(Level.Trial)
        public void setup() throws Exception {
            sender = peer.open(false);
        }

        /**
         * Stops the reader and frees the transport.
         *
         * @throws Exception if the reader does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            sender.close();
        }
    }

    /**
     * The contender its state holds: one message sent and flushed, the transport's way.
     *
     * @param s state
     * @throws Exception if the run is stopped or the transport fails
     */
    @Benchmark
    public void peer(Peers s) throws Exception {
        s.sender.send();
    }
}
