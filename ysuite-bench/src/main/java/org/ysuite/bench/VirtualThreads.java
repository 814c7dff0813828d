package org.ysuite.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YSemaphore;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Window;

/**
 * Readers and writers in virtual threads (JDK 21+; compiled for release 17, so virtual threads
 * are made through a method handle to {@code Thread.ofVirtual()}, and every benchmark fails at
 * setup with a clear message on an older JDK).
 *
 * <ul>
 *   <li>{@code worst*}: one message bounced between the JMH (platform) thread and an echo reader
 *       in a virtual thread, each side asleep when the message comes; ns per one-way message.</li>
 *   <li>{@code stream*}: the JMH thread sends one message per invocation, flushed at once, to a
 *       reader in a virtual thread; ns per message. Unbounded transports are held to a
 *       {@link Window} of {@value Msg#WINDOW} messages, the array queue has {@value Msg#CAPACITY}
 *       slots.</li>
 *   <li>{@code fanIn*}: {@value #FAN_IN_WRITERS} virtual-thread writers, each sending to one
 *       reader (the JMH thread); the writers together may be {@value #FAN_IN_WINDOW} messages
 *       ahead of it (a {@link Semaphore} of credits, the same for both transports); ns per
 *       message, {@value #BATCH} messages per invocation.</li>
 * </ul>
 * ysuite's waits park (they unmount the virtual thread); by default a virtual thread does not
 * spin before parking ({@code WaitPolicy.virtualThreadSpins()}), which the system property
 * {@code org.ysuite.virtualThreadSpins} changes (pass it with {@code -jvmArgsAppend}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class VirtualThreads {

    /** Writers of the fan-in benchmarks. */
    public static final int FAN_IN_WRITERS = 1000;
    /** Credits shared by the fan-in writers. */
    public static final int FAN_IN_WINDOW = 16 * 1024;
    /** Messages the fan-in reader takes per invocation. */
    public static final int BATCH = 256;

    // ---------------------------------------------------------------------------------------
    // Worst case: ping-pong, the echo reader in a virtual thread
    // ---------------------------------------------------------------------------------------

    /** YPipe each way, woken by a YSemaphore each side. */
    @State(Scope.Benchmark)
    public static class YPipePing {
        final YPipe<Long> ping = new YPipe<>();
        final YPipe<Long> pong = new YPipe<>();
        final YSemaphore echoWake = new YSemaphore();
        final YSemaphore mainWake = new YSemaphore();
        Partner echo;

        @Setup(Level.Trial)
        public void setup() {
            echo = Partner.startVirtual("ypipe-echo", () -> {
                Long m;
                while ((m = ping.read()) == null) {
                    echoWake.await();
                }
                pong.write(m);
                if (!pong.flush()) {
                    mainWake.signal(0);
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            echo.stop(null); // the interrupt ends its await
        }
    }

    /**
     * ysuite: YPipe + YSemaphore, the echo in a virtual thread.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if interrupted
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "YPipe (virtual reader)", kind = Transport.Kind.YSUITE)
    public Long worstYPipe(YPipePing s) throws InterruptedException {
        s.ping.write(Msg.MESSAGE);
        if (!s.ping.flush()) {
            s.echoWake.signal(0);
        }
        Long m;
        while ((m = s.pong.read()) == null) {
            s.mainWake.await();
        }
        return m;
    }

    /** JCTools MpscBlockingConsumerArrayQueue each way, the echo in a virtual thread. */
    @State(Scope.Benchmark)
    public static class MpscBlockingPing extends WorstCase.MpscBlockingPing {
        @Override
        Partner startEcho(Partner.Step step) {
            return Partner.startVirtual("queue-echo", step);
        }
    }

    /** java.util.concurrent.LinkedTransferQueue each way, the echo in a virtual thread. */
    @State(Scope.Benchmark)
    public static class LinkedTransferQueuePing extends WorstCase.LinkedTransferQueuePing {
        @Override
        Partner startEcho(Partner.Step step) {
            return Partner.startVirtual("queue-echo", step);
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue put/take, the echo in a virtual thread.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if interrupted
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "MpscBlockingConsumerArrayQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
    public Long worstMpscBlocking(MpscBlockingPing s) throws InterruptedException {
        s.ping.put(Msg.MESSAGE);
        return s.pong.take();
    }

    /**
     * LinkedTransferQueue put/take, the echo in a virtual thread.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if interrupted
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "LinkedTransferQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
    public Long worstLinkedTransferQueue(LinkedTransferQueuePing s) throws InterruptedException {
        s.ping.put(Msg.MESSAGE);
        return s.pong.take();
    }

    // ---------------------------------------------------------------------------------------
    // Flush per message: the reader in a virtual thread
    // ---------------------------------------------------------------------------------------

    /** YPipe + YSemaphore, held to a window; the reader drains in batches. */
    @State(Scope.Benchmark)
    public static class YPipeStream {
        final YPipe<Long> pipe = new YPipe<>();
        final YSemaphore wake = new YSemaphore();
        final Window window = new Window(Msg.WINDOW);
        Partner reader;

        @Setup(Level.Trial)
        public void setup() {
            int[] n = new int[1];
            Consumer<Long> count = m -> n[0]++;
            reader = Partner.startVirtual("ypipe-reader", () -> {
                n[0] = 0;
                if (pipe.readBatch(count) == 0) {
                    wake.await();
                    return;
                }
                window.consumed(n[0]);
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            reader.stop(null);
        }
    }

    /**
     * ysuite: one message written and flushed per invocation (signal if the reader slept).
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "YPipe (virtual reader)", kind = Transport.Kind.YSUITE)
    public void streamYPipe(YPipeStream s) {
        s.window.beforeSend(1);
        s.pipe.write(Msg.MESSAGE);
        if (!s.pipe.flush()) {
            s.wake.signal(0);
        }
    }

    /** Throughput's JCTools stream (bounded by its capacity), the reader in a virtual thread. */
    @State(Scope.Benchmark)
    public static class MpscBlockingStream extends ThroughputPeers.MpscBlockingStream {
        @Override
        Partner startReader(String name, Partner.Step step) {
            return Partner.startVirtual(name, step);
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue: one offer per invocation (its {@code put} throws
     * {@link UnsupportedOperationException}: producers cannot block), yielding while full.
     *
     * @param s state
     */
    @Benchmark
    @Transport(label = "MpscBlockingConsumerArrayQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
    public void streamMpscBlocking(MpscBlockingStream s) {
        while (!s.queue.offer(Msg.MESSAGE)) {
            Thread.yield();
        }
    }

    /** Throughput's LinkedTransferQueue stream (held to a window), the reader in a virtual thread. */
    @State(Scope.Benchmark)
    public static class LinkedTransferQueueStream extends ThroughputPeers.LinkedTransferQueueStream {
        @Override
        Partner startReader(String name, Partner.Step step) {
            return Partner.startVirtual(name, step);
        }
    }

    /**
     * LinkedTransferQueue: one put per invocation.
     *
     * @param s state
     * @throws InterruptedException if interrupted
     */
    @Benchmark
    @Transport(label = "LinkedTransferQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
    public void streamLinkedTransferQueue(LinkedTransferQueueStream s) throws InterruptedException {
        s.window.beforeSend(1);
        s.queue.put(Msg.MESSAGE);
    }

    // ---------------------------------------------------------------------------------------
    // Fan-in: 1000 virtual-thread writers, one reader (the JMH thread)
    // ---------------------------------------------------------------------------------------

    /** The writers, their shared credits and the reader's running count. */
    public abstract static class FanIn {
        final Semaphore credits = new Semaphore(FAN_IN_WINDOW);
        final List<Partner> writers = new ArrayList<>(FAN_IN_WRITERS);
        /** Reader only: messages taken so far, and how many of them were credited back. */
        long taken;
        long returned;
        long target;
        final Consumer<Long> count = m -> taken++;

        /** Sends one message from a writer thread (made per writer). */
        abstract Partner.Step newWriterStep();

        @Setup(Level.Trial)
        public void setup() {
            for (int i = 0; i < FAN_IN_WRITERS; i++) {
                writers.add(Partner.startVirtual("fan-in-writer-" + i, newWriterStep()));
            }
        }

        /** Reader: hands taken messages' credits back to the writers, in batches. */
        void returnCredits() {
            int n = (int) (taken - returned);
            if (n > 0) {
                returned = taken;
                credits.release(n);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            // The reader has stopped taking: each writer ends in credits.acquire(), interrupted.
            for (Partner w : writers) {
                w.stop(null);
            }
            closeTransport();
        }

        abstract void closeTransport();
    }

    /** One YMailbox (YSemaphore-woken); each writer has its own pipe. */
    @State(Scope.Benchmark)
    public static class MailboxFanIn extends FanIn {
        final YMailbox<Long> mailbox = new YMailbox<>();

        @Override
        Partner.Step newWriterStep() {
            YMailbox.Writer<Long> w = mailbox.newWriter();
            return () -> {
                credits.acquire();
                w.send(Msg.MESSAGE);
            };
        }

        @Override
        void closeTransport() {
            mailbox.close();
        }
    }

    /** One JCTools MpscBlockingConsumerArrayQueue, large enough that an offer with credit fits. */
    @State(Scope.Benchmark)
    public static class MpscFanIn extends FanIn {
        final MpscBlockingConsumerArrayQueue<Long> queue =
                new MpscBlockingConsumerArrayQueue<>(2 * FAN_IN_WINDOW);

        @Override
        Partner.Step newWriterStep() {
            return () -> {
                credits.acquire();
                if (!queue.offer(Msg.MESSAGE)) {
                    throw new IllegalStateException("queue full although the writer held a credit");
                }
            };
        }

        @Override
        void closeTransport() {
        }
    }

    /**
     * ysuite: 1000 virtual writers into one YMailbox; the reader polls until it has taken
     * {@value #BATCH} more messages.
     *
     * @param s state
     * @return messages taken so far
     * @throws InterruptedException if interrupted
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    @Transport(label = "YMailbox (1000 virtual writers)", kind = Transport.Kind.YSUITE)
    public long fanInMailbox(MailboxFanIn s) throws InterruptedException {
        s.target += BATCH;
        while (s.taken < s.target) {
            s.mailbox.poll(s.count);
            s.returnCredits();
        }
        return s.taken;
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue: 1000 virtual writers; the reader takes, then
     * drains, until it has taken {@value #BATCH} more messages.
     *
     * @param s state
     * @return messages taken so far
     * @throws InterruptedException if interrupted
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    @Transport(label = "MpscBlockingConsumerArrayQueue (1000 virtual writers)", kind = Transport.Kind.BLOCKING)
    public long fanInMpscBlocking(MpscFanIn s) throws InterruptedException {
        s.target += BATCH;
        while (s.taken < s.target) {
            s.queue.take();
            s.taken++;
            s.queue.drain(s.count::accept);
            s.returnCredits();
        }
        return s.taken;
    }
}
