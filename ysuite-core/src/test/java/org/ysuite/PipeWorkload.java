package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The one checking workload behind {@link PipeStressTest} (millions of messages per pipe, in every build)
 * and {@link SoakTest} (10^9, opt-in: {@code mvn -pl ysuite-core verify -Psoak}): writers and one
 * reader on real threads, random sender batches, multipart messages, unwrites and pauses. Every
 * message must arrive once, in order, intact.
 *
 * <p>Two ways to fail besides a wrong message: a reader wait that outlives {@link #WAIT_SECONDS}
 * (a lost wake-up), and no message delivered for {@link #WAIT_SECONDS} (the run is stuck; the
 * threads' stacks are printed).
 */
final class PipeWorkload {

    static final int WAIT_SECONDS = 30;

    final String name;
    final long messages;
    /** Messages the reader has checked so far: the stall watchdog and the progress lines read it. */
    final AtomicLong delivered = new AtomicLong();
    private final List<Runnable> writers = new ArrayList<>();
    private Runnable reader;

    private PipeWorkload(String name, long messages) {
        this.name = name;
        this.messages = messages;
    }

    // ---------------------------------------------------------------------------- random choices

    /** A 64-bit mix of the sequence number: every random choice the reader must check. */
    static long mix(long seq) {
        long z = seq * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Message {@code seq} is a part followed by more parts (one in eight; never the last). */
    static boolean incomplete(long seq, long total) {
        return seq != total - 1 && (mix(seq) >>> 61) == 0;
    }

    /** The writer's random pause: occasionally lets the reader run dry and go to sleep. */
    static void maybePause(SplittableRandom rnd) {
        int dice = rnd.nextInt(4096);
        if (dice == 0) {
            LockSupport.parkNanos(rnd.nextInt(200_000)); // a pause, not synchronisation
        } else if (dice < 8) {
            Thread.yield();
        }
    }

    static int batchSize(SplittableRandom rnd) {
        return rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(256) : 1 + rnd.nextInt(4);
    }

    /** The reader's wait: a wait that outlives {@link #WAIT_SECONDS} is a lost wake-up. */
    static void await(PollableSignaler signaler, String what) {
        try {
            if (signaler.poll(id -> { }, WAIT_SECONDS, TimeUnit.SECONDS) == 0) {
                fail("lost wake-up: no signal for " + WAIT_SECONDS + " s while " + what);
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The reader's step after a read of {@code got} messages, {@code expected} the next sequence
     * number: publishes progress; on an empty pipe checks that no part of a multipart message was
     * visible alone, then waits for the writer's signal.
     */
    private void afterRead(int got, long expected, PollableSignaler wakeReader) {
        delivered.lazySet(expected); // progress for the stall watchdog
        if (got == 0) {
            assertFalse(expected > 0 && incomplete(expected - 1, messages),
                    "part of a multipart message was visible without its last part");
            await(wakeReader, "reading message " + expected);
        }
    }

    // ---------------------------------------------------------------------------- YPipe<Long>

    /** One writer, one reader of a {@code YPipe<Long>}; the reader waits on {@code wakeReader}. */
    static PipeWorkload yPipe(String name, long messages, PollableSignaler wakeReader) {
        PipeWorkload w = new PipeWorkload(name, messages);
        YPipe<Long> pipe = new YPipe<>();
        Long junk = Long.MIN_VALUE;
        w.writers.add(() -> {
            SplittableRandom rnd = new SplittableRandom(42);
            long seq = 0;
            while (seq < messages) {
                for (int n = batchSize(rnd); n > 0 && seq < messages; n--, seq++) {
                    pipe.write(seq, incomplete(seq, messages));
                    if (rnd.nextInt(16) == 0) {
                        pipe.write(junk, rnd.nextBoolean()); // taken back before any flush
                        assertSame(junk, pipe.unwrite());
                    }
                }
                if (!pipe.flush()) {
                    wakeReader.signal(0);
                }
                maybePause(rnd);
            }
        });
        w.reader = () -> {
            SplittableRandom rnd = new SplittableRandom(7);
            long[] expected = {0};
            while (expected[0] < messages) {
                int got;
                if (rnd.nextBoolean()) {
                    got = pipe.readBatch(v -> assertEquals(expected[0]++, (long) v));
                } else {
                    Long v = pipe.read();
                    got = v == null ? 0 : 1;
                    if (v != null) {
                        assertEquals(expected[0]++, (long) v);
                    }
                }
                w.afterRead(got, expected[0], wakeReader);
            }
            w.delivered.set(expected[0]);
            assertTrue(pipe.read() == null, "nothing beyond the last message");
        };
        return w;
    }

    // ---------------------------------------------------------------------------- OffHeapYPipe

    static final int POOL_BYTES = 1 << 20;
    static final int MAX_SIZE = 4096;

    static int sizeOf(long seq) {
        return 1 + (int) (mix(seq) & (MAX_SIZE - 1));
    }

    static int poolOffset(long seq) {
        return (int) ((mix(seq) >>> 12) % (POOL_BYTES - MAX_SIZE));
    }

    /**
     * One writer, one reader of {@code pipe} (random sizes 1..4096, checked against a random pool);
     * the writer waits for space when the ring is full, the reader on a {@link YSemaphore}.
     */
    static PipeWorkload offHeap(String name, long messages, OffHeapYPipe pipe, int spin) {
        PipeWorkload w = new PipeWorkload(name, messages);
        byte[] pool = new byte[POOL_BYTES];
        new SplittableRandom(99).nextBytes(pool);
        ByteBuffer poolBuffer = ByteBuffer.wrap(pool);
        YSemaphore wakeReader = new YSemaphore(WaitPolicy.spinThenPark(spin));
        w.writers.add(() -> {
            SplittableRandom rnd = new SplittableRandom(42);
            long seq = 0;
            try {
                while (seq < messages) {
                    for (int n = batchSize(rnd); n > 0 && seq < messages; ) {
                        int size = sizeOf(seq);
                        if (!pipe.write(pool, poolOffset(seq), size, incomplete(seq, messages))) {
                            if (!pipe.flush()) {
                                wakeReader.signal(0);
                            }
                            pipe.awaitSpace(size); // the reader wakes us when it frees room
                            continue;
                        }
                        n--;
                        seq++;
                        if (rnd.nextInt(16) == 0 && pipe.write(pool, 0, 1 + rnd.nextInt(64), false)) {
                            assertTrue(pipe.unwrite(), "junk taken back before any flush");
                        }
                    }
                    if (!pipe.flush()) {
                        wakeReader.signal(0);
                    }
                    maybePause(rnd);
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        w.reader = () -> {
            SplittableRandom rnd = new SplittableRandom(7);
            byte[] copy = new byte[MAX_SIZE];
            long[] expected = {0};
            MessageHandler check = (buf, off, len) -> {
                long seq = expected[0]++;
                assertEquals(sizeOf(seq), len, "size of message " + seq);
                int at = poolOffset(seq);
                if (buf.slice(off, len).mismatch(poolBuffer.slice(at, len)) != -1) {
                    fail("message " + seq + " corrupted");
                }
            };
            while (expected[0] < messages) {
                int got;
                if (rnd.nextBoolean()) {
                    got = pipe.readBatch(check);
                } else {
                    int len = pipe.read(copy);
                    got = len < 0 ? 0 : 1;
                    if (len >= 0) {
                        long seq = expected[0]++;
                        assertEquals(sizeOf(seq), len, "size of message " + seq);
                        int at = poolOffset(seq);
                        if (!Arrays.equals(copy, 0, len, pool, at, at + len)) {
                            fail("message " + seq + " corrupted");
                        }
                    }
                }
                w.afterRead(got, expected[0], wakeReader);
            }
            w.delivered.set(expected[0]);
            assertEquals(-1, pipe.read(copy), "nothing beyond the last message");
        };
        return w;
    }

    // ---------------------------------------------------------------------------- YMailbox<Long>

    /** {@code writers} writer threads into {@code mailbox}; messages are {@code seq << 8 | writer}. */
    static PipeWorkload mailbox(String name, long total, YMailbox<Long> mailbox, int writers) {
        long perWriter = total / writers;
        PipeWorkload w = new PipeWorkload(name, perWriter * writers);
        for (int i = 0; i < writers; i++) {
            int id = i;
            YMailbox.Writer<Long> out = mailbox.newWriter();
            w.writers.add(() -> {
                SplittableRandom rnd = new SplittableRandom(id);
                long seq = 0;
                while (seq < perWriter) {
                    for (int n = batchSize(rnd); n > 0 && seq < perWriter; n--, seq++) {
                        out.write(seq << 8 | id, incomplete(seq, perWriter));
                        if (rnd.nextInt(16) == 0) {
                            out.write(-1L, rnd.nextBoolean());
                            assertEquals(-1L, (long) out.unwrite());
                        }
                    }
                    out.flush();
                    maybePause(rnd);
                }
            });
        }
        w.reader = () -> {
            long[] next = new long[writers];
            long[] seen = {0};
            while (seen[0] < perWriter * writers) {
                int got;
                try {
                    got = mailbox.poll(v -> {
                        int from = (int) (v & 0xFF);
                        assertEquals(next[from]++, v >>> 8, "order of writer " + from);
                        seen[0]++;
                    }, WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                if (got == 0) {
                    fail("lost wake-up: nothing for " + WAIT_SECONDS + " s after " + seen[0]
                            + " messages; per writer " + Arrays.toString(next));
                }
                w.delivered.lazySet(seen[0]);
            }
            w.delivered.set(seen[0]);
            assertEquals(0, mailbox.check(v -> fail("extra message " + v)));
            for (int from = 0; from < writers; from++) {
                assertEquals(perWriter, next[from], "messages from writer " + from);
            }
        };
        return w;
    }

    // ---------------------------------------------------------------------------- running

    /**
     * Runs the writers and the reader on their own daemon threads until the reader has every
     * message, and fails on the first error of any of them, when no message moves for
     * {@link #WAIT_SECONDS} (with every thread's stack), or when {@code watchdog} runs out.
     *
     * @param progress where to print a line every ten seconds and a summary, or {@code null}
     */
    void run(Duration watchdog, PrintStream progress) throws Throwable {
        List<TestThreads.Runner> runners = new ArrayList<>();
        long start = System.nanoTime();
        for (Runnable body : writers) {
            runners.add(TestThreads.start(name + "-writer-" + runners.size(), body::run));
        }
        TestThreads.Runner readerRunner = TestThreads.start(name + "-reader", reader::run);
        runners.add(readerRunner);
        long deadline = start + watchdog.toNanos();
        long lastCount = -1;
        long lastMove = start;
        long nextReport = start + TimeUnit.SECONDS.toNanos(10);
        try {
            while (readerRunner.thread.isAlive() && runners.stream().allMatch(r -> r.failure.get() == null)) {
                readerRunner.thread.join(200);
                long now = System.nanoTime();
                long count = delivered.get();
                if (count != lastCount) {
                    lastCount = count;
                    lastMove = now;
                } else if (now - lastMove > TimeUnit.SECONDS.toNanos(WAIT_SECONDS)) {
                    fail(name + ": stuck at " + count + " of " + messages + " messages for " + WAIT_SECONDS
                            + " s (lost wake-up?)\n" + stacks(runners));
                }
                if (now - deadline > 0) {
                    fail(name + ": watchdog " + watchdog + " ran out at " + count + " of " + messages
                            + " messages\n" + stacks(runners));
                }
                if (progress != null && now - nextReport > 0) {
                    progress.printf(Locale.ROOT, "  %s: %,d messages...%n", name, count);
                    nextReport = now + TimeUnit.SECONDS.toNanos(10);
                }
            }
            for (TestThreads.Runner r : runners) {
                r.join(); // bounded; rethrows the body's failure
            }
            assertEquals(messages, delivered.get(), name + ": messages delivered");
            if (progress != null) {
                double seconds = (System.nanoTime() - start) / 1e9;
                progress.printf(Locale.ROOT, "%-40s PASS: %,d messages in %.1f s (%,.0f msgs/s)%n",
                        name, messages, seconds, messages / seconds);
            }
        } finally {
            runners.forEach(r -> r.thread.interrupt()); // only threads still running after a failure
        }
    }

    private static String stacks(List<TestThreads.Runner> runners) {
        StringBuilder sb = new StringBuilder();
        for (TestThreads.Runner r : runners) {
            Thread t = r.thread;
            sb.append("  ").append(t.getName()).append(' ').append(t.getState()).append('\n');
            for (StackTraceElement e : t.getStackTrace()) {
                sb.append("      at ").append(e).append('\n');
            }
        }
        return sb.toString();
    }
}
