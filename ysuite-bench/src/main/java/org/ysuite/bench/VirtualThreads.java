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
import org.openjdk.jmh.annotations.Param;
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
 * Each part is one benchmark method over its contenders ({@link Peer}, chosen by the state's
 * {@code peer} parameter): {@link #worst}, {@link #stream} and {@link #fanIn}.
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

    /** The contenders; the constant's name is the row's name ({@code -p peer=<name>}). */
    public enum Peer {
        /** ysuite: YPipe + YSemaphore each way, the echo in a virtual thread. */
        @Transport(label = "YPipe (virtual reader)", kind = Transport.Kind.YSUITE)
        worstYPipe,
        /** JCTools MpscBlockingConsumerArrayQueue put/take, the echo in a virtual thread. */
        @Transport(label = "MpscBlockingConsumerArrayQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
        worstMpscBlocking,
        /** LinkedTransferQueue put/take, the echo in a virtual thread. */
        @Transport(label = "LinkedTransferQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
        worstLinkedTransferQueue,
        /** ysuite: one message written and flushed per invocation (signal if the reader slept). */
        @Transport(label = "YPipe (virtual reader)", kind = Transport.Kind.YSUITE)
        streamYPipe,
        /** JCTools MpscBlockingConsumerArrayQueue: one offer per invocation, yielding while full. */
        @Transport(label = "MpscBlockingConsumerArrayQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
        streamMpscBlocking,
        /** LinkedTransferQueue: one put per invocation, held to the window. */
        @Transport(label = "LinkedTransferQueue (virtual reader)", kind = Transport.Kind.BLOCKING)
        streamLinkedTransferQueue,
        /** ysuite: 1000 virtual writers into one YMailbox; the reader polls. */
        @Transport(label = "YMailbox (1000 virtual writers)", kind = Transport.Kind.YSUITE)
        fanInMailbox,
        /** JCTools MpscBlockingConsumerArrayQueue: 1000 virtual writers; the reader takes, then drains. */
        @Transport(label = "MpscBlockingConsumerArrayQueue (1000 virtual writers)", kind = Transport.Kind.BLOCKING)
        fanInMpscBlocking;
    }

    // ---------------------------------------------------------------------------------------
    // Worst case: ping-pong, the echo reader in a virtual thread
    // ---------------------------------------------------------------------------------------

    /** The worst-case contender: {@link WorstCase}'s queue pairs, or a YPipe pair, the echo virtual. */
    @State(Scope.Benchmark)
    public static class Worst {
        /** The contender. */
        @Param({"worstYPipe", "worstMpscBlocking", "worstLinkedTransferQueue"})
        public Peer peer;

        WorstCase.Ping ping;

        /**
         * Starts the echo.
         *
         * @throws Exception if it cannot be set up
         */
        @Setup(Level.Trial)
        public void setup() throws Exception {
            switch (peer) {
                case worstYPipe:
                    ping = new YPipePing();
                    break;
                case worstMpscBlocking:
                    ping = WorstCase.Peer.jctoolsMpscBlocking.open(true);
                    break;
                case worstLinkedTransferQueue:
                    ping = WorstCase.Peer.linkedTransferQueue.open(true);
                    break;
                default:
                    throw new IllegalArgumentException("peer " + peer + " is no worst-case contender");
            }
        }

        /**
         * Stops the echo (the interrupt ends its wait).
         *
         * @throws Exception if it does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            ping.close();
        }
    }

    /** YPipe each way, woken by a YSemaphore each side, the echo in a virtual thread. */
    static final class YPipePing implements WorstCase.Ping {
        private final YPipe<Long> ping = new YPipe<>();
        private final YPipe<Long> pong = new YPipe<>();
        private final YSemaphore echoWake = new YSemaphore();
        private final YSemaphore mainWake = new YSemaphore();
        private final Partner echo = Partner.startVirtual("ypipe-echo", () -> {
            Long m;
            while ((m = ping.read()) == null) {
                echoWake.await();
            }
            pong.write(m);
            if (!pong.flush()) {
                mainWake.signal(0);
            }
        });

        @Override
        public long pingPong() throws InterruptedException {
            ping.write(Msg.MESSAGE);
            if (!ping.flush()) {
                echoWake.signal(0);
            }
            Long m;
            while ((m = pong.read()) == null) {
                mainWake.await();
            }
            return m;
        }

        @Override
        public void close() throws InterruptedException {
            echo.stop(null);
        }
    }

    /**
     * One round trip with the echo in a virtual thread.
     *
     * @param s state
     * @return the echoed message
     * @throws Exception if interrupted
     */
    @Benchmark
    @OperationsPerInvocation(2)
    public long worst(Worst s) throws Exception {
        return s.ping.pingPong();
    }

    // ---------------------------------------------------------------------------------------
    // Flush per message: the reader in a virtual thread
    // ---------------------------------------------------------------------------------------

    /** The streaming contender: {@link Throughput}'s queue streams, or a YPipe, the reader virtual. */
    @State(Scope.Benchmark)
    public static class Stream {
        /** The contender. */
        @Param({"streamYPipe", "streamMpscBlocking", "streamLinkedTransferQueue"})
        public Peer peer;

        ThroughputPeers.Sender sender;

        /**
         * Starts the reader.
         *
         * @throws Exception if it cannot be set up
         */
        @Setup(Level.Trial)
        public void setup() throws Exception {
            switch (peer) {
                case streamYPipe:
                    sender = new YPipeStream();
                    break;
                case streamMpscBlocking:
                    sender = ThroughputPeers.Peer.jctoolsMpscBlocking.open(true);
                    break;
                case streamLinkedTransferQueue:
                    sender = ThroughputPeers.Peer.linkedTransferQueue.open(true);
                    break;
                default:
                    throw new IllegalArgumentException("peer " + peer + " is no streaming contender");
            }
        }

        /**
         * Stops the reader.
         *
         * @throws Exception if it does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            sender.close();
        }
    }

    /** YPipe + YSemaphore, held to a window; the reader drains in batches. */
    static final class YPipeStream implements ThroughputPeers.Sender {
        private final YPipe<Long> pipe = new YPipe<>();
        private final YSemaphore wake = new YSemaphore();
        private final Window window = new Window(Msg.WINDOW);
        private final Partner reader;

        YPipeStream() {
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

        @Override
        public void send() {
            window.beforeSend(1);
            pipe.write(Msg.MESSAGE);
            if (!pipe.flush()) {
                wake.signal(0);
            }
        }

        @Override
        public void close() throws InterruptedException {
            reader.stop(null);
        }
    }

    /**
     * One message sent and flushed to a reader in a virtual thread.
     *
     * @param s state
     * @throws Exception if interrupted
     */
    @Benchmark
    public void stream(Stream s) throws Exception {
        s.sender.send();
    }

    // ---------------------------------------------------------------------------------------
    // Fan-in: 1000 virtual-thread writers, one reader (the JMH thread)
    // ---------------------------------------------------------------------------------------

    /** The fan-in contender: its writers, their shared credits and the reader's running count. */
    @State(Scope.Benchmark)
    public static class FanIn {
        /** The contender. */
        @Param({"fanInMailbox", "fanInMpscBlocking"})
        public Peer peer;

        final Semaphore credits = new Semaphore(FAN_IN_WINDOW);
        final List<Partner> writers = new ArrayList<>(FAN_IN_WRITERS);
        /** Reader only: messages taken so far, and how many of them were credited back. */
        long taken;
        long returned;
        long target;
        final Consumer<Long> count = m -> taken++;
        YMailbox<Long> mailbox;
        MpscBlockingConsumerArrayQueue<Long> queue;

        /** Starts the writers. */
        @Setup(Level.Trial)
        public void setup() {
            if (peer == Peer.fanInMailbox) {
                mailbox = new YMailbox<>(); // one YSemaphore-woken mailbox; each writer has its own pipe
            } else {
                queue = new MpscBlockingConsumerArrayQueue<>(2 * FAN_IN_WINDOW); // an offer with credit fits
            }
            for (int i = 0; i < FAN_IN_WRITERS; i++) {
                Partner.Step step;
                if (mailbox != null) {
                    YMailbox.Writer<Long> w = mailbox.newWriter();
                    step = () -> {
                        credits.acquire();
                        w.send(Msg.MESSAGE);
                    };
                } else {
                    step = () -> {
                        credits.acquire();
                        if (!queue.offer(Msg.MESSAGE)) {
                            throw new IllegalStateException("queue full although the writer held a credit");
                        }
                    };
                }
                writers.add(Partner.startVirtual("fan-in-writer-" + i, step));
            }
        }

        /** Reader: takes until it has {@value #BATCH} more messages, handing their credits back. */
        long take() throws InterruptedException {
            target += BATCH;
            while (taken < target) {
                if (mailbox != null) {
                    mailbox.poll(count);
                } else {
                    queue.take();
                    taken++;
                    queue.drain(count::accept);
                }
                int n = (int) (taken - returned);
                if (n > 0) {
                    returned = taken;
                    credits.release(n);
                }
            }
            return taken;
        }

        /**
         * Stops the writers: the reader has stopped taking, each ends in credits.acquire(), interrupted.
         *
         * @throws InterruptedException if interrupted while waiting for them
         */
        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            for (Partner w : writers) {
                w.stop(null);
            }
            if (mailbox != null) {
                mailbox.close();
            }
        }
    }

    /**
     * {@value #FAN_IN_WRITERS} virtual writers into one reader, which takes {@value #BATCH} more
     * messages per invocation.
     *
     * @param s state
     * @return messages taken so far
     * @throws InterruptedException if interrupted
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long fanIn(FanIn s) throws InterruptedException {
        return s.take();
    }
}
