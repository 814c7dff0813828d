package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ten million messages through each pipe, between real threads, with random sender batches,
 * multipart messages, unwrites and pauses, under pure-park and spin-then-park waits. Every message
 * must arrive once, in order, intact; a wait that outlives {@link #WAIT_SECONDS} is a lost
 * wake-up and fails the test, and a watchdog fails it rather than let it hang.
 *
 * <p>The message count can be raised with {@code -Dysuite.stress.messages=N}.
 */
class PipeStressTest {

    static final long MESSAGES = Long.getLong("ysuite.stress.messages", 10_000_000L);
    static final int WAIT_SECONDS = 30;
    static final Duration WATCHDOG = Duration.ofMinutes(4);

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

    /** Runs writer and reader, failing on the first error of either or if either outlives the watchdog. */
    static void runPair(Runnable writer, Runnable reader) {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread w = new Thread(() -> guard(writer, failure), "stress-writer");
            w.setDaemon(true);
            w.start();
            guard(reader, failure);
            w.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertFalse(w.isAlive(), "the writer must finish once the reader has everything");
        });
    }

    static void guard(Runnable body, AtomicReference<Throwable> failure) {
        try {
            body.run();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    static void await(YSemaphore semaphore, String what) {
        try {
            if (!semaphore.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                fail("lost wake-up: no signal for " + WAIT_SECONDS + " s while " + what);
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    // ---------------------------------------------------------------------------------------
    // YPipe<Long> + YSemaphore
    // ---------------------------------------------------------------------------------------

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void yPipe(int spin) {
        YPipe<Long> pipe = new YPipe<>();
        YSemaphore wakeReader = new YSemaphore(spin);
        Long junk = Long.MIN_VALUE;
        Runnable writer = () -> {
            SplittableRandom rnd = new SplittableRandom(42);
            long seq = 0;
            while (seq < MESSAGES) {
                for (int n = batchSize(rnd); n > 0 && seq < MESSAGES; n--, seq++) {
                    boolean more = incomplete(seq, MESSAGES);
                    pipe.write(seq, more);
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
        };
        Runnable reader = () -> {
            SplittableRandom rnd = new SplittableRandom(7);
            long[] expected = {0};
            while (expected[0] < MESSAGES) {
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
                if (got == 0) {
                    assertFalse(expected[0] > 0 && incomplete(expected[0] - 1, MESSAGES),
                            "part of a multipart message was visible without its last part");
                    await(wakeReader, "reading message " + expected[0]);
                }
            }
            assertTrue(pipe.read() == null, "nothing beyond the last message");
        };
        runPair(writer, reader);
    }

    // ---------------------------------------------------------------------------------------
    // OffHeapYPipe, random sizes 1..4096, checksummed against a random pool
    // ---------------------------------------------------------------------------------------

    static final int POOL_BYTES = 1 << 20;
    static final int MAX_SIZE = 4096;

    static int sizeOf(long seq) {
        return 1 + (int) (mix(seq) & (MAX_SIZE - 1));
    }

    static int poolOffset(long seq) {
        return (int) ((mix(seq) >>> 12) % (POOL_BYTES - MAX_SIZE));
    }

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void offHeapYPipe(int spin) {
        byte[] pool = new byte[POOL_BYTES];
        new SplittableRandom(99).nextBytes(pool);
        ByteBuffer poolBuffer = ByteBuffer.wrap(pool);
        try (OffHeapYPipe pipe = new OffHeapYPipe(1 << 16, spin)) {
            YSemaphore wakeReader = new YSemaphore(spin);
            Runnable writer = () -> {
                SplittableRandom rnd = new SplittableRandom(42);
                long seq = 0;
                try {
                    while (seq < MESSAGES) {
                        for (int n = batchSize(rnd); n > 0 && seq < MESSAGES; ) {
                            int size = sizeOf(seq);
                            if (!pipe.write(pool, poolOffset(seq), size, incomplete(seq, MESSAGES))) {
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
            };
            Runnable reader = () -> {
                SplittableRandom rnd = new SplittableRandom(7);
                byte[] copy = new byte[MAX_SIZE];
                long[] expected = {0};
                OffHeapYPipe.MessageHandler check = (buf, off, len) -> {
                    long seq = expected[0]++;
                    assertEquals(sizeOf(seq), len, "size of message " + seq);
                    int at = poolOffset(seq);
                    if (buf.slice(off, len).mismatch(poolBuffer.slice(at, len)) != -1) {
                        fail("message " + seq + " corrupted");
                    }
                };
                while (expected[0] < MESSAGES) {
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
                    if (got == 0) {
                        assertFalse(expected[0] > 0 && incomplete(expected[0] - 1, MESSAGES),
                                "part of a multipart message was visible without its last part");
                        await(wakeReader, "reading message " + expected[0]);
                    }
                }
                assertEquals(-1, pipe.read(copy), "nothing beyond the last message");
            };
            runPair(writer, reader);
        }
    }

    // ---------------------------------------------------------------------------------------
    // YMailbox, 3 writers over YPollset
    // ---------------------------------------------------------------------------------------

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void yMailboxThreeWritersOverYPollset(int spin) {
        runMailbox(new YMailbox<>(new YPollset(spin)), 3, MESSAGES);
    }

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void yMailboxFortyWritersShareThePollsetsBits(int spin) {
        runMailbox(new YMailbox<>(new YPollset(spin)), 40, MESSAGES / 10);
    }

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {Signaler.PURE_PARK, Signaler.DEFAULT_SPIN_ITERATIONS})
    void yMailboxOverAnyPollableSignalerThroughTheInterface(int spin) {
        PollableSignaler semaphore = new YSemaphore(spin); // one id shared by every writer
        runMailbox(new YMailbox<>(semaphore), 3, MESSAGES / 10);
    }

    /** Messages are {@code seq << 8 | writer}; each writer's must arrive in order, once. */
    static void runMailbox(YMailbox<Long> mailbox, int writers, long total) {
        assertTimeoutPreemptively(WATCHDOG, () -> {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long perWriter = total / writers;
            Thread[] threads = new Thread[writers];
            for (int i = 0; i < writers; i++) {
                int id = i;
                YMailbox.Writer<Long> out = mailbox.newWriter();
                threads[i] = new Thread(() -> guard(() -> {
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
                }, failure), "mailbox-writer-" + i);
                threads[i].setDaemon(true);
            }
            for (Thread t : threads) {
                t.start();
            }
            long[] next = new long[writers];
            long[] seen = {0};
            while (seen[0] < perWriter * writers && failure.get() == null) {
                int got = mailbox.poll(v -> {
                    int w = (int) (v & 0xFF);
                    assertEquals(next[w]++, v >>> 8, "order of writer " + w);
                    seen[0]++;
                }, WAIT_SECONDS, TimeUnit.SECONDS);
                if (got == 0) {
                    fail("lost wake-up: nothing for " + WAIT_SECONDS + " s after " + seen[0]
                            + " messages; per writer " + Arrays.toString(next));
                }
            }
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                assertFalse(t.isAlive(), t.getName() + " did not finish");
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(0, mailbox.check(v -> fail("extra message " + v)));
            for (int w = 0; w < writers; w++) {
                assertEquals(perWriter, next[w], "messages from writer " + w);
            }
        });
    }
}
