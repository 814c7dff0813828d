package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.WaitPolicy;
import org.ysuite.YPipe;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress races of {@link org.ysuite.YPipe}, one nested test per race (run one with
 * {@code -t YPipeRaces.Name}, all of them with {@code -t YPipeRaces}).
 */
public final class YPipeRaces {

    private YPipeRaces() {
    }

    /**
     * The shared setup: leaves the reader awake with nothing prefetched, so that its next empty read
     * puts it to sleep (one item written, flushed and read).
     */
    static void awakeAndEmpty(YPipe<Integer> pipe) {
        pipe.write(0);
        pipe.flush();
        pipe.read();
    }

    /** Reads until the pipe says empty (the reader ends asleep); returns the items as a {@link Seq}. */
    static int readAll(YPipe<Integer> pipe) {
        int seq = 0;
        for (Integer v; (v = pipe.read()) != null; ) {
            seq = Seq.append(seq, v);
        }
        return seq;
    }

    /**
     * YPipe with 2-item chunks: a batch of three items (crossing a chunk boundary) flushed at once,
     * racing the reader's {@code readBatch} and its transition to asleep.
     *
     * <p>One flush publishes the whole batch, so the reader sees all three or none (never a prefix);
     * a reader that ends asleep with the batch pending must have been reported by the flush.
     */
    @JCStressTest
    @Outcome(id = "1, 123, 0", expect = ACCEPTABLE, desc = "reader awake: took the whole batch")
    @Outcome(id = "0, 0, 123", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal")
    @Outcome(id = "1, 0, 123", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, batch pending, flush said awake")
    @Outcome(expect = FORBIDDEN, desc = "part of a flush seen, items lost, duplicated or reordered")
    @State
    public static class BatchAcrossChunks {

        private final YPipe<Integer> pipe = new YPipe<>(2);
        private int seq;
        private int after;

        /** Reader awake, nothing prefetched, the write position at a chunk's second slot. */
        public BatchAcrossChunks() {
            awakeAndEmpty(pipe);
        }

        @Actor
        public void writer(III_Result r) {
            pipe.write(1);
            pipe.write(2);
            pipe.write(3);
            r.r1 = pipe.flush() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            while (pipe.readBatch(v -> seq = Seq.append(seq, v)) > 0) {
                // drain until the pipe reports empty: the reader ends asleep
            }
            r.r2 = seq;
        }

        @Arbiter
        public void afterWakeUp(III_Result r) {
            while (pipe.readBatch(v -> after = Seq.append(after, v)) > 0) {
                // drain what the wake-up was owed for
            }
            r.r3 = after;
        }
    }

    /**
     * YPipe: the writer's flush racing the reader's transition to asleep (check_read's CAS of
     * {@code c} to the sentinel).
     *
     * <p>The reader does not spin ({@link WaitPolicy#purePark()}): its first empty look swaps in
     * the sentinel. {@link YPipeRaces.FlushVsSpinningSleep} races the spin that comes before it.
     *
     * <p>The pipe starts with the reader awake and nothing left to read. The writer writes one item
     * and flushes (r1 = 1 if flush said "reader awake", 0 if it said "asleep: signal it"). The reader
     * reads until it gets null, i.e. it ends asleep (r2 = the items it got). The arbiter is the reader
     * after the wake-up a false flush owes it (r3 = what is left). The lost wake-up is r1 = 1 (no
     * signal) with r3 != 0 (an item pending behind a sleeping reader).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "reader awake: it took the item; no signal owed")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal; the item waits for it")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, item pending, flush said awake")
    @Outcome(expect = FORBIDDEN, desc = "item lost, duplicated, or a spurious 'asleep'")
    @State
    public static class FlushVsSleep {

        private final YPipe<Integer> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());

        /** Leaves the reader awake with nothing prefetched: the next empty read puts it to sleep. */
        public FlushVsSleep() {
            awakeAndEmpty(pipe);
        }

        @Actor
        public void writer(III_Result r) {
            pipe.write(1);
            r.r1 = pipe.flush() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            r.r2 = readAll(pipe);
        }

        @Arbiter
        public void afterWakeUp(III_Result r) {
            r.r3 = readAll(pipe);
        }
    }

    /**
     * YPipe: the writer's flush racing a reader that spins on loads of {@code c} before it swaps in
     * the sentinel (the reader's {@link WaitPolicy}).
     *
     * <p>While the reader spins, {@code c} is not the sentinel, so a flush that lands then succeeds
     * (no signal) and the reader must see its item through its acquire load alone; a flush that lands
     * after the spin's last look either is seen by the CAS or finds the sentinel and owes a signal.
     * Same outcomes as {@link YPipeRaces.FlushVsSleep}: writer r1 (1 = flush said "awake"), reader r2
     * (items read until null), arbiter r3 (what is left after the owed wake-up).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "reader awake: it took the item; no signal owed")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal; the item waits for it")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, item pending, flush said awake")
    @Outcome(expect = FORBIDDEN, desc = "item lost, duplicated, or a spurious 'asleep'")
    @State
    public static class FlushVsSpinningSleep {

        /** A few rounds: the writer lands inside the spin in some samples, after it in others. */
        private static final int SPINS = 3;

        private final YPipe<Integer> pipe =
                new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.spinThenPark(SPINS));

        /** Leaves the reader awake with nothing prefetched: the next empty read puts it to sleep. */
        public FlushVsSpinningSleep() {
            awakeAndEmpty(pipe);
        }

        @Actor
        public void writer(III_Result r) {
            pipe.write(1);
            r.r1 = pipe.flush() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            r.r2 = readAll(pipe);
        }

