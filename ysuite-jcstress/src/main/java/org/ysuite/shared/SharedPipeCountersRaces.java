package org.ysuite.shared;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;
import org.ysuite.internal.CheckedRecordRing;
import org.ysuite.internal.RecordDescriptor;
import org.ysuite.internal.SharedPipeCounters;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * {@link SharedYPipe}'s message counts ({@link SharedPipeCounters}): derived by a snapshot (a
 * side's {@code stats()}, or the stat tool, {@code SharedPipeStat}, in another process) from the writer's anchor
 * (a count at a flushed position, moved under a seqlock), {@code head}, {@code c} and a walk of
 * the records between them. Two invariants: a snapshot never counts a record the writer rewrote
 * after moving the anchor (the seqlock), and never sees more messages consumed than flushed (it
 * loads {@code head} before {@code c}).
 *
 * <p>The steps are the pipe's own, on a zeroed slot of a memory-mapped file laid out as the pipe
 * file (the header's words at their offsets, then a ring of 256 bytes): the real
 * {@link SharedPipeCounters#anchor} and {@link SharedPipeCounters#read}, {@link SharedWords}'s
 * stores and loads of {@code c} and {@code head}, and record headers stored as the writer stores
 * them (plain, before the flush's volatile store of {@code c}). In package {@code org.ysuite}
 * because these classes are package-private (the races run on the class path, where a split
 * package is fine).
 */
public final class SharedPipeCountersRaces {

    /** The ring's capacity (the smallest a pipe has). */
    static final int CAPACITY = 256;

    /** Slots of the header and the ring. */
    static final MappedSlots SLOTS = new MappedSlots(SharedPipeDescriptor.HEADER_SIZE + CAPACITY, 1 << 14);

    private SharedPipeCountersRaces() {
    }

    /** A slot: the header, the ring's bytes and the checked ring over them, and the writer's counters. */
    abstract static class Base {
        final ByteBuffer shared = SLOTS.next();
        final ByteBuffer ringBytes = shared.slice(SharedPipeDescriptor.HEADER_SIZE, CAPACITY)
                .order(java.nio.ByteOrder.nativeOrder());
        final CheckedRecordRing ring = new CheckedRecordRing(ringBytes, "race");
        final SharedPipeCounters writerCounters = new SharedPipeCounters(shared);

        /** A record of a {@code length}-byte message at ring offset {@code at} (its header; plain). */
        void record(int at, int length) {
            ringBytes.putInt(at, RecordDescriptor.header(length, false));
        }

        void publish(int at, long position) {
            SharedWords.publish(shared, at, position);
        }
    }

    /**
     * The writer moves its anchor and then rewrites a consumed record, racing a snapshot's walk.
     * Before: two 4-byte messages flushed and consumed (records at 0 and 8, {@code c} = {@code
     * head} = 16), the anchor at (count 0, position 0). The writer, having read head 16, anchors
     * (count 2, position 16) and writes the next lap's first record over ring offset 0: a 12-byte
     * message, whose record covers both old ones (not flushed: {@code c} stays 16). r1, r2 = the
     * snapshot's flushed and consumed.
     *
     * <p>Acceptable: "2, 2" (the old anchor and records, or the new anchor); "0, 0", rare, the
     * snapshot's fallback when the writer was preempted between its anchor's odd and even
     * sequence through all of the snapshot's attempts (the anchor's count alone). Forbidden: "1, 1", a
     * walk from the old anchor that read the rewritten header and still passed the seqlock: the
     * writer writing before its anchor's odd sequence and fence, or a snapshot that does not load
     * the sequence again after its walk (behind a load-load fence).
     */
    @JCStressTest
    @Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "the old anchor and records, or the new anchor")
    @Outcome(id = "0, 0", expect = ACCEPTABLE_INTERESTING, desc = "the writer stopped inside its anchor through every attempt: the count alone")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "LOST A MESSAGE: walked a record rewritten after the anchor moved")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class ReanchorVsWalk extends Base {
        public ReanchorVsWalk() {
            record(0, 4);
            record(8, 4);
            publish(SharedPipeDescriptor.C_AT, 16);
            publish(SharedPipeDescriptor.HEAD_AT, 16);
        }

        @Actor
        public void writer() {
            writerCounters.anchor(2, 16);
            record(0, 12); // position 256: the next lap, under head 16 + capacity
        }

        @Actor
        public void snapshot(JJ_Result r) {
            SharedPipeCounters.Values v = SharedPipeCounters.read(shared, ring);
            r.r1 = v.flushed;
            r.r2 = v.consumed;
        }
    }

    /** The writer's flush of one 4-byte message (its record at 0, then c = 8); the reader's read of it. */
    abstract static class FlushAndRead extends Base {
        void flush() {
            record(0, 4);
            publish(SharedPipeDescriptor.C_AT, 8);
        }

        /** 1 if the reader found the message (and published head past it), else 0. */
        int read() {
            if (SharedWords.position(shared, SharedPipeDescriptor.C_AT) != 8) {
                return 0;
            }
            publish(SharedPipeDescriptor.HEAD_AT, 8);
            return 1;
        }

        /** A snapshot's flushed into r2 and consumed into r3. */
        void snapshot(III_Result r) {
            SharedPipeCounters.Values v = SharedPipeCounters.read(shared, ring);
            r.r2 = (int) v.flushed;
            r.r3 = (int) v.consumed;
        }
    }

    /**
     * The writer's flush racing the reader, which reads the message if it is there and then takes
     * a snapshot on its own thread. r1 = 1 if the reader consumed the message; r2, r3 = the
     * snapshot's flushed and consumed. Forbidden: "1, 0, 1" (a negative depth), and "1, 1, 0" or
     * "1, 0, 0": the reader's own snapshot missing what it consumed.
     */
    @JCStressTest
    @Outcome(id = {"0, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "the reader looked before the flush")
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the reader consumed the message; the snapshot counts it")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "NEGATIVE DEPTH: consumed 1, flushed 0")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class FlushVsConsumeThenStat extends FlushAndRead {
        @Actor
        public void writer() {
            flush();
        }

        @Actor
        public void reader(III_Result r) {
            r.r1 = read();
            snapshot(r);
        }
    }

    /**
     * The whole chain on three threads: the writer's flush, the reader's read, a snapshot
     * (SharedPipeStat in another process). Forbidden: "1, 0, 1", consumed but not flushed: a
     * snapshot that loads {@code c} before {@code head}, or a record header not stored before
     * {@code c}. Needs three CPUs (run.sh skips it on fewer).
     */
    @JCStressTest
    @Outcome(id = {"0, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "the reader looked before the flush")
    @Outcome(id = {"1, 0, 0", "1, 1, 0"}, expect = ACCEPTABLE, desc = "the reader consumed it; the snapshot came before its head")
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the snapshot saw the message flushed and consumed")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "NEGATIVE DEPTH: consumed 1, flushed 0")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class FlushConsumeVsStatThreeActors extends FlushAndRead {
        @Actor
        public void writer() {
            flush();
        }

        @Actor
        public void reader(III_Result r) {
            r.r1 = read();
        }

        @Actor
        public void stat(III_Result r) {
            snapshot(r);
        }
    }
}
