package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.ysuite.internal.Waits;
import org.ysuite.shared.SharedPipeChild;

/**
 * One reader thread and one writer thread per {@link YPipe} (and per {@link YMailbox.Writer}):
 * the default mode's checks on the slow paths, and the checked mode
 * ({@code -Dysuite.checkThreads=true}, in a child JVM: the switch is read once per JVM). Each
 * default-mode test holds the first thread inside its slow path (a reader spinning on an empty
 * pipe, a writer inside its signal) until the second thread has been refused, waiting on state,
 * so nothing depends on timing.
 */
class ThreadCheckTest {

    private static final VarHandle READER_INSIDE;

    static {
        try {
            READER_INSIDE = MethodHandles.lookup().findVarHandle(
                    YPipe.class, "readerInside", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Waits (bounded) until {@code reader} is inside {@code pipe}'s reader side. */
    private static void awaitReaderInside(YPipe<?> pipe, Thread reader) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a failure bound only
        while (READER_INSIDE.getVolatile(pipe) != reader) {
            if (System.nanoTime() > deadline) {
                fail(reader + " never marked the reader side");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void theDefaultModeIsOff() {
        assertFalse(ThreadCheck.CHECKED, "surefire runs without -D" + ThreadCheck.PROPERTY);
    }

    @Test
    void aSecondReaderWhileTheFirstSpinsOnAnEmptyPipeIsRefused() throws Throwable {
        // The first reader finds nothing and spins (as good as forever): its slow path.
        YPipe<String> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.spinThenPark(Integer.MAX_VALUE));
        String[] got = new String[1];
        TestThreads.Runner first = TestThreads.start("first-reader", () -> got[0] = pipe.read());
        awaitReaderInside(pipe, first.thread);
        for (String method : List.of("read", "readBatch", "checkRead", "probe")) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () ->
                    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                        switch (method) {
                            case "read": pipe.read(); break;
                            case "readBatch": pipe.readBatch(x -> { }); break;
                            case "checkRead": pipe.checkRead(); break;
                            default: pipe.probe(x -> true); break;
                        }
                    }), method);
            assertTrue(e.getMessage().startsWith("a YPipe has one reader thread at a time: "
                    + first.thread + " is inside a reader call"), e.getMessage());
            assertTrue(e.getMessage().contains("may not call " + method + "()"), e.getMessage());
            assertTrue(e.getMessage().contains("-Dysuite.checkThreads=true"), e.getMessage());
        }
        pipe.write("x");
        assertTrue(pipe.flush(), "the first reader spins, awake");
        first.join();
        assertEquals("x", got[0], "the refused calls touched nothing");
        assertEquals(null, READER_INSIDE.getVolatile(pipe), "the window closed");
    }

    /**
     * Positions a second reader thread left past a chunk's end, set here by hand: the next read
     * reports the second thread, not the JVM's bounds or null check.
     */
    @Test
    void positionsMovedByAnotherReaderAreReportedAsSuch() {
        YPipe<String> pipe = new YPipe<>(4);
        pipe.write("a");
        pipe.flush();
        pipe.frontPos = 5; // two readers each stepped past slot 3 without seeing the chunk's end
        IllegalStateException e = assertThrows(IllegalStateException.class, pipe::read);
        assertTrue(e.getMessage().startsWith("a YPipe has one reader thread at a time: another thread"),
                e.getMessage());
        assertTrue(e.getCause() instanceof ArrayIndexOutOfBoundsException, String.valueOf(e.getCause()));

        YPipe<String> lastChunk = new YPipe<>(2);
        lastChunk.write("a");
        lastChunk.write("b"); // the writer moves on to a second chunk
        lastChunk.flush();
        assertEquals("a", lastChunk.read());
        assertEquals("b", lastChunk.read()); // leaves the first chunk
        lastChunk.frontPos = 1; // as if another reader had taken slot 0 of the last chunk
        lastChunk.front = lastChunk.front - 1; // ... and this one still sees it flushed
        IllegalStateException last = assertThrows(IllegalStateException.class, lastChunk::read);
        assertTrue(last.getMessage().startsWith("a YPipe has one reader thread at a time"), last.getMessage());
    }

    /** A signaler whose signal blocks until released: holds a mailbox writer inside its slow path. */
    private static final class HeldSignaler implements Signaler {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void signal(int id) {
            inside.countDown();
            try {
                assertTrue(release.await(60, TimeUnit.SECONDS), "never released");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public int capacity() {
            return 1;
        }
    }

    @Test
    void aSharedMailboxWriterIsRefusedWithinAChunk() throws Throwable {
        HeldSignaler signaler = new HeldSignaler();
        YMailbox<Integer> mailbox = new YMailbox<>(signaler);
        YMailbox.Writer<Integer> writer = mailbox.newWriter();
        // The pipe starts with its reader asleep: the first send signals, and stays inside.
        TestThreads.Runner first = TestThreads.start("first-writer", () -> writer.send(-1));
        assertTrue(signaler.inside.await(60, TimeUnit.SECONDS), "the first send never signalled");
        // The latch orders the first writer's stores before this thread's sends.
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
            for (int i = 0; i < 2 * YPipe.DEFAULT_CHUNK_SIZE; i++) {
                writer.send(i);
            }
        });
        assertTrue(e.getMessage().startsWith("a pipe has one writer thread at a time: "
                + first.thread + " is inside a writer call"), e.getMessage());
        signaler.release.countDown();
        first.join();
        mailbox.close();
    }

    @Test
    void checkedModeRefusesEveryOverlapAtOnce() throws Exception {
        List<String> cmd = SharedPipeChild.command(CheckedThreadsChild.class, true);
        cmd.add(1, "-D" + ThreadCheck.PROPERTY + "=true");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), output);
        assertEquals(0, p.exitValue(), output);
        List<String> lines = new ArrayList<>(List.of(output.split("\n")));
        assertTrue(lines.contains("checked true"), output);
        assertTrue(lines.contains("writer refused at its first write, pipe untouched"), output);
        assertTrue(lines.contains("readers: refused, no other exception, no item lost or doubled"), output);
    }
}
