package org.ysuite.bench;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.jctools.queues.SpscArrayQueue;
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
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YSemaphore;
import org.ysuite.bench.support.CountingSink;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Wake;
import org.ysuite.bench.support.Window;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The peers' states of {@link Throughput} (seed 000, maximal throughput): JDK queues, JCTools,
 * the Disruptor, JeroMQ, Unix-domain sockets and Agrona, each with its consumer thread, written
 * the way that library's users write it. The benchmark methods that drive them are in
 * {@link Throughput}, beside ysuite's own.
 */
public final class ThroughputPeers {

    private ThroughputPeers() {
    }

    // ------------------------------------------------------------------ blocking peers

    /** A blocking queue drained in batches; take() when empty. */
    public abstract static class QueueStream {
        BlockingQueue<Long> queue;
        Window window;
        Partner consumer;

        abstract BlockingQueue<Long> newQueue();

        /** Starts the reader thread; {@link VirtualThreads} runs it in a virtual thread. */
        Partner startReader(String name, Partner.Step step) {
            return Partner.start(name, step);
        }

        @Setup(Level.Trial)
        public void setup() {
            queue = newQueue();
            window = new Window(Msg.WINDOW);
            CountingSink<Long> sink = new CountingSink<>();
            consumer = startReader("queue-reader", () -> {
                int n = queue.drainTo(sink);
                if (n == 0) {
                    sink.add(queue.take());
                    n = 1;
                }
                window.consumed(n);
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /** java.util.concurrent.SynchronousQueue. */
    @State(Scope.Benchmark)
    public static class SynchronousQueueStream extends QueueStream {
        @Override
        BlockingQueue<Long> newQueue() {
            return new SynchronousQueue<>();
        }
    }

    /** java.util.concurrent.LinkedTransferQueue (unbounded: held to the credit window). */
    @State(Scope.Benchmark)
    public static class LinkedTransferQueueStream extends QueueStream {
        @Override
        BlockingQueue<Long> newQueue() {
            return new LinkedTransferQueue<>();
        }
    }

    /** java.util.concurrent.ArrayBlockingQueue. */
    @State(Scope.Benchmark)
    public static class ArrayBlockingQueueStream extends QueueStream {
        @Override
        BlockingQueue<Long> newQueue() {
            return new ArrayBlockingQueue<>(Msg.CAPACITY);
        }
    }

    /** JCTools MpscBlockingConsumerArrayQueue (drain, then take when empty). */
    @State(Scope.Benchmark)
    public static class MpscBlockingStream {
        MpscBlockingConsumerArrayQueue<Long> queue;
        Partner consumer;

        /** Starts the reader thread; {@link VirtualThreads} runs it in a virtual thread. */
        Partner startReader(String name, Partner.Step step) {
            return Partner.start(name, step);
        }

        @Setup(Level.Trial)
        public void setup() {
            queue = new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY);
            CountingSink<Long> counting = new CountingSink<>();
            org.jctools.queues.MessagePassingQueue.Consumer<Long> sink = counting::accept;
            consumer = startReader("mpsc-reader", () -> {
                if (queue.drain(sink) == 0) {
                    counting.add(queue.take());
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue whose reader, finding it empty, spins as long as
     * ysuite's default policy spins at most ({@link WaitPolicy#DEFAULT_SPINS} rounds of
     * {@link Thread#onSpinWait()}, one look per round) before it calls take(): the peer with the
     * same spin.
     */
    @State(Scope.Benchmark)
    public static class MpscBlockingSpinStream {
        MpscBlockingConsumerArrayQueue<Long> queue;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            queue = new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY);
            CountingSink<Long> counting = new CountingSink<>();
            org.jctools.queues.MessagePassingQueue.Consumer<Long> sink = counting::accept;
            consumer = Partner.start("mpsc-spin-reader", () -> {
                if (queue.drain(sink) > 0) {
                    return;
                }
                for (int round = 0; round < WaitPolicy.DEFAULT_SPINS; round++) {
                    Thread.onSpinWait();
                    if (queue.drain(sink) > 0) {
                        return;
                    }
                }
                counting.add(queue.take());
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /** Mutable event of the Disruptor ring. */
    public static final class LongEvent {
        long value;
    }

    /** A Disruptor ring with one BatchEventProcessor. */
    public abstract static class DisruptorStream {
        RingBuffer<LongEvent> ring;
        BatchEventProcessor<LongEvent> processor;
        Thread thread;
        long sum;

        abstract WaitStrategy waitStrategy();

        @Setup(Level.Trial)
        public void setup() {
            ring = RingBuffer.createSingleProducer(LongEvent::new, Msg.CAPACITY, waitStrategy());
            processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(),
                    (event, sequence, endOfBatch) -> sum += event.value);
            ring.addGatingSequences(processor.getSequence());
            thread = new Thread(processor, "disruptor-reader");
            thread.setDaemon(true);
            thread.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            processor.halt();
            thread.join(10_000);
            if (thread.isAlive()) {
                throw new IllegalStateException("disruptor reader did not stop");
            }
        }
    }

    /** Disruptor with BlockingWaitStrategy. */
    @State(Scope.Benchmark)
    public static class DisruptorBlockingStream extends DisruptorStream {
        @Override
        WaitStrategy waitStrategy() {
            return new BlockingWaitStrategy();
        }
    }

    /** Disruptor with BusySpinWaitStrategy. */
    @State(Scope.Benchmark)
    public static class DisruptorBusySpinStream extends DisruptorStream {
        @Override
        WaitStrategy waitStrategy() {
            return new BusySpinWaitStrategy();
        }
    }

    /** JeroMQ inproc PAIR: the reader owns its socket and stops at a one-byte message. */
    @State(Scope.Benchmark)
    public static class ZmqStream {
        final byte[] payload = new byte[8];
        ZContext ctx;
        ZMQ.Socket main;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            ctx = new ZContext();
            String addr = "inproc://thr-" + System.nanoTime();
            main = ctx.createSocket(SocketType.PAIR);
            main.bind(addr);
            ZMQ.Socket peer = ctx.createSocket(SocketType.PAIR);
            peer.connect(addr);
            consumer = Partner.start("zmq-reader", () -> {
                byte[] m = peer.recv(0);
                if (m == null || m.length == 1) {
                    peer.close();
                    throw new InterruptedException("stop");
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stopWithoutInterrupt(() -> main.send(new byte[] {1}, 0));
            main.close();
            ctx.close();
        }
    }

    // ------------------------------------------------------------------ local sockets

    /** JDK Unix-domain SocketChannel: 8 bytes a message, the reader reads all it can. */
    @State(Scope.Benchmark)
    public static class UnixSocketStream {
        final ByteBuffer out = ByteBuffer.allocateDirect(8);
        Path dir;
        SocketChannel main;
        SocketChannel peer;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            SocketChannel[] pair = WorstCase.UnixSockets.connectedPair();
            dir = WorstCase.UnixSockets.lastDir;
            main = pair[0];
            peer = pair[1];
            ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
            consumer = Partner.start("uds-reader", () -> {
                in.clear();
                if (peer.read(in) < 0) {
                    throw new IOException("closed");
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(() -> WorstCase.UnixSockets.closeQuietly(peer));
            WorstCase.UnixSockets.closeQuietly(main);
            WorstCase.UnixSockets.deleteQuietly(dir);
        }
    }

    // ------------------------------------------------------------------ busy-spin peers

    /** JCTools SpscArrayQueue, the reader spins when empty. */
    @State(Scope.Benchmark)
    public static class SpscStream {
        SpscArrayQueue<Long> queue;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            queue = new SpscArrayQueue<>(Msg.CAPACITY);
            CountingSink<Long> counting = new CountingSink<>();
            org.jctools.queues.MessagePassingQueue.Consumer<Long> sink = counting::accept;
            consumer = Partner.start("spsc-reader", () -> {
                if (queue.drain(sink) == 0) {
                    Thread.onSpinWait();
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /** Agrona OneToOneConcurrentArrayQueue, the reader spins when empty. */
    @State(Scope.Benchmark)
    public static class AgronaQueueStream {
        OneToOneConcurrentArrayQueue<Long> queue;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            queue = new OneToOneConcurrentArrayQueue<>(Msg.CAPACITY);
            CountingSink<Long> sink = new CountingSink<>();
            consumer = Partner.start("agrona-q-reader", () -> {
                if (queue.drain(sink) == 0) {
                    Thread.onSpinWait();
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /** Agrona OneToOneRingBuffer of 8-byte messages, the reader spins when empty. */
    @State(Scope.Benchmark)
    public static class AgronaRingStream {
        OneToOneRingBuffer ring;
        UnsafeBuffer src;
        Partner consumer;
        long sum;

        @Setup(Level.Trial)
        public void setup() {
            int bytes = 64 * 1024 + RingBufferDescriptor.TRAILER_LENGTH;
            ring = new OneToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(bytes)));
            src = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
            org.agrona.concurrent.MessageHandler handler =
                    (type, buffer, index, length) -> sum += buffer.getLong(index);
            consumer = Partner.start("agrona-rb-reader", () -> {
                if (ring.read(handler) == 0) {
                    Thread.onSpinWait();
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }
}
