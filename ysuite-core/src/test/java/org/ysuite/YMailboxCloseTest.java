package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/** {@link YMailbox#close()}: stops the reader, rejects writers, loses and duplicates nothing. */
class YMailboxCloseTest {

    private static final long MAX_SENDS = 200_000;

    @Test
    void closeWakesAReaderBlockedInPollWhichThenReturnsZero() throws Exception {
        YMailbox<Integer> mailbox = new YMailbox<>();
        YMailbox.Writer<Integer> writer = mailbox.newWriter();
        List<Integer> got = new ArrayList<>();
        CountDownLatch polling = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try {
                polling.countDown();
                while (mailbox.poll(got::add) > 0) {
                    // handled a batch
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        reader.start();
        assertTrue(polling.await(60, TimeUnit.SECONDS));
        writer.send(1);
        writer.send(2);
        mailbox.close();
        reader.join(60_000);
        assertFalse(reader.isAlive(), "poll did not return after close");
        assertEquals(List.of(1, 2), got);
        assertTrue(mailbox.isClosed());
    }

    /**
     * The close lands between the reader's look at the flag and its look at the signaler, so
     * that look takes the close's signal. The reader must not then go to sleep: nobody else
     * will signal a closed mailbox.
     */
    @Test
    void aCloseWhoseSignalTheReadersCheckTakesStillEndsPoll() throws Exception {
        for (boolean timed : new boolean[] {false, true}) {
            CloseInsideCheck signaler = new CloseInsideCheck();
            YMailbox<Integer> mailbox = new YMailbox<>(signaler, WaitPolicy.purePark());
            signaler.mailbox = mailbox;
            YMailbox.Writer<Integer> writer = mailbox.newWriter();
            writer.send(1);
            List<Integer> got = new ArrayList<>();
            assertEquals(1, timed ? mailbox.poll(got::add, 1, TimeUnit.DAYS) : mailbox.poll(got::add));
            signaler.closeInNextCheck = true;
            assertEquals(0, timed ? mailbox.poll(got::add, 1, TimeUnit.DAYS) : mailbox.poll(got::add),
                    "poll after close");
            assertTrue(signaler.closed, "the close ran inside the reader's check");
            assertEquals(List.of(1), got);
        }
    }

    /** A pollset that closes its mailbox inside the reader's check, and fails a poll after it. */
    private static final class CloseInsideCheck implements PollableSignaler {
        private final YPollset pollset = new YPollset();
        YMailbox<?> mailbox;
        boolean closeInNextCheck;
        boolean closed;

        @Override
        public void signal(int id) {
            pollset.signal(id);
        }

        @Override
        public int capacity() {
            return pollset.capacity();
        }

        @Override
        public int check(IntConsumer ids) {
            if (closeInNextCheck) {
                closeInNextCheck = false;
                mailbox.close(); // same thread: the flag and the signal land before the check
                closed = true;
            }
            return pollset.check(ids);
        }

        @Override
        public int poll(IntConsumer ids) throws InterruptedException {
            requireOpen();
            return pollset.poll(ids);
        }

        @Override
        public int poll(IntConsumer ids, long timeout, TimeUnit unit) throws InterruptedException {
            requireOpen();
            return pollset.poll(ids, timeout, unit);
        }

        private void requireOpen() {
            if (closed) {
                throw new AssertionError("the reader went to sleep after the close had signalled");
            }
        }
    }

    @Test
    void writersAndNewWritersAreRejectedAfterClose() throws Exception {
        YMailbox<String> mailbox = new YMailbox<>();
        YMailbox.Writer<String> writer = mailbox.newWriter();
        writer.write("unflushed");
        mailbox.close();
        mailbox.close(); // idempotent
        IllegalStateException e = assertThrows(IllegalStateException.class, writer::flush);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> writer.send("late"));
        assertThrows(IllegalStateException.class, mailbox::newWriter);
        assertEquals("late", writer.unwrite(), "a rejected message can be taken back");
        assertEquals(0, mailbox.poll(m -> { throw new AssertionError("delivered " + m); }));
        assertEquals(0, mailbox.check(m -> { throw new AssertionError("delivered " + m); }));
    }

    /**
     * Writers send as fast as they can while the mailbox closes: every send that returned is
     * delivered exactly once, in order per writer, and nothing else is.
     */
    @Test
    void closeDuringSendsLosesAndDuplicatesNothing() {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            int raced = 0;
            for (int round = 0; round < 20; round++) {
                YMailbox<long[]> mailbox = new YMailbox<>(new YPollset(), WaitPolicy.spinThenPark(20));
                int writers = 3;
                AtomicLong[] accepted = new AtomicLong[writers];
                Thread[] threads = new Thread[writers];
                CountDownLatch started = new CountDownLatch(writers);
                for (int t = 0; t < writers; t++) {
                    YMailbox.Writer<long[]> w = mailbox.newWriter();
                    AtomicLong acc = accepted[t] = new AtomicLong();
                    int id = t;
                    threads[t] = new Thread(() -> {
                        started.countDown();
                        for (long seq = 1; seq <= MAX_SENDS; seq++) {
                            try {
                                w.send(new long[] {id, seq});
                            } catch (IllegalStateException closed) {
                                return;
                            }
                            acc.set(seq);
                        }
                    });
                    threads[t].start();
                }
                long[] last = new long[writers];
                started.await();
                // The closer fires while the writers are mid-stream: after writer 0 has had a
                // random number of its sends accepted.
                long closeAfter = 1 + (long) (Math.random() * MAX_SENDS / 4);
                Thread closer = new Thread(() -> {
                    while (accepted[0].get() < closeAfter && threads[0].isAlive()) {
                        Thread.onSpinWait();
                    }
                    mailbox.close();
                });
                closer.start();
                while (true) {
                    int n = mailbox.poll(m -> {
                        int id = (int) m[0];
                        assertEquals(last[id] + 1, m[1], "writer " + id + " out of order or duplicated");
                        last[id] = m[1];
                    });
                    if (n == 0) {
                        break;
                    }
                }
                for (Thread t : threads) {
                    t.join(60_000);
                    assertFalse(t.isAlive());
                }
                closer.join(60_000);
                for (int t = 0; t < writers; t++) {
                    assertEquals(accepted[t].get(), last[t], "writer " + t + ": accepted vs delivered");
                }
                if (last[0] < MAX_SENDS || last[1] < MAX_SENDS || last[2] < MAX_SENDS) {
                    raced++;
                }
            }
            assertTrue(raced > 0, "the close came after every send in every round: the race was not exercised");
        });
    }
}
