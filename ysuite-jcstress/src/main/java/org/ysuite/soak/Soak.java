package org.ysuite.soak;

import org.ysuite.OffHeapYPipe;
import org.ysuite.PollableSignaler;
import org.ysuite.Signaler;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;
import org.ysuite.YSocketPair;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * The opt-in soak: pushes many messages through each pipe type with randomized sender-side
 * batching, randomized pauses on both sides (so the reader keeps falling asleep and being woken,
 * and the off-heap writer keeps filling the ring and waiting for space), multipart messages and
 * unwrites, and checks every message: order, content, nothing lost, nothing duplicated, no
 * unwritten item delivered. A watchdog fails the run if no message moves for 30 seconds (a lost
 * wake-up leaves both sides asleep).
 *
 * <pre>
 * java -cp ysuite-jcstress/target/ysuite-jcstress.jar org.ysuite.soak.Soak \
 *     [--messages N] [--pipes ypipe-semaphore,ypipe-pollset,ypipe-socketpair,offheap,mailbox] [--seed S]
 * </pre>
 *
 * {@code N} is per pipe type (default 10^7; the full size is 10^9, {@code --messages 1e9}).
 * Exit status 0 if every run passed, 1 on any violation, 2 if a run got stuck.
 */
public final class Soak {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private Soak() {
    }

