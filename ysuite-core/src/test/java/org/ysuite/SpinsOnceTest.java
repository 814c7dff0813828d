package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A waiting side composed the documented way, with every part's default, spins once, under one
 * policy, before it parks (docs/design.md, "Who spins where"): a {@link YPipe}'s reader in front
 * of a {@link YSemaphore} or {@link YPollset}, and a {@link YMailbox}'s reader. Each part's default
 * policy is wrapped in a counting one that adds up the rounds spun in vain before a park (the
 * rounds a wait was allowed when it reported {@code parked()}); no timing is involved: the writer
 * sends only after the signaler's owner has reported its park.
 */
class SpinsOnceTest {

    /** Delegates to a part's default policy and counts what its waits spun in vain. */
    static final class Counting extends WaitPolicy {
        private final WaitPolicy delegate;
        private int limit; // the waiting thread's own
        final AtomicInteger roundsInVain = new AtomicInteger();
        final AtomicInteger parks = new AtomicInteger();
        final CountDownLatch parked = new CountDownLatch(1);

        Counting(WaitPolicy delegate) {
            this.delegate = delegate;
        }

        @Override
        int spinLimit() {
            limit = delegate.spinLimit();
            return limit;
        }

        @Override
        int maxSpins() {
            return delegate.maxSpins();
        }

        @Override
        public void spun(int rounds) {
            delegate.spun(rounds);
        }

        @Override
        public void parked() {
            delegate.parked();
            roundsInVain.addAndGet(limit);
            parks.incrementAndGet();
            parked.countDown();
        }

        @Override
        public WaitPolicy newState() {
            return new Counting(delegate.newState());
        }
    }

    @Test
    void aPipeReaderInFrontOfADefaultSemaphoreSpinsOnce() throws Throwable {
        Counting pipeSide = new Counting(new YPipe<String>().readerPolicy);
        Counting semaphoreSide = new Counting(new YSemaphore().waitPolicy());
        YPipe<String> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, pipeSide);
        YSemaphore wake = new YSemaphore(semaphoreSide);
        AtomicReference<String> got = new AtomicReference<>();
        TestThreads.Runner reader = TestThreads.start("reader", () -> {
            String m;
            while ((m = pipe.read()) == null) {
                wake.await();
            }
            got.set(m);
        });
        awaitLatch(semaphoreSide.parked);
        pipe.write("m");
        if (!pipe.flush()) {
            wake.signal(0);
        }
        reader.join();
        assertEquals("m", got.get());
        assertSpunOnce(pipeSide, semaphoreSide);
    }

    @Test
    void aPipeReaderInFrontOfADefaultPollsetSpinsOnce() throws Throwable {
        Counting pipeSide = new Counting(new YPipe<String>().readerPolicy);
        Counting pollsetSide = new Counting(new YPollset().waitPolicy());
        YPipe<String> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, pipeSide);
        YPollset wake = new YPollset(pollsetSide);
        AtomicReference<String> got = new AtomicReference<>();
        TestThreads.Runner reader = TestThreads.start("reader", () -> {
            String m;
            while ((m = pipe.read()) == null) {
                wake.poll();
            }
            got.set(m);
        });
        awaitLatch(pollsetSide.parked);
        pipe.write("m");
        if (!pipe.flush()) {
            wake.signal(0);
        }
        reader.join();
        assertEquals("m", got.get());
        assertSpunOnce(pipeSide, pollsetSide);
    }

    @Test
    void aDefaultMailboxReaderSpinsOnce() throws Throwable {
        YMailbox<String> defaults = new YMailbox<>();
        Counting readerSide = new Counting(defaults.readerPolicy);
        Counting pollsetSide = new Counting(((YPollset) defaults.pollable).waitPolicy());
        YMailbox<String> mailbox = new YMailbox<>(new YPollset(pollsetSide), readerSide);
        YMailbox.Writer<String> writer = mailbox.newWriter();
        writer.send("first"); // the reader's round drains it and leaves the pipe awake
        CountDownLatch drainedFirst = new CountDownLatch(1);
        AtomicReference<String> got = new AtomicReference<>();
        TestThreads.Runner reader = TestThreads.start("reader", () -> {
            assertEquals(1, mailbox.poll(m -> { }));
            drainedFirst.countDown();
            assertEquals(1, mailbox.poll(got::set)); // spins over the awake pipe, then parks
        });
        awaitLatch(drainedFirst);
        awaitLatch(pollsetSide.parked);
        writer.send("second");
        reader.join();
        assertEquals("second", got.get());
        assertSpunOnce(readerSide, pollsetSide);
    }

    /** The reader side spun the default's rounds, the signaler behind it none, then one park. */
    private static void assertSpunOnce(Counting reader, Counting signaler) {
        assertEquals(WaitPolicy.DEFAULT_SPINS, reader.roundsInVain.get() + signaler.roundsInVain.get(),
                "rounds spun in vain before the park: reader " + reader.roundsInVain
                        + ", signaler " + signaler.roundsInVain);
        assertEquals(0, signaler.roundsInVain.get(), "the signaler behind a reader that spun parks at once");
        assertEquals(1, signaler.parks.get(), "one park");
    }

    private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(120, TimeUnit.SECONDS), "a failure bound only");
    }
}
