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
import org.ysuite.bench.ThroughputPeers.*;

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