package org.ysuite.bench;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.LiteBlockingWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.ysuite.WaitPolicy;
import org.ysuite.YPipe;
import org.ysuite.YSemaphore;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;

/**
 * Sparse traffic: what a sleeping reader costs when messages are rare. The JMH thread sends one
 * time-stamped message every {@code 1e9 / rate} ns (it parks, then spins to the exact instant;
 * {@code rate = 0} sends nothing: an idle reader); the reader thread, owned by the state, receives
 * each message the transport's usual way and records its one-way latency.
 *
 * <p>The score (the pacing period) means nothing; the results are the secondary metrics:
 * {@code readerCpuPercent}, the reader thread's CPU time (ThreadMXBean) per wall-clock time in
 * percent of one core, and {@code latencyNs}, the mean one-way latency (send to receipt). A
 * reader that wins latency by spinning shows it in its CPU column.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
@Timeout(time = 60)
public class SparseTraffic {

    /** One message: the instant it was sent. Preallocated in a ring; the sender fills one. */
    static final class Stamp {
        long sentAt;
    }

    /** The reader's record, read by the JMH thread: plain fields published by a volatile count. */
    static final class Record {
        private long latencySum;
        private volatile long received;

        void receive(Stamp s) {
            latencySum += System.nanoTime() - s.sentAt;
            received = received + 1; // one writer (the reader thread): no lost update
        }
    }

    /** The secondary results, refreshed by the JMH thread as it goes. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        /** Reader CPU time per wall time since the iteration began, % of one core. */
        public double readerCpuPercent;
        /** Mean one-way latency of the messages received in this iteration, ns. */
        public double latencyNs;

        long cpuAtStart;
        long wallAtStart;
        long sumAtStart;
        long countAtStart;

        /** Clears the counters at each iteration (the state's snapshot is taken lazily). */
        @Setup(Level.Iteration)
        public void reset() {
            wallAtStart = 0;
            readerCpuPercent = 0;
            latencyNs = 0;
        }
    }

    /** The reader side of one transport, the pacing of the sender and the measurement. */
    @State(Scope.Benchmark)
    public abstract static class Stream {
        /** Messages per second; {@code 0}: none (an idle reader). */
        @Param({"0", "10000", "100000"})
        public int rate;

        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        private static final int RING = 4096;
        private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(60);

        final Record record = new Record();
        private final Stamp[] stamps = new Stamp[RING];
        private long period;
        private long next;
        private long sent;
        private Partner reader;
        private long readerId;

        /** Starts the reader. */
        @Setup(Level.Trial)
        public void setup() throws Exception {
            for (int i = 0; i < RING; i++) {
                stamps[i] = new Stamp();
            }
            period = rate == 0 ? TimeUnit.MILLISECONDS.toNanos(1) : 1_000_000_000L / rate;
            open();
            reader = Partner.start("sparse-reader", this::receive);
            readerId = reader.threadId();
            next = System.nanoTime();
        }

        /** Stops the reader. */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            if (interruptToStop()) {
                reader.stop(this::wakeForStop);
            } else {
                reader.stopWithoutInterrupt(this::wakeForStop);
            }
            close();
        }

        /**
         * Whether stopping interrupts the reader (besides {@link #wakeForStop()}): yes for the
         * transports whose waits are interruptible; no where the wake-up alone ends the wait cleanly.
         */
        boolean interruptToStop() {
            return true;
        }

        /** Creates the transport. */
        abstract void open() throws Exception;

        /** Sends one message. */
        abstract void send(Stamp s);

        /** Reader: receives what arrived (blocking the transport's way), recording each. */
        abstract void receive() throws Exception;

        /** Makes a blocked reader return when the benchmark stops (it is interrupted too). */
        void wakeForStop() {
        }

        /** Frees the transport. */
        void close() throws Exception {
        }

        /** Waits for the next slot and sends (or, idle, just waits), then refreshes counters. */
        void step(Counters c) {
            next += period;
            long now = System.nanoTime();
            if (next - now > SPIN_NANOS) {
                LockSupport.parkNanos(next - now - SPIN_NANOS);
            }
            while ((now = System.nanoTime()) - next < 0) {
                Thread.onSpinWait();
            }
            if (now - next > period) {
                next = now; // fell behind (a GC, a descheduling): no burst to catch up
            }
            if (rate != 0) {
                Stamp s = stamps[(int) (sent++ & (RING - 1))];
                s.sentAt = System.nanoTime();
                send(s);
            }
            if ((sent & 15) == 0 || rate == 0) {
                refresh(c, now);
            }
        }

        private void refresh(Counters c, long now) {
            long cpu = THREADS.getThreadCpuTime(readerId);
            long count = record.received; // volatile read: acquires latencySum
            long sum = record.latencySum;
            if (c.wallAtStart == 0) {
                c.wallAtStart = now;
                c.cpuAtStart = cpu;
                c.sumAtStart = sum;
                c.countAtStart = count;
                return;
            }
            long wall = now - c.wallAtStart;
            if (wall > 0) {
                c.readerCpuPercent = 100.0 * (cpu - c.cpuAtStart) / wall;
            }
            long n = count - c.countAtStart;
            c.latencyNs = n == 0 ? 0 : (double) (sum - c.sumAtStart) / n;
        }
    }

    // ------------------------------------------------------------------ y-suite

    /**
     * YPipe + YSemaphore, composed as documented: the pipe's reader waits under the row's policy,
     * the semaphore keeps its default ({@code purePark()}): the reader spins once, in the pipe.
     */
    public abstract static class YPipeStream extends Stream {
        YPipe<Stamp> pipe;
        YSemaphore wake;
        /** The reader's handler, made once (a method reference per call would allocate). */
        private final Consumer<Stamp> deliver = record::receive;

        /** A new policy of the row's kind, for the pipe's reader. */
        abstract WaitPolicy policy();

        @Override
        void open() {
            pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, policy());
            wake = new YSemaphore();
        }

        @Override
        void send(Stamp s) {
            pipe.write(s);
            if (!pipe.flush()) {
                wake.signal(0);
            }
        }

        @Override
        void receive() throws InterruptedException {
            if (pipe.readBatch(deliver) == 0) {
                wake.await();
            }
        }
    }

    /** The default policy: a new one, adaptive, for the pipe's reader. */
    @State(Scope.Benchmark)
    public static class YPipeDefaultStream extends YPipeStream {
        @Override
        WaitPolicy policy() {
            return WaitPolicy.defaultPolicy();
        }
    }

    /** A fixed spin of the default's most rounds before every park, whatever the traffic. */
    @State(Scope.Benchmark)
    public static class YPipeFixedSpinStream extends YPipeStream {
        @Override
        WaitPolicy policy() {
            return WaitPolicy.spinThenPark(WaitPolicy.DEFAULT_SPINS);
        }
    }

    /**
     * YPipe + YSemaphore, default policy.
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    @Transport(label = "YPipe + YSemaphore (default policy)", kind = Transport.Kind.YSUITE)
    public void ypipeDefault(YPipeDefaultStream s, Counters c) {
        s.step(c);
    }

    /**
     * YPipe + YSemaphore, {@code spinThenPark(DEFAULT_SPINS)}: what spinning costs a sparse
     * reader that the default's adaptation saves.
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    @Transport(label = "YPipe + YSemaphore (fixed spin 200)", kind = Transport.Kind.YSUITE)
    public void ypipeFixedSpin(YPipeFixedSpinStream s, Counters c) {
        s.step(c);
    }

    // ------------------------------------------------------------------ blocking queues

    /** A blocking queue whose reader takes. */
    public abstract static class QueueStream extends Stream {
        BlockingQueue<Stamp> queue;

        @Override
        void send(Stamp s) {
            queue.offer(s);
        }

        @Override
        void receive() throws InterruptedException {
            record.receive(queue.take());
        }
    }

    /** JCTools' blocking-consumer queue. */
    @State(Scope.Benchmark)
    public static class MpscBlockingStream extends QueueStream {
        @Override
        void open() {
            queue = new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY);
        }
    }

    /** java.util.concurrent's LinkedTransferQueue. */
    @State(Scope.Benchmark)
    public static class LinkedTransferStream extends QueueStream {
        @Override
        void open() {
            queue = new LinkedTransferQueue<>();
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue, take().
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    @Transport(label = "JCTools MpscBlockingConsumerArrayQueue", kind = Transport.Kind.BLOCKING)
    public void jctoolsMpscBlocking(MpscBlockingStream s, Counters c) {
        s.step(c);
    }

    /**
     * LinkedTransferQueue, take().
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    @Transport(label = "LinkedTransferQueue", kind = Transport.Kind.BLOCKING)
    public void linkedTransferQueue(LinkedTransferStream s, Counters c) {
        s.step(c);
    }

    // ------------------------------------------------------------------ Disruptor

    /** The Disruptor with one batch event processor, run by the state's reader thread. */
    public abstract static class DisruptorStream extends Stream {
        RingBuffer<Stamp[]> ring;
        BatchEventProcessor<Stamp[]> processor;

        abstract WaitStrategy strategy();

        @Override
        void open() {
            ring = RingBuffer.createSingleProducer(() -> new Stamp[1], Msg.CAPACITY, strategy());
            processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(),
                    (event, sequence, endOfBatch) -> record.receive(event[0]));
            ring.addGatingSequences(processor.getSequence());
        }

        @Override
        void send(Stamp s) {
            long seq = ring.next();
            ring.get(seq)[0] = s;
            ring.publish(seq);
        }

        @Override
        void receive() {
            processor.run(); // returns when halted
        }

        /**
         * {@code halt()} alerts the barrier, which wakes the processor's wait and ends
         * {@code run()}. An interrupt would instead throw InterruptedException out of
         * BlockingWaitStrategy's wait into the processor's exception handler, which logs it as a
         * SEVERE failure with its stack trace.
         */
        @Override
        void wakeForStop() {
            processor.halt();
        }

        @Override
        boolean interruptToStop() {
            return false;
        }
    }

    /** BlockingWaitStrategy (a lock and a condition). */
    @State(Scope.Benchmark)
    public static class DisruptorBlockingStream extends DisruptorStream {
        @Override
        WaitStrategy strategy() {
            return new BlockingWaitStrategy();
        }
    }

    /** LiteBlockingWaitStrategy (signals only when a waiter may be asleep). */
    @State(Scope.Benchmark)
    public static class DisruptorLiteBlockingStream extends DisruptorStream {
        @Override
        @SuppressWarnings("deprecation")
        WaitStrategy strategy() {
            return new LiteBlockingWaitStrategy();
        }
    }

    /**
     * Disruptor, BlockingWaitStrategy.
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    @Transport(label = "Disruptor (BlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
    public void disruptorBlocking(DisruptorBlockingStream s, Counters c) {
        s.step(c);
    }

    /**
     * Disruptor, LiteBlockingWaitStrategy.
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    @Transport(label = "Disruptor (LiteBlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
    public void disruptorLiteBlocking(DisruptorLiteBlockingStream s, Counters c) {
        s.step(c);
    }

    // ------------------------------------------------------------------ Agrona

    /** Agrona's one-to-one queue, polled with its BackoffIdleStrategy (default parameters). */
    @State(Scope.Benchmark)
    public static class AgronaBackoffStream extends Stream {
        OneToOneConcurrentArrayQueue<Stamp> queue;
        final BackoffIdleStrategy idle = new BackoffIdleStrategy();

        @Override
        void open() {
            queue = new OneToOneConcurrentArrayQueue<>(Msg.CAPACITY);
        }

        @Override
        void send(Stamp s) {
            queue.offer(s);
        }

        @Override
        void receive() {
            Stamp s = queue.poll();
            if (s == null) {
                idle.idle();
            } else {
                idle.reset();
                record.receive(s);
            }
        }
    }

    /**
     * Agrona OneToOneConcurrentArrayQueue + BackoffIdleStrategy.
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    @Transport(label = "Agrona OneToOneConcurrentArrayQueue + BackoffIdleStrategy",
            kind = Transport.Kind.BLOCKING)
    public void agronaBackoff(AgronaBackoffStream s, Counters c) {
        s.step(c);
    }
}
