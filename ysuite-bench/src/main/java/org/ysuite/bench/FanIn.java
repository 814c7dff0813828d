package org.ysuite.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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
import org.ysuite.YMailbox;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Window;

/**
 * Maximal throughput with two writers: two JMH threads (one group of two) each send one message
 * per operation, flushing it; one reader thread drains everything in batches and sleeps when it
 * finds nothing. ysuite's {@link YMailbox} (a pipe per writer) against JCTools'
 * {@code MpscBlockingConsumerArrayQueue} shared by the same two writers.
 *
 * <p>The score is JMH's average time per operation <em>of one writer</em> (JMH averages the
 * threads' own averages), so the two rows compare directly; the time per message of the pair
 * is half of it. On a 2-core machine the reader and the two writers share the cores: the rows
 * measure the hand-off under contention, not scaling.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class FanIn {

    /** Messages carry their writer's index (cached boxes: no allocation). */
    private static final Long[] FROM = {0L, 1L};

    /** A YMailbox with one reader; each writer thread registers its own writer. */
    @State(Scope.Group)
    public static class MailboxFanIn {
        final AtomicInteger joined = new AtomicInteger();
        final Window[] windows = {new Window(Msg.WINDOW), new Window(Msg.WINDOW)};
        YMailbox<Long> mailbox;
        Partner consumer;

        @Setup(Level.Trial)
        public void setup() {
            mailbox = new YMailbox<>();
            Window[] w = windows;
            // Per message, the reader credits the window of the writer that sent it.
            consumer = Partner.start("mailbox-reader",
                    () -> mailbox.poll(m -> w[(int) (long) m].consumed(1)));
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /** One writer thread's own mailbox writer and window. */
    @State(Scope.Thread)
    public static class MailboxWriter {
        YMailbox.Writer<Long> writer;
        Window window;
        Long message;

        @Setup(Level.Trial)
        public void setup(MailboxFanIn box) {
            int index = box.joined.getAndIncrement();
            if (index >= FROM.length) {
                throw new IllegalStateException("FanIn runs with exactly 2 writer threads");
            }
            writer = box.mailbox.newWriter();
            window = box.windows[index];
            message = FROM[index];
        }
    }

    /**
     * YMailbox, two writers: send (write + flush, signalling only a sleeping reader).
     *
     * @param w this thread's writer
     */
    @Benchmark
    @Group("ymailbox2")
    @GroupThreads(2)
    @Transport(label = "YMailbox (2 writers)", kind = Transport.Kind.YSUITE)
    public void ymailbox2(MailboxWriter w) {
        w.window.beforeSend(1);
        w.writer.send(w.message);
    }

    /** JCTools' queue shared by the two writers; the reader drains, then takes when empty. */
    @State(Scope.Group)
    public static class MpscFanIn {
        MpscBlockingConsumerArrayQueue<Long> queue;
        Partner consumer;
        long received;

        @Setup(Level.Trial)
        public void setup() {
            queue = new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY);
            consumer = Partner.start("mpsc-reader", () -> {
                if (queue.drain(m -> received++) == 0) {
                    queue.take();
                    received++;
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            consumer.stop(null);
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue, two writers: offer, yielding while the queue is full
     * (its producers cannot block).
     *
     * @param s state
     */
    @Benchmark
    @Group("jctoolsMpscBlocking2")
    @GroupThreads(2)
    @Transport(label = "JCTools MpscBlockingConsumerArrayQueue (2 writers)", kind = Transport.Kind.BLOCKING)
    public void jctoolsMpscBlocking2(MpscFanIn s) {
        while (!s.queue.offer(Msg.MESSAGE)) {
            Thread.yield();
        }
    }
}