    /**
     * Runs the soak.
     *
     * @param args see the class comment
     * @throws Exception if a run cannot be started
     */
    public static void main(String[] args) throws Exception {
        long messages = 10_000_000L;
        String pipes = "ypipe-semaphore,ypipe-pollset,ypipe-socketpair,offheap,mailbox";
        long seed = System.nanoTime();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--messages": messages = (long) Double.parseDouble(args[++i]); break;
                case "--pipes": pipes = args[++i]; break;
                case "--seed": seed = Long.parseLong(args[++i]); break;
                default:
                    System.err.println("unknown argument " + args[i]);
                    System.exit(64);
            }
        }
        System.out.printf(Locale.ROOT, "ysuite soak: %,d messages per pipe type, seed %d, java %s, %d CPUs%n",
                messages, seed, Runtime.version(), Runtime.getRuntime().availableProcessors());
        int status = 0;
        for (String pipe : pipes.split(",")) {
            Run run;
            switch (pipe.trim()) {
                case "ypipe-semaphore": run = new YPipeRun(messages, seed, new YSemaphore(), "YPipe<Long> + YSemaphore"); break;
                case "ypipe-pollset": run = new YPipeRun(messages, seed, new YPollset(), "YPipe<Long> + YPollset"); break;
                case "ypipe-socketpair": run = new YPipeRun(messages, seed, new YSocketPair(), "YPipe<Long> + YSocketPair"); break;
                case "offheap": run = new OffHeapRun(messages, seed); break;
                case "mailbox": run = new MailboxRun(messages, seed); break;
                default:
                    System.err.println("unknown pipe type " + pipe);
                    System.exit(64);
                    return;
            }
            try {
                status = Math.max(status, run.execute());
            } finally {
                run.close();
            }
        }
        System.out.println(status == 0 ? "SOAK PASSED" : "SOAK FAILED");
        System.exit(status);
    }

    /** One soak run: a writer side and a reader side on their own threads, and a watchdog. */
    abstract static class Run {
        final long messages;
        final long seed;
        final String name;
        final AtomicLong delivered = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        long readerSleeps;
        long writerWaits;
        long flushes;

        Run(long messages, long seed, String name) {
            this.messages = messages;
            this.seed = seed;
            this.name = name;
        }

        abstract List<Runnable> writers();

        /** Frees what the run holds (a signaler's descriptors). */
        void close() {
        }

        abstract Runnable reader();

        int execute() throws InterruptedException {
            List<Thread> threads = new ArrayList<>();
            for (Runnable w : writers()) {
                threads.add(new Thread(guard(w), "soak-writer-" + threads.size()));
            }
            threads.add(new Thread(guard(reader()), "soak-reader"));
            long start = System.nanoTime();
            threads.forEach(Thread::start);
            long lastCount = -1;
            long lastMove = start;
            int status = 0;
            long nextReport = start + TimeUnit.SECONDS.toNanos(10);
            while (threads.stream().anyMatch(Thread::isAlive)) {
                threads.get(threads.size() - 1).join(200);
                long now = System.nanoTime();
                long count = delivered.get();
                if (count != lastCount) {
                    lastCount = count;
                    lastMove = now;
                } else if (now - lastMove > STALL_NANOS && failure.get() == null) {
                    System.out.printf("%s: STUCK at %,d of %,d messages for 30 s (lost wake-up?)%n", name, count, messages);
                    for (Thread t : threads) {
                        System.out.println("  " + t.getName() + " " + t.getState());
                        for (StackTraceElement e : t.getStackTrace()) {
                            System.out.println("      at " + e);
                        }
                    }
                    threads.forEach(Thread::interrupt);
                    status = 2;
                    break;
                }
                if (now > nextReport) {
                    System.out.printf(Locale.ROOT, "  %s: %,d messages...%n", name, count);
                    nextReport = now + TimeUnit.SECONDS.toNanos(10);
                }
                if (failure.get() != null) {
                    threads.forEach(Thread::interrupt);
                }
            }
            for (Thread t : threads) {
                t.join(5_000);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Throwable f = failure.get();
            if (f != null && status == 0) {
                status = 1;
            }
            if (status == 0 && delivered.get() != messages) {
                status = 1;
                f = new AssertionError("delivered " + delivered.get() + " of " + messages);
            }
            System.out.printf(Locale.ROOT,
                    "%-28s %s: %,d messages in %.1f s (%,.0f msgs/s), %,d flushes, %,d reader sleeps, %,d writer waits%s%n",
                    name, status == 0 ? "PASS" : "FAIL", delivered.get(), seconds, delivered.get() / seconds,
                    flushes, readerSleeps, writerWaits, f == null ? "" : ": " + f);
            if (f != null) {
                f.printStackTrace(System.out);
            }
            return status;
        }

        private Runnable guard(Runnable body) {
            return () -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            };
        }

        /**
         * A random pause: none most of the time; otherwise a spin of up to a few microseconds, and
         * rarely a short sleep of the thread. {@code oneIn} sets how often a pause happens: the
         * writer pauses more often than the reader, so the reader keeps draining the pipe and going
         * to sleep; the reader's pauses let batches (and the off-heap ring) fill up.
         */
        static void pause(SplittableRandom random, int oneIn) {
            if (random.nextInt(oneIn) != 0) {
                return;
            }
            if (random.nextInt(64) != 0) {
                for (int i = random.nextInt(1000); i > 0; i--) {
                    Thread.onSpinWait();
                }
            } else {
                LockSupport.parkNanos(random.nextInt(50_000));
            }
        }

        /** The writer's pause after a flush. */
        static void writerPause(SplittableRandom random) {
            pause(random, 8);
        }

        /** The reader's pause after a batch. */
        static void readerPause(SplittableRandom random) {
            pause(random, 32);
        }

        /** A random batch size: 1 most often, up to 1024 with a long tail. */
        static int batch(SplittableRandom random) {
            return 1 << random.nextInt(11) >>> random.nextInt(11);
        }

        static void check(boolean condition, String what) {
            if (!condition) {
                throw new AssertionError(what);
            }
        }
    }

    /** YPipe of boxed sequence numbers; the reader waits on the given signaler. */
    static final class YPipeRun extends Run {
        private final YPipe<Long> pipe = new YPipe<>();
        private final PollableSignaler signaler;
        private static final Long POISON = -1L;

        YPipeRun(long messages, long seed, PollableSignaler signaler, String name) {
            super(messages, seed, name);
            this.signaler = signaler;
        }

        @Override
        void close() {
            if (signaler instanceof AutoCloseable) {
                try {
                    ((AutoCloseable) signaler).close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        List<Runnable> writers() {
            return List.of(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                long next = 0;
                while (next < messages) {
                    int n = (int) Math.min(batch(random), messages - next);
                    for (int i = 0; i < n; i++) {
                        if (random.nextInt(64) == 0) {
                            pipe.write(POISON);
                            check(pipe.unwrite() == POISON, "unwrite did not return the last item");
                        }
                        // the last item of a batch of >= 2 is sometimes written as a two-part message
                        pipe.write(next++, i < n - 1 && random.nextInt(16) == 0);
                    }
                    flushes++;
                    if (!pipe.flush()) {
                        signaler.signal(0);
                    }
                    writerPause(random);
                }
            });
        }

        @Override
        Runnable reader() {
            return () -> {
                SplittableRandom random = new SplittableRandom(seed + 1);
                long[] expected = {0};
                IntConsumer ignore = id -> { };
                while (expected[0] < messages) {
                    int n = pipe.readBatch(v -> {
                        check(v != POISON, "an unwritten item was delivered");
                        check(v == expected[0], "expected " + expected[0] + ", got " + v);
                        expected[0]++;
                    });
                    if (n == 0) {
                        readerSleeps++;
                        try {
                            signaler.poll(ignore);
                        } catch (InterruptedException e) {
                            return;
                        }
                    } else {
                        delivered.lazySet(expected[0]);
                        readerPause(random);
                    }
                }
                delivered.set(expected[0]);
                check(pipe.read() == null, "an item after the last one");
            };
        }
    }

    /** OffHeapYPipe of variable-length records; the writer waits for space when the ring is full. */
    static final class OffHeapRun extends Run {
        private final OffHeapYPipe pipe = new OffHeapYPipe(1 << 16);
        private final YSemaphore wakeReader = new YSemaphore();

        OffHeapRun(long messages, long seed) {
            super(messages, seed, "OffHeapYPipe(64 KiB)");
        }

        static byte fill(long seq, int i) {
            return (byte) (seq * 31 + i);
        }

        @Override
        List<Runnable> writers() {
            return List.of(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                byte[] msg = new byte[2048];
                ByteBuffer view = ByteBuffer.wrap(msg);
                long next = 0;
                try {
                    while (next < messages) {
                        int n = (int) Math.min(batch(random), messages - next);
                        for (int i = 0; i < n; i++) {
                            int length = 8 + (random.nextInt(8) == 0 ? random.nextInt(2040) : random.nextInt(56));
                            view.putLong(0, next);
                            for (int j = 8; j < length; j++) {
                                msg[j] = fill(next, j);
                            }
                            while (!pipe.write(msg, 0, length, false)) {
                                flushes++;
                                if (!pipe.flush()) {
                                    wakeReader.signal(0);
                                }
                                writerWaits++;
                                pipe.awaitSpace(length);
                            }
                            next++;
                        }
                        flushes++;
                        if (!pipe.flush()) {
                            wakeReader.signal(0);
                        }
                        writerPause(random);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }

        @Override
        Runnable reader() {
            return () -> {
                SplittableRandom random = new SplittableRandom(seed + 1);
                long[] expected = {0};
                try {
                    while (expected[0] < messages) {
                        int n = pipe.readBatch((buf, off, len) -> {
                            long seq = 0;
                            for (int j = 0; j < 8; j++) {
                                seq = seq << 8 | (buf.get(off + j) & 0xFF);
                            }
                            check(seq == expected[0], "expected " + expected[0] + ", got " + seq);
                            for (int j = 8; j < len; j++) {
                                check(buf.get(off + j) == fill(seq, j), "message " + seq + " torn at byte " + j);
                            }
                            expected[0]++;
                        });
                        if (n == 0) {
                            readerSleeps++;
                            wakeReader.await();
                        } else {
                            delivered.lazySet(expected[0]);
                            readerPause(random);
                        }
                    }
                    delivered.set(expected[0]);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    // both threads are done with the ring (the writer finished before the last message)
                }
            };
        }

        @Override
        int execute() throws InterruptedException {
            try {
                return super.execute();
            } finally {
                pipe.close();
            }
        }
    }

    /** YMailbox with two writer threads; per-writer order is checked, the reader polls. */
    static final class MailboxRun extends Run {
        private final YMailbox<Long> mailbox = new YMailbox<>();
        private static final int WRITERS = 2;

        MailboxRun(long messages, long seed) {
            super(messages - messages % WRITERS, seed, "YMailbox<Long>, 2 writers");
        }

        @Override
        List<Runnable> writers() {
            List<Runnable> list = new ArrayList<>();
            for (int k = 0; k < WRITERS; k++) {
                long id = k;
                YMailbox.Writer<Long> writer = mailbox.newWriter();
                list.add(() -> {
                    SplittableRandom random = new SplittableRandom(seed + 17 * id);
                    long quota = messages / WRITERS;
                    long next = 0;
                    while (next < quota) {
                        int n = (int) Math.min(batch(random), quota - next);
                        for (int i = 0; i < n; i++) {
                            writer.write((id << 56) | next++);
                        }
                        writer.flush();
                        writerPause(random);
                    }
                });
            }
            return list;
        }

        @Override
        Runnable reader() {
            return () -> {
                SplittableRandom random = new SplittableRandom(seed + 1);
                long[] expected = new long[WRITERS];
                long[] total = {0};
                try {
                    while (total[0] < messages) {
                        int n = mailbox.poll(v -> {
                            int id = (int) (v >>> 56);
                            long seq = v & ((1L << 56) - 1);
                            check(id >= 0 && id < WRITERS, "no such writer " + id);
                            check(seq == expected[id], "writer " + id + ": expected " + expected[id] + ", got " + seq);
                            expected[id]++;
                            total[0]++;
                        });
                        check(n > 0, "poll returned " + n);
                        delivered.lazySet(total[0]);
                        readerPause(random);
                    }
                    delivered.set(total[0]);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
        }
    }
}
