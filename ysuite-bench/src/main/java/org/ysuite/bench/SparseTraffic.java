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
import java.util.function.Function;
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
 *
 * <p>One benchmark method, {@link #peer}, measures every contender: the one its state's
 * {@code peer} parameter names ({@link Peer}, the factory of the {@link Channel}s).
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

    /** One transport: the sender's half and the reader's loop. */
    interface Channel {
        /** Sends one message. */
        void send(Stamp s);

        /** Reader: receives what arrived (blocking the transport's way), recording each. */
        void receive() throws Exception;

        /** Makes a blocked reader return when the benchmark stops (it is interrupted too). */
        default void wakeForStop() {
        }

        /**
         * Whether stopping interrupts the reader (besides {@link #wakeForStop()}): yes for the
         * transports whose waits are interruptible; no where the wake-up alone ends the wait cleanly.
         */
        default boolean interruptToStop() {
            return true;
        }
    }

    /** The contenders: the constant's name is the row's name ({@code -p peer=<name>}). */
    public enum Peer {
        /** YPipe + YSemaphore, default policy: a new one, adaptive, for the pipe's reader. */
        @Transport(label = "YPipe + YSemaphore (default policy)", kind = Transport.Kind.YSUITE)
        ypipeDefault(r -> new YPipeChannel(r, WaitPolicy.defaultPolicy())),
        /**
         * YPipe + YSemaphore, {@code spinThenPark(DEFAULT_SPINS)}, a fixed spin before every park
         * whatever the traffic: what spinning costs a sparse reader that the default's adaptation saves.
         */
        @Transport(label = "YPipe + YSemaphore (fixed spin 200)", kind = Transport.Kind.YSUITE)
        ypipeFixedSpin(r -> new YPipeChannel(r, WaitPolicy.spinThenPark(WaitPolicy.DEFAULT_SPINS))),
        /** JCTools MpscBlockingConsumerArrayQueue, take(). */
        @Transport(label = "JCTools MpscBlockingConsumerArrayQueue", kind = Transport.Kind.BLOCKING)
        jctoolsMpscBlocking(r -> new QueueChannel(r, new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY))),
        /** LinkedTransferQueue, take(). */
        @Transport(label = "LinkedTransferQueue", kind = Transport.Kind.BLOCKING)
        linkedTransferQueue(r -> new QueueChannel(r, new LinkedTransferQueue<>())),
        /** Disruptor, BlockingWaitStrategy (a lock and a condition). */
        @Transport(label = "Disruptor (BlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
        disruptorBlocking(r -> new DisruptorChannel(r, new BlockingWaitStrategy())),
        /** Disruptor, LiteBlockingWaitStrategy (signals only when a waiter may be asleep). */
        @Transport(label = "Disruptor (LiteBlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
        @SuppressWarnings("deprecation")
        disruptorLiteBlocking(r -> new DisruptorChannel(r, new LiteBlockingWaitStrategy())),
        /** Agrona OneToOneConcurrentArrayQueue, polled with its BackoffIdleStrategy (default parameters). */
        @Transport(label = "Agrona OneToOneConcurrentArrayQueue + BackoffIdleStrategy", kind = Transport.Kind.BLOCKING)
        agronaBackoff(AgronaChannel::new);

        private final Function<Record, Channel> open;

        Peer(Function<Record, Channel> open) {
            this.open = open;
        }
    }

    /** The contender's channel and reader, the pacing of the sender and the measurement. */
    @State(Scope.Benchmark)
    public static class Peers {
        /** The contender (all of them unless {@code -p peer=...} says otherwise). */
        @Param
        public Peer peer;
        /** Messages per second; {@code 0}: none (an idle reader). */
        @Param({"0", "10000", "100000"})
        public int rate;

        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        private static final int RING = 4096;
        private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(60);

        final Record record = new Record();
        private final Stamp[] stamps = new Stamp[RING];
        private Channel channel;
        private long period;
        private long next;
        private long sent;
        private Partner reader;
        private long readerId;

        /** Opens the contender's channel and starts the reader. */
        @Setup(Level.Trial)
        public void setup() {
            for (int i = 0; i < RING; i++) {
                stamps[i] = new Stamp();
            }
            period = rate == 0 ? TimeUnit.MILLISECONDS.toNanos(1) : 1_000_000_000L / rate;
            channel = peer.open.apply(record);
            reader = Partner.start("sparse-reader", channel::receive);
            readerId = reader.threadId();
            next = System.nanoTime();
        }

        /**
         * Stops the reader.
         *
         * @throws Exception if it does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            if (channel.interruptToStop()) {
                reader.stop(channel::wakeForStop);
            } else {
                reader.stopWithoutInterrupt(channel::wakeForStop);
            }
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
                channel.send(s);
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

    /**
     * The contender its state holds, at its state's rate.
     *
     * @param s state
     * @param c counters
     */
    @Benchmark
    public void peer(Peers s, Counters c) {
        s.step(c);
    }

    /**
     * YPipe + YSemaphore, composed as documented: the pipe's reader waits under the row's policy,
     * the semaphore keeps its default ({@code purePark()}): the reader spins once, in the pipe.
     */
    static final class YPipeChannel implements Channel {
        private final YPipe<Stamp> pipe;
        private final YSemaphore wake = new YSemaphore();
        /** The reader's handler, made once (a method reference per call would allocate). */
        private final Consumer<Stamp> deliver;

        YPipeChannel(Record record, WaitPolicy policy) {
            pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, policy);
            deliver = record::receive;
        }

        @Override
        public void send(Stamp s) {
            pipe.write(s);
            if (!pipe.flush()) {
                wake.signal(0);
            }
        }

        @Override
        public void receive() throws InterruptedException {
            if (pipe.readBatch(deliver) == 0) {
                wake.await();
            }
        }
    }

    /** A blocking queue whose reader takes. */
    static final class QueueChannel implements Channel {
        private final Record record;
        private final BlockingQueue<Stamp> queue;

        QueueChannel(Record record, BlockingQueue<Stamp> queue) {
            this.record = record;
            this.queue = queue;
        }

        @Override
        public void send(Stamp s) {
            queue.offer(s);
        }

        @Override
        public void receive() throws InterruptedException {
            record.receive(queue.take());
        }
    }

    /** The Disruptor with one batch event processor, run by the state's reader thread. */
    static final class DisruptorChannel implements Channel {
        private final RingBuffer<Stamp[]> ring;
        private final BatchEventProcessor<Stamp[]> processor;

        DisruptorChannel(Record record, WaitStrategy strategy) {
            ring = RingBuffer.createSingleProducer(() -> new Stamp[1], Msg.CAPACITY, strategy);
            processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(),
                    (event, sequence, endOfBatch) -> record.receive(event[0]));
            ring.addGatingSequences(processor.getSequence());
        }

        @Override
        public void send(Stamp s) {
            long seq = ring.next();
            ring.get(seq)[0] = s;
            ring.publish(seq);
        }

        @Override
        public void receive() {
            processor.run(); // returns when halted
        }

        /**
         * {@code halt()} alerts the barrier, which wakes the processor's wait and ends
         * {@code run()}. An interrupt would instead throw InterruptedException out of
         * BlockingWaitStrategy's wait into the processor's exception handler, which logs it as a
         * SEVERE failure with its stack trace.
         */
        @Override
        public void wakeForStop() {
            processor.halt();
        }

        @Override
        public boolean interruptToStop() {
            return false;
        }
    }

    /** Agrona's one-to-one queue, polled with its BackoffIdleStrategy (default parameters). */
    static final class AgronaChannel implements Channel {
        private final Record record;
        private final OneToOneConcurrentArrayQueue<Stamp> queue = new OneToOneConcurrentArrayQueue<>(Msg.CAPACITY);
        private final BackoffIdleStrategy idle = new BackoffIdleStrategy();

        AgronaChannel(Record record) {
            this.record = record;
        }

        @Override
        public void send(Stamp s) {
            queue.offer(s);
        }

        @Override
        public void receive() {
            Stamp s = queue.poll();
            if (s == null) {
                idle.idle();
            } else {
                idle.reset();
                record.receive(s);
            }
        }
    }
}
