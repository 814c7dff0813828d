package org.ysuite.bench.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.shared.SharedPipeReader;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;

/**
 * One thread writes a message, flushes it and reads it back: each transport's path on one core,
 * atomics included, with none of the cache-line transfers and wake-ups of two threads (which
 * dominate {@code Throughput} and make it too noisy to show a change of a few instructions). It
 * is the row that shows what a change to the hot path costs, such as the observability counters
 * ({@code docs/performance.md}, "Observability"); {@link InstructionProfile} runs the same
 * {@link Step}s under callgrind.
 *
 * <p>Transports: {@code ypipe}, {@code ypipe-asleep} (the reader finds the pipe empty each time
 * and sleeps; the flush finds it asleep and signals a {@link YSemaphore}, whose signal the reader
 * then takes without parking: the wake-up path, less the park), {@code mailbox},
 * {@code offheap} (8-byte messages), {@code shared} (a {@link SharedYPipe} under
 * {@code /dev/shm}, both sides in this thread; 8-byte messages), {@code jctools} (the reference:
 * JCTools' {@code offer} and {@code drain}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OneThread {

    /** The transport (see the class). */
    @Param({"ypipe", "ypipe-asleep", "mailbox", "offheap", "shared", "jctools"})
    public String transport;

    private Step step;

    /** One message through a transport, on one thread. */
    public interface Step extends AutoCloseable {
        /**
         * Writes one message, flushes it and reads it back.
         *
         * @return what the reader saw (a sum, so that nothing is dead code)
         */
        long once();

        @Override
        void close() throws IOException;
    }

    /**
     * Opens the transport.
     *
     * @throws IOException if the shared pipe's file cannot be made
     */
    @Setup
    public void open() throws IOException {
        step = step(transport);
    }

    /**
     * Closes the transport.
     *
     * @throws IOException if the shared pipe's file cannot be removed
     */
    @TearDown
    public void close() throws IOException {
        step.close();
    }

    /**
     * One message.
     *
     * @return what the reader saw
     */
    @Benchmark
    public long message() {
        return step.once();
    }

    /**
     * A transport's step.
     *
     * @param transport one of the class's transports
     * @return the step, open; the caller closes it
     * @throws IOException if the shared pipe's file cannot be made
     */
    public static Step step(String transport) throws IOException {
        switch (transport) {
            case "ypipe": return new YPipeStep();
            case "ypipe-asleep": return new AsleepStep();
            case "mailbox": return new MailboxStep();
            case "offheap": return new OffHeapStep();
            case "shared": return new SharedStep();
            case "jctools": return new JctoolsStep();
            default: throw new IllegalArgumentException("unknown transport: " + transport);
        }
    }

    /** Sums what a reader sees. */
    private abstract static class Sum implements Consumer<Long>, MessagePassingQueue.Consumer<Long>, MessageHandler {
        long sum;

        @Override
        public void accept(Long v) {
            sum += v;
        }

        @Override
        public void onMessage(java.nio.ByteBuffer buffer, int offset, int length) {
            sum += buffer.getLong(offset);
        }
    }

    private static final Long MSG = 42L;

    private static final class YPipeStep extends Sum implements Step {
        private final YPipe<Long> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());

        @Override
        public long once() {
            pipe.write(MSG);
            pipe.flush();
            pipe.readBatch(this); // finds the item: no sleep
            return sum;
        }

        @Override
        public void close() {
        }
    }

    private static final class AsleepStep extends Sum implements Step {
        private final YPipe<Long> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());
        private final YSemaphore wake = new YSemaphore(WaitPolicy.purePark());

        @Override
        public long once() {
            pipe.readBatch(this); // empty: swaps in ASLEEP
            pipe.write(MSG);
            if (!pipe.flush()) {
                wake.signal(0);
            }
            try {
                wake.await(); // the signal is there: taken without parking
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            pipe.readBatch(this);
            return sum;
        }

        @Override
        public void close() {
        }
    }

    private static final class MailboxStep extends Sum implements Step {
        private final YMailbox<Long> mailbox = new YMailbox<>(new YPollset(), WaitPolicy.purePark());
        private final YMailbox.Writer<Long> writer = mailbox.newWriter();

        @Override
        public long once() {
            writer.send(MSG);
            mailbox.check(this);
            return sum;
        }

        @Override
        public void close() {
            mailbox.close();
        }
    }

    private static final class OffHeapStep extends Sum implements Step {
        private final OffHeapYPipe pipe = new OffHeapYPipe(64 * 1024);
        private final byte[] payload = new byte[8];

        @Override
        public long once() {
            pipe.write(payload);
            pipe.flush();
            pipe.readBatch(this);
            return sum;
        }

        @Override
        public void close() {
            pipe.close();
        }
    }

    private static final class SharedStep extends Sum implements Step {
        private final Path dir = Files.createTempDirectory(Path.of("/dev/shm"), "ysuite-one-thread");
        private final Path file = dir.resolve("pipe");
        private final SharedPipeWriter writer = SharedYPipe.createWriter(file, 64 * 1024);
        private final SharedPipeReader reader = SharedYPipe.openReader(file);
        private final byte[] payload = new byte[8];

        SharedStep() throws IOException {
        }

        @Override
        public long once() {
            writer.write(payload);
            writer.flush();
            reader.readBatch(this);
            return sum;
        }

        @Override
        public void close() throws IOException {
            reader.close();
            writer.close();
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    private static final class JctoolsStep extends Sum implements Step {
        private final MpscBlockingConsumerArrayQueue<Long> q = new MpscBlockingConsumerArrayQueue<>(4096);

        @Override
        public long once() {
            q.offer(MSG);
            q.drain(this);
            return sum;
        }

        @Override
        public void close() {
        }
    }
}
