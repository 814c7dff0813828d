package org.ysuite.jcstress;

import java.nio.ByteBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress races of {@link org.ysuite.OffHeapYPipe}, one nested test per race (run one with
 * {@code -t OffHeapYPipeRaces.Name}, all of them with {@code -t OffHeapYPipeRaces}).
 */
public final class OffHeapYPipeRaces {

    private OffHeapYPipeRaces() {
    }

    /** Reads into {@code dst} until the pipe says empty; returns the messages as a {@link Seq}. */
    static int readAll(OffHeapYPipe pipe, byte[] dst) {
        int seq = 0;
        for (int n; (n = pipe.read(dst)) >= 0; ) {
            seq = Seq.append(seq, Seq.decode(dst, n));
        }
        return seq;
    }

    /**
     * OffHeapYPipe zero-copy path: the writer claims a record, fills it byte by byte in the ring,
     * commits and flushes, racing the reader's {@code readBatch} (which hands out views into the
     * ring). The consumer must see the whole message or none: a view with a stale byte (9) is a
     * half-written message, and the flush's answer must cover a reader that ended asleep.
     */
    @JCStressTest
    @Outcome(id = "1, 4, 0", expect = ACCEPTABLE, desc = "reader awake: got the whole message")
    @Outcome(id = "0, 0, 4", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal")
    @Outcome(id = "1, 0, 4", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, message pending, flush said awake")
    @Outcome(expect = FORBIDDEN, desc = "HALF-WRITTEN message seen (9), or lost or duplicated")
    @State
    public static class ClaimCommitNoHalfMessage {

        private final OffHeapYPipe pipe = new OffHeapYPipe(256);
        private int seq;
        private int after;

        /** Reader awake with nothing prefetched; the ring's bytes are dirty (a stale message). */
        public ClaimCommitNoHalfMessage() {
            pipe.write(new byte[12]);
            pipe.flush();
            pipe.read(new byte[12]);
        }

        @Actor
        public void writer(III_Result r) {
            int length = 12; // message 4
            int at = pipe.claim(length);
            ByteBuffer ring = pipe.claimBuffer();
            for (int i = 0; i < length; i++) {
                ring.put(at + i, (byte) 4);
            }
            pipe.commit(false);
            r.r1 = pipe.flush() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            while (pipe.readBatch((buf, off, len) -> seq = Seq.append(seq, Seq.decode(buf, off, len))) > 0) {
                // until empty: the reader ends asleep
            }
            r.r2 = seq;
        }

        @Arbiter
        public void afterWakeUp(III_Result r) {
            while (pipe.readBatch((buf, off, len) -> after = Seq.append(after, Seq.decode(buf, off, len))) > 0) {
                // what the wake-up was owed for
            }
            r.r3 = after;
            pipe.close();
        }
    }

    /**
     * OffHeapYPipe: the writer's flush racing the reader's transition to asleep, with the message
     * wrapping around the ring's end (the writer writes a padding record first, which the reader
     * must skip in the same check).
     *
     * <p>r1 = 1 if flush said "reader awake", r2 = messages the reader got before ending asleep
     * (read returning -1), r3 = what is left for the wake-up the flush owes. Each message is checked
     * byte by byte: 9 is a torn message.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "reader awake: it took the message")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, message pending, flush said awake")
    @Outcome(expect = FORBIDDEN, desc = "message torn, lost or duplicated")
    @State
    public static class FlushVsSleep {

        private static final byte[] FILLER = new byte[100];
        private static final byte[] MESSAGE = Seq.message(1);

        private final OffHeapYPipe pipe = new OffHeapYPipe(256);
        private final byte[] dst = new byte[128];

        /**
         * Moves the ring's write position to byte 208 (two 104-byte records written and read), so the
         * 16-byte record of the race's message does not fit before the end; leaves the reader awake.
         */
        public FlushVsSleep() {
            pipe.write(FILLER);
            pipe.write(FILLER);
            pipe.flush();
            pipe.read(dst);
            pipe.read(dst);
        }

        @Actor
        public void writer(III_Result r) {
            pipe.write(MESSAGE);
            r.r1 = pipe.flush() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            r.r2 = readAll(pipe, dst);
        }

        @Arbiter
        public void afterWakeUp(III_Result r) {
            r.r3 = readAll(pipe, dst);
            pipe.close();
        }
    }

    /**
     * OffHeapYPipe full ring (pure park): a writer that finds the ring full and goes to sleep in
     * {@code awaitSpace} (raises its flag, parks) racing the reader that frees space (publishes its
     * head, looks at the flag). Forbidden: both asleep — the writer still parked after
     * {@link Seq#SLOW_MS} although the reader freed the space (r3 = 1), or its wait timing out.
     *
     * <p>r1 = 1 if the first write found room (the reader was first), r2 = awaitSpace's answer (1 if
     * it was not needed), r3 = 1 if the writer slept through the wake-up, r4 = what the reader got.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0, 7", expect = ACCEPTABLE, desc = "reader freed space first: the write fit at once")
    @Outcome(id = "0, 1, 0, 7", expect = ACCEPTABLE, desc = "writer waited for space and was woken")
    @Outcome(id = {"0, 1, 1, 7", "0, 0, 1, 7"}, expect = FORBIDDEN, desc = "BOTH ASLEEP: the writer slept through the space the reader freed")
    @Outcome(expect = FORBIDDEN, desc = "the reader lost or tore the message, or the writer failed")
    @State
    public static class FullRingWriterVsReader {

        private static final byte[] FULL = Seq.message(7); // 15 bytes: 8 bytes of header and padding
        private static final byte[] MESSAGE = Seq.message(3);

        private final OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.defaultPolicy(), WaitPolicy.purePark());
        private final byte[] dst = new byte[16];

        /** Fills the ring with flushed 24-byte records of message 7, the reader awake. */
        public FullRingWriterVsReader() {
            pipe.write(FULL);
            pipe.flush();
            pipe.read(dst);
            while (pipe.write(FULL)) {
                // until the ring is full
            }
            pipe.flush();
        }

        @Actor
        public void writer(IIII_Result r) {
            if (pipe.write(MESSAGE)) {
                r.r1 = 1;
                r.r2 = 1;
                return;
            }
            long start = System.nanoTime();
            try {
                r.r2 = pipe.awaitSpace(MESSAGE.length, Seq.TIMEOUT_MS, Seq.UNIT) ? 1 : 0;
            } catch (InterruptedException e) {
                r.r2 = -1;
            }
            r.r3 = Seq.slow(start);
        }

        @Actor
        public void reader(IIII_Result r) {
            int n = pipe.read(dst);
            r.r4 = Seq.decode(dst, n);
        }

        @Arbiter
        public void close(IIII_Result r) {
            pipe.close();
        }
    }