        @Arbiter
        public void afterWakeUp(III_Result r) {
            r.r3 = readAll(pipe);
        }
    }

    /**
     * YPipe: the writer's flush racing a reader that first looks without sleeping
     * ({@code readBatchAwake}, as {@code LoopMailbox}'s drain does one turn later) and then reads
     * until it sleeps. The awake look leaves {@code c} alone, so a flush before the sleeping CAS
     * succeeds and that CAS (or a later read) must take its item. Same outcomes as
     * {@link YPipeRaces.FlushVsSleep}: writer r1 (1 = flush said "awake"), reader r2 (items taken
     * by both looks), arbiter r3 (what is left after the owed wake-up).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "reader awake: one of its looks took the item; no signal owed")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal; the item waits for it")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, item pending, flush said awake")
    @Outcome(expect = FORBIDDEN, desc = "item lost, duplicated, or a spurious 'asleep'")
    @State
    public static class FlushVsAwakeLookThenSleep {

        private final YPipe<Integer> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());
        private int seq;

        /** Leaves the reader awake with nothing prefetched. */
        public FlushVsAwakeLookThenSleep() {
            awakeAndEmpty(pipe);
        }

        @Actor
        public void writer(III_Result r) {
            pipe.write(1);
            r.r1 = pipe.flush() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            pipe.readBatchAwake(v -> seq = Seq.append(seq, v));
            for (Integer v; (v = pipe.read()) != null; ) {
                seq = Seq.append(seq, v);
            }
            r.r2 = seq;
        }

        @Arbiter
        public void afterWakeUp(III_Result r) {
            r.r3 = readAll(pipe);
        }
    }

    /**
     * YPipe: a three-part message (two incomplete parts, then the last) with a flush between the
     * parts, racing the reader. Incomplete items are never flushed, so the reader sees the whole
     * message or nothing — a consumer seeing "1" or "12" has seen a half-written message.
     *
     * <p>r1 = flush results as two digits (the mid-message flush has nothing complete to publish and
     * must say "awake"), r2 = what the reader took before ending asleep, r3 = what is left for the
     * wake-up.
     */
    @JCStressTest
    @Outcome(id = "11, 123, 0", expect = ACCEPTABLE, desc = "reader took the whole message")
    @Outcome(id = "10, 0, 123", expect = ACCEPTABLE, desc = "reader asleep: the final flush owes the signal")
    @Outcome(id = "11, 0, 123", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, message pending, no flush said asleep")
    @Outcome(expect = FORBIDDEN, desc = "half-written message seen, parts lost or duplicated, or a flush of nothing said asleep")
    @State
    public static class MultipartNoHalfMessage {

        private final YPipe<Integer> pipe = new YPipe<>(2);
        private int seq;
        private int after;

        /** Reader awake with nothing prefetched. */
        public MultipartNoHalfMessage() {
            awakeAndEmpty(pipe);
        }

        @Actor
        public void writer(III_Result r) {
            pipe.write(1, true);
            int f1 = pipe.flush() ? 1 : 0;
            pipe.write(2, true);
            pipe.write(3, false);
            int f2 = pipe.flush() ? 1 : 0;
            r.r1 = f1 * 10 + f2;
        }

        @Actor
        public void reader(III_Result r) {
            while (pipe.readBatch(v -> seq = Seq.append(seq, v)) > 0) {
                // until empty: the reader ends asleep
            }
            r.r2 = seq;
        }

        @Arbiter
        public void afterWakeUp(III_Result r) {
            while (pipe.readBatch(v -> after = Seq.append(after, v)) > 0) {
                // what the wake-up was owed for
            }
            r.r3 = after;
        }
    }

    /**
     * YPipe: write / flush / write / unwrite / write / flush, racing the reader. The unwritten item
     * (2) must never reach the reader, and the reader that ends asleep with items pending must have
     * been reported by one of the flushes.
     *
     * <p>r1 = the two flush results as two decimal digits (first flush tens: "1" is 01), r2 = what the reader took before ending asleep, r3 =
     * what is left for the wake-up, r4 = what unwrite returned (must be 2).
     */
    @JCStressTest
    @Outcome(id = "11, 13, 0, 2", expect = ACCEPTABLE, desc = "reader awake throughout: took both items")
    @Outcome(id = "10, 1, 3, 2", expect = ACCEPTABLE, desc = "reader took 1 and slept; the second flush owes the signal")
    @Outcome(id = "1, 0, 13, 2", expect = ACCEPTABLE, desc = "reader asleep first; the first flush owes the signal")
    @Outcome(id = {"11, 1, 3, 2", "11, 0, 13, 2"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, items pending, no flush said asleep")
    @Outcome(expect = FORBIDDEN, desc = "unwritten item seen, items lost, duplicated or reordered, or a wrong unwrite")
    @State
    public static class UnwriteFlush {

        private final YPipe<Integer> pipe = new YPipe<>(2);
        private int seq;
        private int after;

        /** Reader awake with nothing prefetched. */
        public UnwriteFlush() {
            awakeAndEmpty(pipe);
        }

        @Actor
        public void writer(IIII_Result r) {
            pipe.write(1);
            int f1 = pipe.flush() ? 1 : 0;
            pipe.write(2);
            Integer u = pipe.unwrite();
            pipe.write(3);
            int f2 = pipe.flush() ? 1 : 0;
            r.r1 = f1 * 10 + f2;
            r.r4 = u == null ? -1 : u;
        }

        @Actor
        public void reader(IIII_Result r) {
            while (pipe.readBatch(v -> seq = Seq.append(seq, v)) > 0) {
                // until empty: the reader ends asleep
            }
            r.r2 = seq;
        }

        @Arbiter
        public void afterWakeUp(IIII_Result r) {
            while (pipe.readBatch(v -> after = Seq.append(after, v)) > 0) {
                // what the wake-up was owed for
            }
            r.r3 = after;
        }
    }
}
