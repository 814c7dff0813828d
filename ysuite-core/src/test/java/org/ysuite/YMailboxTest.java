package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class YMailboxTest {

    /** A signaler that only counts: the reader waits by "other means" and calls check. */
    static final class CountingSignaler implements Signaler {
        final AtomicInteger signals = new AtomicInteger();

        @Override
        public void signal(int id) {
            if (id != 0) {
                throw new IllegalArgumentException("id must be 0: " + id);
            }
            signals.incrementAndGet();
        }

        @Override
        public int capacity() {
            return 1;
        }
    }

    @Test
    void emptyMailboxHasNothingAndTimesOut() throws InterruptedException {
        YMailbox<String> mailbox = new YMailbox<>();
        assertEquals(0, mailbox.check(m -> { throw new AssertionError(); }));
        long start = System.nanoTime();
        assertEquals(0, mailbox.poll(m -> { throw new AssertionError(); }, 10, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(10));
        assertEquals(0, mailbox.poll(m -> { throw new AssertionError(); }, 0, TimeUnit.SECONDS));
    }

    @Test
    void writersGetDistinctIdsThatWrapAroundTheSignalersCapacity() {
        YMailbox<String> mailbox = new YMailbox<>(new YPollset());
        for (int i = 0; i < 70; i++) {
            assertEquals(i % 31, mailbox.newWriter().signalId());
        }
        assertEquals(70, mailbox.writerCount());
    }

    @Test
    void eachWritersMessagesArriveInOrderInOneBatch() throws InterruptedException {
        YMailbox<String> mailbox = new YMailbox<>();
        YMailbox.Writer<String> a = mailbox.newWriter();
        YMailbox.Writer<String> b = mailbox.newWriter();
        a.write("a1");
        a.write("a2");
        b.send("b1");
        a.flush();
        List<String> got = new ArrayList<>();
        assertEquals(3, mailbox.poll(got::add));
        assertTrue(got.indexOf("a1") < got.indexOf("a2"));
        assertTrue(got.contains("b1"));
        assertEquals(0, mailbox.check(got::add));
    }

    @Test
    void unflushedAndIncompleteMessagesStayWithTheWriter() {
        YMailbox<String> mailbox = new YMailbox<>();
        YMailbox.Writer<String> w = mailbox.newWriter();
        w.write("unflushed");
        List<String> got = new ArrayList<>();
        assertEquals(0, mailbox.check(got::add));
        assertEquals("unflushed", w.unwrite());
        assertNull(w.unwrite());
        w.write("part", true);
        w.flush();
        assertEquals(0, mailbox.check(got::add));
        w.write("end");
        w.flush();
        assertEquals(2, mailbox.check(got::add));
        assertEquals(List.of("part", "end"), got);
    }

    @Test
    void aWriterSignalsOnlyWhenTheReaderSleepsOnItsPipe() {
        CountingSignaler signaler = new CountingSignaler();
        YMailbox<Integer> mailbox = new YMailbox<>(signaler);
        YMailbox.Writer<Integer> w = mailbox.newWriter();
        w.send(1);
        assertEquals(1, signaler.signals.get(), "a new pipe starts asleep: the first flush signals");
        w.send(2);
        w.send(3);
        assertEquals(1, signaler.signals.get(), "the reader has not drained yet: no more signals");
        List<Integer> got = new ArrayList<>();
        assertEquals(3, mailbox.check(got::add));
        assertEquals(0, mailbox.check(got::add)); // the pipe goes to sleep
        w.send(4);
        assertEquals(2, signaler.signals.get());
        assertEquals(1, mailbox.check(got::add));
        assertEquals(List.of(1, 2, 3, 4), got);
    }

    @Test
    void checkReturnsZeroOnlyAfterACheckOfTheSignalerFoundNothing() {
        // A signaler that reports a stale id once: the mailbox must look again, so that its
        // last check of the signaler is the one that found nothing (and armed it).
        int[] checks = {0};
        PollableSignaler stale = new PollableSignaler() {
            @Override
            public void signal(int id) {
            }

            @Override
            public int capacity() {
                return 1;
            }

            @Override
            public int check(java.util.function.IntConsumer ids) {
                if (checks[0]++ == 0) {
                    ids.accept(0);
                    return 1;
                }
                return 0;
            }

            @Override
            public int poll(java.util.function.IntConsumer ids) {
                throw new AssertionError("not used");
            }

            @Override
            public int poll(java.util.function.IntConsumer ids, long timeout, TimeUnit unit) {
                throw new AssertionError("not used");
            }
        };
        YMailbox<String> mailbox = new YMailbox<>(stale);
        mailbox.newWriter();
        assertEquals(0, mailbox.check(m -> { throw new AssertionError(); }));
        assertEquals(2, checks[0], "the stale id found no message, so the mailbox checked again");
    }

    @Test
    void pollNeedsAPollableSignaler() {
        YMailbox<String> mailbox = new YMailbox<>(new CountingSignaler());
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> mailbox.poll(m -> { }));
        assertTrue(e.getMessage().contains("PollableSignaler"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> mailbox.poll(m -> { }, 1, TimeUnit.SECONDS));
    }

    @Test
    void badArgumentsAreRejected() {
        assertThrows(NullPointerException.class, () -> new YMailbox<String>(null));
        YMailbox<String> mailbox = new YMailbox<>();
        assertThrows(NullPointerException.class, () -> mailbox.check(null));
        assertThrows(NullPointerException.class, () -> mailbox.poll(null));
        assertThrows(NullPointerException.class, () -> mailbox.poll(m -> { }, 1, null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> mailbox.poll(m -> { }, -1, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("timeout"), e.getMessage());
        assertThrows(NullPointerException.class, () -> mailbox.newWriter().send(null));
        Signaler none = new Signaler() {
            @Override
            public void signal(int id) {
            }

            @Override
            public int capacity() {
                return 0;
            }
        };
        assertThrows(IllegalArgumentException.class, () -> new YMailbox<String>(none));
    }

    @Test
    void pollWakesWhenAWriterThreadFlushes() throws Exception {
        YMailbox<String> mailbox = new YMailbox<>(new YPollset(WaitPolicy.purePark()));
        YMailbox.Writer<String> w = mailbox.newWriter();
        CountDownLatch readerStarted = new CountDownLatch(1);
        AtomicReference<String> got = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            readerStarted.countDown();
            try {
                mailbox.poll(got::set);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        reader.start();
        assertTrue(readerStarted.await(60, TimeUnit.SECONDS));
        w.send("wake up");
        reader.join(60_000);
        assertTrue(!reader.isAlive() && failure.get() == null, "poll must return: " + failure.get());
        assertEquals("wake up", got.get());
    }

    @Test
    void interruptEndsAPoll() {
        YMailbox<String> mailbox = new YMailbox<>();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> mailbox.poll(m -> { }));
        assertTrue(!Thread.currentThread().isInterrupted());
    }

    @Test
    void writersAddedWhileTheReaderRunsAreSeen() throws InterruptedException {
        YMailbox<Integer> mailbox = new YMailbox<>();
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            mailbox.newWriter().send(i);
            assertEquals(1, mailbox.poll(got::add, 10, TimeUnit.SECONDS));
        }
        assertEquals(50, got.size());
    }
}