    /**
     * OffHeapYPipe: write / unwrite / multipart interleavings racing the reader. The writer writes
     * message 5, takes it back, writes a two-part message (1 incomplete, a flush that must publish
     * nothing, then 2), and flushes. The reader must never see 5, never part 1 without part 2, and a
     * reader that ended asleep with parts pending must be covered by a flush that said so.
     *
     * <p>r1 = flush results as two digits, r2 = the reader's sequence, r3 = what is left for the
     * wake-up, r4 = 1 if unwrite took the message back.
     */
    @JCStressTest
    @Outcome(id = "11, 12, 0, 1", expect = ACCEPTABLE, desc = "reader awake: took both parts")
    @Outcome(id = "10, 0, 12, 1", expect = ACCEPTABLE, desc = "reader asleep: the final flush owes the signal")
    @Outcome(id = "11, 0, 12, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, message pending, no flush said asleep")
    @Outcome(expect = FORBIDDEN, desc = "unwritten message or a half message seen, or parts lost or duplicated")
    @State
    public static class MultipartUnwrite {

        private static final byte[] M1 = Seq.message(1);
        private static final byte[] M2 = Seq.message(2);
        private static final byte[] M5 = Seq.message(5);

        private final OffHeapYPipe pipe = new OffHeapYPipe(256);
        private int seq;
        private int after;

        /** Reader awake with nothing prefetched. */
        public MultipartUnwrite() {
            pipe.write(new byte[8]);
            pipe.flush();
            pipe.read(new byte[8]);
        }

        @Actor
        public void writer(IIII_Result r) {
            pipe.write(M5);
            r.r4 = pipe.unwrite() ? 1 : 0;
            pipe.write(M1, 0, M1.length, true);
            int f1 = pipe.flush() ? 1 : 0;
            pipe.write(M2, 0, M2.length, false);
            int f2 = pipe.flush() ? 1 : 0;
            r.r1 = f1 * 10 + f2;
        }

        @Actor
        public void reader(IIII_Result r) {
            while (pipe.readBatch((buf, off, len) -> seq = Seq.append(seq, Seq.decode(buf, off, len))) > 0) {
                // until empty: the reader ends asleep
            }
            r.r2 = seq;
        }

        @Arbiter
        public void afterWakeUp(IIII_Result r) {
            while (pipe.readBatch((buf, off, len) -> after = Seq.append(after, Seq.decode(buf, off, len))) > 0) {
                // what the wake-up was owed for
            }
            r.r3 = after;
            pipe.close();
        }
    }
}
