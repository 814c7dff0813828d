package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import java.nio.ByteBuffer;
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * OffHeapYPipe's reader word: head, the writer's WAITING bit and the reader side's close guard in
 * one long. The reader publishes head and reads WAITING in the one RMW that leaves its side (no
 * fence); the writer sets WAITING with a CAS that expects the head it judged by; close() CASes
 * the same word. These races pit those RMWs against each other (all with a pure-park writer, so
 * the writer goes to sleep at once and every interleaving of the raise is reached).
 */
public final class OffHeapReaderWordRaces {

    private static final byte[] FULL = Seq.message(7); // 15 bytes: a 24-byte record
    private static final byte[] MESSAGE = Seq.message(3);

    private OffHeapReaderWordRaces() {
    }

    /** A pipe whose 256-byte ring is full of flushed records of message 7, the reader awake. */
    static OffHeapYPipe fullRing() {
        OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.defaultPolicy(), WaitPolicy.purePark());
        byte[] dst = new byte[16];
        pipe.write(FULL);
        pipe.flush();
        pipe.read(dst);
        while (pipe.write(FULL)) {
            // until the ring is full
        }
        pipe.flush();
        return pipe;
    }

    /** The batch races' reader: counts the records handed over, and whether one was not message 7. */
    static final class Sevens implements MessageHandler {
        int count;
        boolean torn;

        @Override
        public void onMessage(ByteBuffer buffer, int offset, int length) {
            count++;
            torn |= Seq.decode(buffer, offset, length) != 7;
        }
    }

    /**
     * The writer of the batch races: r1 = 1 if the message fit at once; else waits for space and
     * sets r2 = 1 if the wait timed out or was slow (slept through the reader's exit).
     */
    static void writeOrAwaitSpace(OffHeapYPipe pipe, III_Result r) {
        if (pipe.write(MESSAGE)) {
            r.r1 = 1;
            return;
        }
        long start = System.nanoTime();
        try {
            r.r2 = pipe.awaitSpace(MESSAGE.length, Seq.TIMEOUT_MS, Seq.UNIT) ? Seq.slow(start) : 1;
        } catch (InterruptedException e) {
            r.r2 = -1;
        }
    }

    /**
     * A writer going to sleep for space (raises WAITING, parks) racing a reader whose readBatch
     * drains the whole ring and publishes head once, in its exit. r1 = 1 if the writer's write
     * fit at once, r2 = 1 if it slept through the space freed (longer than {@link Seq#SLOW_MS}),
     * or its wait failed, r3 = 1 if the batch got every record, whole.
     */
    @JCStressTest
    @Outcome(id = {"1, 0, 1", "0, 0, 1"}, expect = ACCEPTABLE, desc = "the writer fit at once, or waited and was woken by the batch's exit")
    @Outcome(id = {"0, 1, 1", "1, 1, 1"}, expect = FORBIDDEN, desc = "BOTH ASLEEP: the batch's exit missed WAITING (or the CAS missed head)")
    @Outcome(expect = FORBIDDEN, desc = "the batch lost or tore a record")
    @State
    public static class BatchExitVsWaitingWriter {
        private final OffHeapYPipe pipe = fullRing();
        private final int records = countRecords();

        private static int countRecords() {
            return (256 - 24) / 24 + 1; // the ring's records after the first read: see fullRing
        }

        @Actor
        public void writer(III_Result r) {
            writeOrAwaitSpace(pipe, r);
        }

        @Actor
        public void reader(III_Result r) {
            Sevens got = new Sevens();
            pipe.readBatch(got);
            r.r3 = !got.torn && got.count >= records - 1 && got.count <= records ? 1 : 0;
        }

        @Arbiter
        public void close(III_Result r) {
            pipe.close();
        }
    }

    /**
     * {@link #BatchExitVsWaitingWriter} with a batch limited to two messages
     * ({@code readBatch(handler, 2)}): the limited batch leaves records in the ring and its exit is
     * the same RMW, which must see a WAITING raised while the batch ran (or the raise's CAS must see
     * its head). r1 = 1 if the write fit at once, r2 = 1 if the writer slept through the batch's exit
     * (timed out), r3 = 1 if the batch handed over one or two intact records of message 7.
     */
    @JCStressTest
    @Outcome(id = {"1, 0, 1", "0, 0, 1"}, expect = ACCEPTABLE, desc = "the writer fit at once, or waited and was woken by the limited batch's exit")
    @Outcome(id = {"0, 1, 1", "1, 1, 1"}, expect = FORBIDDEN, desc = "BOTH ASLEEP: the limited batch's exit missed WAITING (or the CAS missed head)")
    @Outcome(expect = FORBIDDEN, desc = "the limited batch lost, tore or over-read a record")
    @State
    public static class LimitedBatchExitVsWaitingWriter {
        private final OffHeapYPipe pipe = fullRing();

        @Actor
        public void writer(III_Result r) {
            writeOrAwaitSpace(pipe, r);
        }

        @Actor
        public void reader(III_Result r) {
            Sevens got = new Sevens();
            int n = pipe.readBatch(got, 2);
            r.r3 = !got.torn && n == got.count && n >= 1 && n <= 2 ? 1 : 0;
        }

        @Arbiter
        public void close(III_Result r) {
            pipe.close();
        }
    }

    /**
     * A writer going to sleep for space racing close(): close() CASes both words, then reads
     * waitingWriter; the writer writes waitingWriter, then CASes WAITING into the reader's word
     * and sees CLOSED/CLOSING in it if close() came first. r1 = 1 if awaitSpace threw "closed"
     * (2 if it returned, 3 for anything else), r2 = 1 if it slept through the close.
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the waiting writer saw the close at once")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "SLEPT THROUGH CLOSE: no unpark, and the raise missed CLOSED")
    @Outcome(expect = FORBIDDEN, desc = "awaitSpace returned or failed otherwise")
    @State
    public static class WaitingWriterVsClose {
        private final OffHeapYPipe pipe = fullRing();

        @Actor
        public void writer(II_Result r) {
            long start = System.nanoTime();
            try {
                pipe.awaitSpace(MESSAGE.length, Seq.TIMEOUT_MS, Seq.UNIT);
                r.r1 = 2;
            } catch (IllegalStateException e) {
                r.r1 = e.getMessage().contains("closed") ? 1 : 3;
            } catch (InterruptedException e) {
                r.r1 = 3;
            }
            r.r2 = Seq.slow(start);
        }

        @Actor
        public void closer() {
            pipe.close();
        }
    }

    /**
     * A read racing close() from another thread: the read's guard entry and exit against
     * close()'s CAS on the same word, the free done by whichever leaves last. r1 = the message
     * read (7), or 1 if the read threw "closed"; r2 = 1 if a read after both threw "closed".
     */
    @JCStressTest
    @Outcome(id = {"7, 1", "1, 1"}, expect = ACCEPTABLE, desc = "the read came first, or saw the close")
    @Outcome(expect = FORBIDDEN, desc = "anything else: a torn read, another exception, a live pipe after close")
    @State
    public static class ReadVsClose {
        private final OffHeapYPipe pipe = fullRing();
        private final byte[] dst = new byte[16];

        @Actor
        public void reader(II_Result r) {
            try {
                r.r1 = Seq.decode(dst, pipe.read(dst));
            } catch (IllegalStateException e) {
                r.r1 = e.getMessage().contains("closed") ? 1 : 3;
            }
        }

        @Actor
        public void closer() {
            pipe.close();
        }

        @Arbiter
        public void after(II_Result r) {
            try {
                pipe.read(dst);
                r.r2 = 0;
            } catch (IllegalStateException e) {
                r.r2 = e.getMessage().contains("closed") ? 1 : 0;
            }
        }
    }
}
