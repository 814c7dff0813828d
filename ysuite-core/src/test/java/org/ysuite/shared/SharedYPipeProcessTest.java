package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.ysuite.MessageHandler;

/**
 * {@link SharedYPipe} between this JVM (the reader) and child JVMs ({@link SharedPipeChild}, the
 * writer): a long checked exchange, and writers killed with {@code kill -9} at random moments.
 *
 * <p>System properties: {@code ysuite.shared.count} (messages of the exchange, default
 * {@value #DEFAULT_COUNT}; the 10^7: {@code -Dysuite.shared.count=10000000}),
 * {@code ysuite.shared.killRounds} (default {@value #DEFAULT_KILL_ROUNDS}; one writer JVM started
 * per round). The build sets both (ysuite-core's pom: CI's sizes).
 */
class SharedYPipeProcessTest extends SharedPipeFileFixture {

    static final long DEFAULT_COUNT = 10_000_000;
    static final int DEFAULT_KILL_ROUNDS = 100;
    /** The reader's peer check. */
    static final long PEER_CHECK_MS = 100;
    /** A dead writer must be reported within the peer check and this (a loaded 2-CPU machine). */
    static final long MARGIN_MS = 5_000;
    static final int MAX_LENGTH = 2000;
    /** The longest a live writer may leave the reader without a message. */
    static final long WAIT_SECONDS = 30;

    /** The reader: checks every message is whole (CRC32C) and the next in sequence. */
    static final class CheckingReader {
        final SharedPipeReader in;
        final CRC32C crc = new CRC32C();
        long next;
        private final MessageHandler check = (b, off, len) -> {
            long seq = SharedMessages.check(b, off, len, crc);
            if (seq != next) {
                throw new AssertionError("message " + seq + " where " + next + " was expected");
            }
            next++;
        };

        CheckingReader(SharedPipeReader in) {
            this.in = in;
        }

        /** Reads one batch, checking it; returns how many messages it had. */
        int readBatchOnce() {
            return in.readBatch(check);
        }

        /** Reads until {@code until} messages in all; false if the stream ended cleanly first. */
        boolean readUntil(long until) throws Exception {
            while (next < until) {
                if (!in.awaitMessage(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    assertTrue(in.isEndOfStream(), "no message for " + WAIT_SECONDS + " s at " + next);
                    return false;
                }
                in.readBatch(check);
            }
            return true;
        }

        /** Reads everything to the writer's death; returns ms from {@code killedAt} to the exception. */
        long readToPeerGone(long killedAt) throws Exception {
            try {
                for (;;) {
                    long left = PEER_CHECK_MS + MARGIN_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                    assertTrue(in.awaitMessage(Math.max(0, left), TimeUnit.MILLISECONDS),
                            "no PeerGoneException within " + (PEER_CHECK_MS + MARGIN_MS) + " ms of the kill"
                            + " (end of stream: " + in.isEndOfStream() + ")");
                    in.readBatch(check);
                }
            } catch (PeerGoneException e) {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            }
        }
    }

    /** Starts a child writer and waits for its OPEN line. */
    private Process writer(long first, long count, long seed, boolean quick) throws Exception {
        Process p = SharedPipeChild.start(quick, file.toString(), String.valueOf(first), String.valueOf(count),
                String.valueOf(seed), String.valueOf(MAX_LENGTH));
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine(); // the child prints OPEN or dies (EOF): no hang
        if (!"OPEN".equals(line)) {
            end(p);
            throw new AssertionError("the writer JVM did not open the pipe: " + line);
        }
        return p;
    }

    /**
     * Kills the child if it still runs and closes our ends of its pipes at once (left to the GC,
     * their descriptors would close at random moments, under other tests that count descriptors).
     */
    private static void end(Process p) throws IOException {
        p.destroyForcibly();
        p.getInputStream().close();
        p.getOutputStream().close();
    }

    /** A pipe whose writer side is closed, and its reader. */
    private SharedPipeReader newPipeAndReader(int capacity) throws IOException {
        SharedYPipe.createWriter(file, capacity).close();
        return SharedYPipe.builder(file).peerCheck(PEER_CHECK_MS, TimeUnit.MILLISECONDS).openReader();
    }

    @Test
    void twoJvmsExchangeCheckedMessagesOfRandomSizes() throws Exception {
        long count = Long.getLong("ysuite.shared.count", DEFAULT_COUNT);
        try (SharedPipeReader in = newPipeAndReader(1 << 16)) {
            CheckingReader reader = new CheckingReader(in);
            long start = System.nanoTime();
            Process p = writer(0, count, 1, false);
            try {
                assertTrue(reader.readUntil(count));
                assertFalse(in.awaitMessage(), "the writer closed after its messages");
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, p.exitValue());
            } finally {
                end(p);
            }
            System.out.printf("SharedYPipeProcessTest: %d messages between two JVMs in %d ms%n", count,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            assertEquals(count, reader.next);
        }
    }

    @Test
    void aKilledWriterIsPeerGoneAfterItsFlushedMessagesAndARestartedOneContinues() throws Exception {
        try (SharedPipeReader in = newPipeAndReader(1 << 14)) {
            CheckingReader reader = new CheckingReader(in);
            Process p = writer(0, -1, 2, true);
            long killedAt;
            try {
                assertTrue(reader.readUntil(5000));
                killedAt = System.nanoTime();
                p.destroyForcibly();
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            } finally {
                end(p);
            }
            long ms = reader.readToPeerGone(killedAt);
            assertTrue(ms <= PEER_CHECK_MS + MARGIN_MS, "PeerGoneException came " + ms + " ms after the kill");
            assertThrows(PeerGoneException.class, () -> in.awaitMessage(), "still gone");
            long next = reader.next;
            Process again = writer(next, 1000, 3, true);
            try {
                assertTrue(reader.readUntil(next + 1000));
                assertFalse(in.awaitMessage(), "the restarted writer closed cleanly");
                assertTrue(again.waitFor(30, TimeUnit.SECONDS));
            } finally {
                end(again);
            }
        }
    }

    @Test
    void writersKilledAtRandomMomentsLoseNoFlushedMessageAndTearNone() throws Exception {
        int rounds = Integer.getInteger("ysuite.shared.killRounds", DEFAULT_KILL_ROUNDS);
        SplittableRandom random = new SplittableRandom(99);
        long worst = 0;
        try (SharedPipeReader in = newPipeAndReader(1 << 13)) {
            CheckingReader reader = new CheckingReader(in);
            for (int round = 0; round < rounds; round++) {
                Process p = writer(reader.next, -1, 100 + round, true);
                try {
                    // A random moment: after 0 to 3000 more messages (the writer is mid-stream).
                    assertTrue(reader.readUntil(reader.next + random.nextInt(3000)));
                    long killedAt = System.nanoTime();
                    p.destroyForcibly();
                    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                    long ms = reader.readToPeerGone(killedAt);
                    worst = Math.max(worst, ms);
                    assertTrue(ms <= PEER_CHECK_MS + MARGIN_MS,
                            "round " + round + ": PeerGoneException came " + ms + " ms after the kill");
                } finally {
                    end(p);
                }
            }
            System.out.printf("SharedYPipeProcessTest: %d kill rounds, %d messages, slowest PeerGoneException"
                    + " %d ms after the kill%n", rounds, reader.next, worst);
        }
    }
}
