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
 * Seed 000, scenario 2, maximal throughput: the JMH thread pushes messages one by one as fast
 * as it can, flushing (publishing) each; a consumer thread owned by the state drains everything
 * available in one batch (consumer-side batching) and, for the blocking transports, goes to
 * sleep when it finds nothing. One operation is one message, so the score is the density in
 * ns/msg and 1e9 / score the throughput in msgs/s.
 *
 * <p>Unbounded transports are held to a credit window ({@link Window}) of {@value Msg#WINDOW}
 * messages; bounded ones have a capacity of {@value Msg#CAPACITY}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class Throughput {

    // ------------------------------------------------------------------ y-suite

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

    /** OffHeapYPipe of 8-byte messages over a 64 KiB ring, woken by a YSemaphore. */
    @State(Scope.Benchmark)
    public static class OffHeapStream {
        final byte[] payload = new byte[8];
        OffHeapYPipe pipe;
        YSemaphore wake;
        Partner consumer;
        long sum;

        @Setup(Level.Trial)
        public void setup() {
            pipe = new OffHeapYPipe(64 * 1024);
            wake = new YSemaphore();
            MessageHandler handler = (buf, off, len) -> sum += buf.getLong(off);
            consumer = Partner.start("offheap-reader", () -> {
                if (pipe.readBatch(handler) == 0) {
                    wake.await();
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
            pipe.close();
        }
    }

    /**
     * OffHeapYPipe, 8-byte messages: write (waiting for space when the ring is full), flush,
     * signal when the reader sleeps.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @Transport(label = "OffHeapYPipe (8 B)", kind = Transport.Kind.YSUITE)
    public void offHeapYPipe(OffHeapStream s) throws InterruptedException {
        OffHeapYPipe pipe = s.pipe;
        while (!pipe.write(s.payload)) {
            pipe.awaitSpace(s.payload.length);
        }
        if (!pipe.flush()) {
            s.wake.signal(0);
        }
    }

    /** YMailbox over its YPollset, one writer. */
    @State(Scope.Benchmark)
    public static class MailboxStream {
        YMailbox<Long> mailbox;
        YMailbox.Writer<Long> writer;
        Window window;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            mailbox = new YMailbox<>();
            writer = mailbox.newWriter();
            window = new Window(Msg.WINDOW);
            CountingSink<Long> sink = new CountingSink<>();
            consumer = Partner.start("mailbox-reader", () -> window.consumed(mailbox.poll(sink)));
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /**
     * YMailbox: send (write + flush, signalling only a sleeping reader).
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "YMailbox", kind = Transport.Kind.YSUITE)
    public void ymailbox(MailboxStream s) {
        s.window.beforeSend(1);
        s.writer.send(Msg.MESSAGE);
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
     * SynchronousQueue put.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @Transport(label = "SynchronousQueue", kind = Transport.Kind.BLOCKING)
    public void synchronousQueue(SynchronousQueueStream s) throws InterruptedException {
        s.queue.put(Msg.MESSAGE);
    }

    /**
     * LinkedTransferQueue put.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @Transport(label = "LinkedTransferQueue", kind = Transport.Kind.BLOCKING)
    public void linkedTransferQueue(LinkedTransferQueueStream s) throws InterruptedException {
        s.window.beforeSend(1);
        s.queue.put(Msg.MESSAGE);
    }

    /**
     * ArrayBlockingQueue put.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @Transport(label = "ArrayBlockingQueue", kind = Transport.Kind.BLOCKING)
    public void arrayBlockingQueue(ArrayBlockingQueueStream s) throws InterruptedException {
        s.queue.put(Msg.MESSAGE);
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue whose reader, finding it empty, spins as ysuite's
     * default policy does ({@link WaitPolicy#DEFAULT_SPINS} rounds of {@link Thread#onSpinWait()},
     * one look per round) before it calls take(): the peer with the same spin.
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

    /**
     * JCTools MpscBlockingConsumerArrayQueue offer, the reader spinning before take().
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "JCTools MpscBlockingConsumerArrayQueue (spin, then take)", kind = Transport.Kind.BLOCKING)
    public void jctoolsMpscBlockingSpin(MpscBlockingSpinStream s) {
        while (!s.queue.offer(Msg.MESSAGE)) {
            Thread.yield();
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue offer.
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "JCTools MpscBlockingConsumerArrayQueue", kind = Transport.Kind.BLOCKING)
    public void jctoolsMpscBlocking(MpscBlockingStream s) {
        // its producers cannot block (put() throws when full): offer, and yield while full
        while (!s.queue.offer(Msg.MESSAGE)) {
            Thread.yield();
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

    private static void publish(DisruptorStream s) {
        long seq = s.ring.next();
        s.ring.get(seq).value = seq;
        s.ring.publish(seq);
    }

    /**
     * LMAX Disruptor, BlockingWaitStrategy: next, set, publish.
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "Disruptor (BlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
    public void disruptorBlocking(DisruptorBlockingStream s) {
        publish(s);
    }

    /**
     * LMAX Disruptor, BusySpinWaitStrategy: next, set, publish.
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "Disruptor (BusySpinWaitStrategy)", kind = Transport.Kind.BUSY_SPIN)
    public void disruptorBusySpin(DisruptorBusySpinStream s) {
        publish(s);
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

    /**
     * JeroMQ inproc PAIR send (blocks at the high-water mark).
     *
     * @param s state
     * @return whether the message was queued
     */
    @Benchmark
    @Transport(label = "JeroMQ inproc PAIR", kind = Transport.Kind.BLOCKING)
    public boolean jeromqPair(ZmqStream s) {
        return s.main.send(s.payload, 0);
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

    /**
     * Local sockets: one 8-byte write per message.
     *
     * @param s state
     * @throws IOException on a socket error
     */
    @Benchmark
    @Transport(label = "Unix-domain SocketChannel", kind = Transport.Kind.SOCKET)
    public void unixSocketChannel(UnixSocketStream s) throws IOException {
        s.out.clear();
        WorstCase.UnixSockets.writeFully(s.main, s.out);
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

    /**
     * JCTools SpscArrayQueue offer (spinning while full).
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "JCTools SpscArrayQueue (busy-spin)", kind = Transport.Kind.BUSY_SPIN)
    public void jctoolsSpsc(SpscStream s) {
        while (!s.queue.offer(Msg.MESSAGE)) {
            Thread.onSpinWait();
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

    /**
     * Agrona OneToOneConcurrentArrayQueue offer (spinning while full).
     *
     * @param s state
     */
    @Benchmark
    @Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
    @Transport(label = "Agrona OneToOneConcurrentArrayQueue (busy-spin)", kind = Transport.Kind.BUSY_SPIN)
    public void agronaQueue(AgronaQueueStream s) {
        while (!s.queue.offer(Msg.MESSAGE)) {
            Thread.onSpinWait();
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

    /**
     * Agrona OneToOneRingBuffer write of 8 bytes (spinning while full).
     *
     * @param s state
     */
    @Benchmark
    @Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
    @Transport(label = "Agrona OneToOneRingBuffer (busy-spin)", kind = Transport.Kind.BUSY_SPIN)
    public void agronaRingBuffer(AgronaRingStream s) {
        while (!s.ring.write(1, s.src, 0, 8)) {
            Thread.onSpinWait();
        }
    }
}
