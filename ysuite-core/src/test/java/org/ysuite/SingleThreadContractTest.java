package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A second reader thread is refused, with a message naming the contract, wherever the check
 * costs nothing per item: while the reader runs a handler (a {@link YPipe#readBatch} handler, a
 * {@link YPipe#probe} predicate, a {@link YMailbox} handler), or sleeps in {@link YMailbox#poll}.
 * Each test holds the reader inside the call with a latch (which also publishes the reader's
 * state to the second thread), so nothing depends on timing.
 */
class SingleThreadContractTest {

    /** A reader held inside a handler until {@link #release()}. */
    private static final class HeldReader {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        TestThreads.Runner runner;

        void hold() {
            inside.countDown();
            try {
                assertTrue(release.await(20, TimeUnit.SECONDS), "never released");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        void awaitInside() throws InterruptedException {
            assertTrue(inside.await(20, TimeUnit.SECONDS), "the reader never entered its handler");
        }

        void release() throws Throwable {
            release.countDown();
            runner.join();
        }
    }

    private static void assertSecondReaderRefused(Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertTrue(e.getMessage().contains("one reader thread at a time"), e.getMessage());
        assertTrue(e.getMessage().contains(Thread.currentThread().toString()), e.getMessage());
    }

    @Test
    void aSecondThreadReadingAYPipeWhileAHandlerRunsIsRefused() throws Throwable {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("a");
        pipe.write("b");
        pipe.flush();
        HeldReader reader = new HeldReader();
        int[] handed = new int[1];
        reader.runner = TestThreads.start("reader", () -> {
            assertEquals(2, pipe.readBatch(item -> {
                if (handed[0]++ == 0) {
                    reader.hold();
                }
            }));
        });
        reader.awaitInside();
        assertSecondReaderRefused(pipe::read);
        assertSecondReaderRefused(pipe::checkRead);
        assertSecondReaderRefused(() -> pipe.readBatch(item -> { }));
        assertSecondReaderRefused(() -> pipe.probe(item -> true));
        assertSecondReaderRefused(() -> pipe.readBatchAwake(item -> { }));
        reader.release();
        assertEquals(2, handed[0], "the refused calls took nothing");
        assertEquals(null, pipe.read());
    }

    @Test
    void aSecondThreadReadingAYPipeWhileAProbePredicateRunsIsRefused() throws Throwable {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("a");
        pipe.flush();
        HeldReader reader = new HeldReader();
        reader.runner = TestThreads.start("reader", () -> assertTrue(pipe.probe(item -> {
            reader.hold();
            return true;
        })));
        reader.awaitInside();
        assertSecondReaderRefused(pipe::read);
        reader.release();
        assertEquals("a", pipe.read());
    }

    @Test
    void aReadFromInsideTheHandlerStillSaysReentrant() {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("a");
        pipe.flush();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> pipe.readBatch(item -> pipe.read()));
        assertTrue(e.getMessage().contains("from inside a readBatch handler"), e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> {
            pipe.write("b");
            pipe.flush();
            pipe.probe(item -> pipe.read() != null);
        });
        assertTrue(e.getMessage().contains("from inside a readBatch handler"), e.getMessage());
    }

    @Test
    void aSecondThreadReadingAYMailboxWhileAHandlerRunsIsRefused() throws Throwable {
        YMailbox<String> mailbox = new YMailbox<>();
        mailbox.newWriter().send("a");
        HeldReader reader = new HeldReader();
        reader.runner = TestThreads.start("reader", () -> assertEquals(1, mailbox.poll(m -> reader.hold())));
        reader.awaitInside();
        assertSecondReaderRefused(() -> mailbox.check(m -> { }));
        assertSecondReaderRefused(() -> mailbox.poll(m -> { }));
        assertSecondReaderRefused(() -> mailbox.poll(m -> { }, 1, TimeUnit.SECONDS));
        reader.release();
    }

    @Test
    void aSecondThreadSleepingInYMailboxPollWhileTheReaderSleepsIsRefused() throws Throwable {
        YMailbox<String> mailbox = new YMailbox<>(new YPollset(WaitPolicy.purePark()), WaitPolicy.purePark());
        mailbox.newWriter();
        TestThreads.Runner reader = TestThreads.start("reader", () -> assertEquals(0, mailbox.poll(m -> { })));
        TestThreads.awaitParked(reader.thread);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> mailbox.poll(m -> { }));
        assertTrue(e.getMessage().contains("one waiting thread"), e.getMessage());
        mailbox.close(); // ends the reader's poll with 0
        reader.join();
    }

    /**
     * A second writer is seen for free where the flush's CAS fails anyway: the shared position
     * holds another thread's flush. The pipe is put, by its package-private positions, in the
     * state a writer thread that did not see the other's flush would be in.
     */
    @Test
    void aFlushThatFindsAnotherThreadsFlushIsRefused() {
        YPipe<String> pipe = new YPipe<>();
        pipe.write("a");
        assertTrue(pipe.flush());
        pipe.w = 0; // a writer that never saw the flush of "a"
        pipe.f = 0;
        pipe.tail = 0;
        pipe.write("b");
        IllegalStateException e = assertThrows(IllegalStateException.class, pipe::flush);
        assertTrue(e.getMessage().startsWith("a pipe has one writer thread at a time"), e.getMessage());
        assertTrue(e.getMessage().contains("another thread flushed it"), e.getMessage());
    }
}
