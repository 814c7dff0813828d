package org.ysuite.reliability;

import org.junit.jupiter.api.Test;
import org.ysuite.NioSignaler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.PollableSignaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;
import org.ysuite.YSocketPair;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults: a writer thread that dies, random interrupts of waiting threads, spurious unparks of
 * timed waits.
 *
 * <p>Interrupt cycles: {@code -Dysuite.reliability.interruptCycles=N} per scenario; CI default
 * {@value #CI_INTERRUPT_CYCLES}, the full size (about 10 s on 2 cores).
 */
class FaultsTest {

    static final int CI_INTERRUPT_CYCLES = 100_000;
    static final int INTERRUPT_CYCLES = Baseline.intProperty("ysuite.reliability.interruptCycles", CI_INTERRUPT_CYCLES);
    /**
     * The interrupt tests fail when no interrupt is caught for this long (a stuck thread), not for
     * being slow: a loaded machine takes longer to reach {@link #INTERRUPT_CYCLES}.
     */
    static final long STALL_SECONDS = 30;
    /** The outermost guard of an interrupt test, far above its run time on a loaded machine. */
    static final Duration INTERRUPT_WATCHDOG = Duration.ofMinutes(10);

    /** Watches a counter: {@link #moving()} turns false once it has not moved for {@link #STALL_SECONDS}. */
    static final class Progress {
        private final AtomicLong counter;
        private long last = -1;
        private long lastMove = System.nanoTime();

        Progress(AtomicLong counter) {
            this.counter = counter;
        }

        boolean moving() {
            long now = System.nanoTime();
            long c = counter.get();
            if (c != last) {
                last = c;
                lastMove = now;
            }
            return now - lastMove <= TimeUnit.SECONDS.toNanos(STALL_SECONDS);
        }

        String stalled() {
            return "no interrupt caught for " + STALL_SECONDS + " s (stuck at " + last + ")";
        }
    }

    // ------------------------------------------------------------------------------------------
    // A writer that dies
    // ------------------------------------------------------------------------------------------

    /**
     * The writer flushes three items, writes the first part of a fourth message and throws. The
     * reader gets the three, never the half message, times out on its signaler instead of hanging,
     * and learns that the pipe is abandoned (its writer thread is gone).
     */
    @Test
    void writerDiesReaderTimesOutAndLearnsThePipeIsAbandoned() {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            for (PollableSignaler wake : List.of(new YSemaphore(), new YPollset())) {
                YPipe<Integer> pipe = new YPipe<>();
                AtomicReference<Throwable> died = new AtomicReference<>();
                Thread writer = new Thread(() -> {
                    for (int i = 1; i <= 3; i++) {
                        pipe.write(i);
                    }
                    if (!pipe.flush()) {
                        wake.signal(0);
                    }
                    pipe.write(4, true); // first part of a message that is never finished
                    throw new IllegalStateException("writer failed");
                }, "dying-writer");
                writer.setUncaughtExceptionHandler((t, e) -> died.set(e));
                writer.start();

                List<Integer> got = new ArrayList<>();
                IntConsumer ignore = id -> { };
                int timeouts = 0;
                while (true) {
                    if (pipe.readBatch(got::add) > 0) {
                        continue;
                    }
                    if (wake.poll(ignore, 50, TimeUnit.MILLISECONDS) == 0) {
                        timeouts++;
                        writer.join(5_000);
                        if (!writer.isAlive() && pipe.read() == null) {
                            break; // abandoned: no writer, nothing left, and no signal will come
                        }
                    }
                }
                assertEquals(List.of(1, 2, 3), got, "the complete items, never the half message");
                assertTrue(timeouts >= 1);
                assertTrue(died.get() instanceof IllegalStateException, "the writer died: " + died.get());
            }
        });
    }

    /**
     * The off-heap writer dies after flushing messages and writing an incomplete part: the reader
     * drains the complete messages, times out, learns the writer is gone and closes the pipe, and
     * the ring's memory is freed.
     */
    @Test
    void offHeapWriterDiesReaderClosesTheAbandonedPipe() {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            Baseline before = Baseline.now();
            for (int round = 0; round < 100; round++) {
                OffHeapYPipe pipe = new OffHeapYPipe(1024);
                YSemaphore wake = new YSemaphore();
                Thread writer = new Thread(() -> {
                    for (int i = 1; i <= 5; i++) {
                        pipe.write(new byte[] {(byte) i});
                    }
                    if (!pipe.flush()) {
                        wake.signal(0);
                    }
                    pipe.write(new byte[] {9}, 0, 1, true);
                    throw new IllegalStateException("writer failed");
                }, "dying-writer");
                writer.setUncaughtExceptionHandler((t, e) -> { });
                writer.start();
                byte[] dst = new byte[8];
                StringBuilder got = new StringBuilder();
                while (true) {
                    int n = pipe.read(dst);
                    if (n >= 0) {
                        got.append(dst[0]);
                        continue;
                    }
                    if (!wake.await(20, TimeUnit.MILLISECONDS)) {
                        writer.join(5_000);
                        if (!writer.isAlive()) {
                            // the writer is gone: what it flushed is there to read, then nothing more
                            int last = pipe.read(dst);
                            if (last < 0) {
                                break;
                            }
                            got.append(dst[0]);
                        }
                    }
                }
                assertEquals("12345", got.toString());
                pipe.close();
                assertTrue(pipe.isClosed());
            }
            Baseline after = Baseline.now();
            // a ring left unfreed would add one buffer a round (100); the JVM's own temporary I/O buffers
            // (the test runner's channel, under load) may add a few
            assertTrue(after.directCount - before.directCount < 50, () -> before + " -> " + after);
        });
    }

    /**
     * One of two mailbox writers dies in the middle of a two-part message: the reader keeps
     * getting the live writer's messages, never the dead one's half message, and its timed poll
     * returns (0) once the live writer is done, instead of hanging.
     */
    @Test
    void mailboxWriterDiesTheOtherKeepsGoingAndTheReaderTimesOut() {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            YMailbox<String> mailbox = new YMailbox<>();
            YMailbox.Writer<String> doomed = mailbox.newWriter();
            YMailbox.Writer<String> live = mailbox.newWriter();
            Thread dying = new Thread(() -> {
                doomed.send("d1");
                doomed.write("half", true);
                throw new IllegalStateException("writer failed");
            }, "dying-writer");
            dying.setUncaughtExceptionHandler((t, e) -> { });
            Thread alive = new Thread(() -> {
                for (int i = 0; i < 1000; i++) {
                    live.send("l" + i);
                }
            }, "live-writer");
            dying.start();
            alive.start();
            List<String> got = new ArrayList<>();
            int timeouts = 0;
            while (timeouts == 0 || alive.isAlive() || dying.isAlive()) {
                if (mailbox.poll(got::add, 50, TimeUnit.MILLISECONDS) == 0) {
                    timeouts++;
                }
            }
            while (mailbox.check(got::add) > 0) {
                // anything left after both threads ended
            }
            assertFalse(got.contains("half"), "a half message was delivered");
            assertTrue(got.contains("d1"));
            List<String> liveOnes = new ArrayList<>(got);
            liveOnes.remove("d1");
            assertEquals(1000, liveOnes.size());
            for (int i = 0; i < 1000; i++) {
                assertEquals("l" + i, liveOnes.get(i));
            }
        });
    }

    // ------------------------------------------------------------------------------------------
    // Random interrupts
    // ------------------------------------------------------------------------------------------

    /**
     * The reader waits on its signaler (YSemaphore, then YPollset, pure park) while an interrupter
     * thread interrupts it at random moments; an interrupted reader goes back to its pipe. No
     * message is lost or reordered and no thread is left stuck.
     */
    @Test
    void randomInterruptsOfAWaitingReaderLoseNoMessage() {
        for (PollableSignaler wake : List.of(new YSemaphore(WaitPolicy.purePark()), new YPollset(WaitPolicy.purePark()))) {
            assertTimeoutPreemptively(INTERRUPT_WATCHDOG, () -> interruptReader(wake),
                    () -> "stuck: " + wake);
        }
    }

    private static void interruptReader(PollableSignaler wake) throws Exception {
        YPipe<Long> pipe = new YPipe<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong caught = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] sent = {0};
        Thread writer = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(11);
            while (!stop.get()) {
                int n = 1 + random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    pipe.write(sent[0]++);
                }
                if (!pipe.flush()) {
                    wake.signal(0);
                }
                for (int i = random.nextInt(300); i > 0; i--) {
                    Thread.onSpinWait();
                }
                if (random.nextInt(16) == 0) {
                    Thread.yield(); // let the reader drain and fall asleep
                }
            }
        }, "writer");
        long[] expected = {0};
        Thread reader = new Thread(() -> {
            IntConsumer ignore = id -> { };
            try {
                while (!stop.get() || expected[0] < sentAfterStop(writer, sent)) {
                    if (pipe.readBatch(v -> {
                        if (v != expected[0]) {
                            throw new AssertionError("expected " + expected[0] + ", got " + v);
                        }
                        expected[0]++;
                    }) > 0) {
                        continue;
                    }
                    try {
                        wake.poll(ignore, 100, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        caught.incrementAndGet(); // no signal was taken: back to the pipe
                    }
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "reader");
        Thread.UncaughtExceptionHandler record = (t, e) -> failure.set(e);
        writer.setUncaughtExceptionHandler(record);
        reader.setUncaughtExceptionHandler(record);
        writer.start();
        reader.start();
        SplittableRandom random = new SplittableRandom(12);
        long interrupts = 0;
        Progress progress = new Progress(caught);
        while (caught.get() < INTERRUPT_CYCLES && failure.get() == null && progress.moving()) {
            reader.interrupt();
            interrupts++;
            for (int i = random.nextInt(500); i > 0; i--) {
                Thread.onSpinWait();
            }
            if ((interrupts & 15) == 0) {
                Thread.yield();
            }
        }
        stop.set(true);
        writer.join(STALL_SECONDS * 1000);
        reader.join(STALL_SECONDS * 1000);
        Thread.interrupted();
        assertNull(failure.get(), () -> "failure: " + failure.get());
        assertFalse(writer.isAlive(), "writer stuck");
        assertFalse(reader.isAlive(), "reader stuck");
        assertEquals(sent[0], expected[0], "messages lost");
        System.out.println("[faults] " + wake.getClass().getSimpleName() + ": " + interrupts
                + " interrupts sent, " + caught.get() + " caught in a wait, " + sent[0] + " messages, none lost");
        assertTrue(caught.get() >= INTERRUPT_CYCLES, () -> "only " + caught.get() + " interrupt cycles: "
                + progress.stalled());
    }

    /** How many items the writer sent, once it has stopped (it stops only after stop is set). */
    private static long sentAfterStop(Thread writer, long[] sent) {
        if (writer.isAlive()) {
            return Long.MAX_VALUE; // not yet known: keep reading
        }
        return sent[0]; // join-free but safe: isAlive() false happens-after the writer's last write
    }

    /**
     * The off-heap writer parks waiting for space while an interrupter interrupts it at random; an
     * interrupted writer retries. Every message arrives, in order, none torn, nothing stuck.
     */
    @Test
    void randomInterruptsOfAWriterWaitingForSpaceLoseNoMessage() {
        assertTimeoutPreemptively(INTERRUPT_WATCHDOG, () -> {
            try (OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark())) {
                YSemaphore wakeReader = new YSemaphore();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong caught = new AtomicLong();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                long[] sent = {0};
                Thread writer = new Thread(() -> {
                    byte[] msg = new byte[40];
                    while (!stop.get()) {
                        java.nio.ByteBuffer.wrap(msg).putLong(0, sent[0]);
                        while (!pipe.write(msg)) {
                            if (!pipe.flush()) {
                                wakeReader.signal(0);
                            }
                            try {
                                pipe.awaitSpace(msg.length);
                            } catch (InterruptedException e) {
                                caught.incrementAndGet(); // retry the write
                            }
                        }
                        sent[0]++;
                        if (!pipe.flush()) {
                            wakeReader.signal(0);
                        }
                    }
                }, "writer");
                long[] got = {0};
                Thread reader = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(13);
                    byte[] dst = new byte[64];
                    try {
                        while (!stop.get() || writer.isAlive() || got[0] < sent[0]) {
                            int n = pipe.read(dst);
                            if (n < 0) {
                                wakeReader.await(100, TimeUnit.MILLISECONDS);
                                continue;
                            }
                            long seq = java.nio.ByteBuffer.wrap(dst).getLong(0);
                            if (n != 40 || seq != got[0]) {
                                throw new AssertionError("expected " + got[0] + ", got " + seq + " (" + n + " bytes)");
                            }
                            got[0]++;
                            for (int i = random.nextInt(200); i > 0; i--) {
                                Thread.onSpinWait(); // slower than the writer: the ring fills
                            }
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }, "reader");
                writer.setUncaughtExceptionHandler((t, e) -> failure.set(e));
                writer.start();
                reader.start();
                SplittableRandom random = new SplittableRandom(14);
                long interrupts = 0;
                Progress progress = new Progress(caught);
                while (caught.get() < INTERRUPT_CYCLES && failure.get() == null && progress.moving()) {
                    writer.interrupt();
                    interrupts++;
                    for (int i = random.nextInt(500); i > 0; i--) {
                        Thread.onSpinWait();
                    }
                    if ((interrupts & 15) == 0) {
                        Thread.yield();
                    }
                }
                stop.set(true);
                writer.join(STALL_SECONDS * 1000);
                reader.join(STALL_SECONDS * 1000);
                assertNull(failure.get(), () -> "failure: " + failure.get());
                assertFalse(writer.isAlive(), "writer stuck");
                assertFalse(reader.isAlive(), "reader stuck");
                assertEquals(sent[0], got[0], "messages lost");
                System.out.println("[faults] OffHeapYPipe.awaitSpace: " + interrupts + " interrupts sent, "
                        + caught.get() + " caught, " + sent[0] + " messages, none lost");
                assertTrue(caught.get() >= INTERRUPT_CYCLES, () -> "only " + caught.get() + " interrupt cycles: "
                        + progress.stalled());
            }
        });
    }

    // ------------------------------------------------------------------------------------------
    // Timed waits never return early without a signal
    // ------------------------------------------------------------------------------------------

    /** A timed wait that must time out, while a noise thread unparks the waiter again and again. */
    interface TimedWait {
        boolean waitFor(long nanos) throws InterruptedException;
    }

    @Test
    void timedWaitsNeverReturnEarlyWithoutASignalDespiteSpuriousUnparks() {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            YSemaphore sem = new YSemaphore(WaitPolicy.purePark());
            YPollset pollset = new YPollset(WaitPolicy.purePark());
            YPollset pollsetIds = new YPollset();
            IntConsumer ignore = id -> { };
            YMailbox<String> mailbox = new YMailbox<>(new YPollset(WaitPolicy.purePark()));
            mailbox.newWriter();
            try (OffHeapYPipe full = new OffHeapYPipe(256, WaitPolicy.purePark());
                 YSocketPair pair = new YSocketPair(YSocketPair.Kind.SOCKETPAIR, WaitPolicy.purePark());
                 YSocketPair eventfd = new YSocketPair(YSocketPair.Kind.EVENTFD, WaitPolicy.purePark());
                 NioSignaler nio = new NioSignaler(WaitPolicy.purePark())) {
                while (full.write(new byte[100])) {
                    // fill the ring; nobody reads
                }
                full.flush();
                List<TimedWait> waits = List.of(
                        n -> sem.await(n, TimeUnit.NANOSECONDS),
                        n -> sem.poll(ignore, n, TimeUnit.NANOSECONDS) != 0,
                        n -> pollset.poll(n, TimeUnit.NANOSECONDS) != 0,
                        n -> pollsetIds.poll(ignore, n, TimeUnit.NANOSECONDS) != 0,
                        n -> full.awaitSpace(100, n, TimeUnit.NANOSECONDS),
                        n -> pair.poll(ignore, n, TimeUnit.NANOSECONDS) != 0,
                        n -> eventfd.poll(ignore, n, TimeUnit.NANOSECONDS) != 0,
                        n -> nio.poll(ignore, n, TimeUnit.NANOSECONDS) != 0,
                        n -> mailbox.poll(v -> { }, n, TimeUnit.NANOSECONDS) != 0);
                String[] names = {"YSemaphore.await", "YSemaphore.poll(ids)", "YPollset.poll",
                        "YPollset.poll(ids) (spinning)", "OffHeapYPipe.awaitSpace", "YSocketPair.poll",
                        "YSocketPair(EVENTFD).poll", "NioSignaler.poll", "YMailbox.poll"};
                long[] timeouts = {1_000, 10_000, 100_000, 1_000_000, 3_000_000};
                Thread me = Thread.currentThread();
                AtomicBoolean quiet = new AtomicBoolean();
                Thread noise = new Thread(() -> {
                    while (!quiet.get()) {
                        LockSupport.unpark(me); // spurious wake-ups: no signal behind them
                        for (int i = 0; i < 200; i++) {
                            Thread.onSpinWait();
                        }
                        Thread.yield();
                    }
                }, "unpark-noise");
                noise.start();
                int checked = 0;
                try {
                    for (int k = 0; k < waits.size(); k++) {
                        for (long timeout : timeouts) {
                            for (int rep = 0; rep < 20; rep++) {
                                long start = System.nanoTime();
                                boolean signalled = waits.get(k).waitFor(timeout);
                                long elapsed = System.nanoTime() - start;
                                String what = names[k] + "(" + timeout + " ns)";
                                assertFalse(signalled, what + " reported a signal nobody sent");
                                assertTrue(elapsed >= timeout, what + " returned early after " + elapsed + " ns");
                                checked++;
                            }
                        }
                    }
                } finally {
                    quiet.set(true);
                    noise.join(5_000);
                }
                System.out.println("[faults] " + checked + " timed waits, none early despite spurious unparks");
            }
        });
    }

    /**
     * A timed wait that is signalled returns with the signal ({@code true}), not at its timeout.
     * The timeout is an hour, so a wait that missed the signal is still running at the join's
     * bound; no elapsed time is compared.
     */
    @Test
    void signalledTimedWaitReturnsWithTheSignal() throws Exception {
        YSemaphore sem = new YSemaphore(WaitPolicy.purePark());
        CountDownLatch parked = new CountDownLatch(1);
        AtomicReference<Object> result = new AtomicReference<>();
        Thread t = new Thread(() -> {
            parked.countDown();
            try {
                result.set(sem.await(1, TimeUnit.HOURS));
            } catch (Throwable e) {
                result.set(e);
            }
        });
        t.start();
        parked.await();
        sem.signal(0);
        t.join(TimeUnit.SECONDS.toMillis(2 * STALL_SECONDS));
        assertFalse(t.isAlive(), "the signalled wait did not return");
        assertEquals(Boolean.TRUE, result.get());
    }
}
