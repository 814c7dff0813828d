package org.ysuite;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The order of {@link SharedYPipe}'s message counters in its file's header
 * ({@link SharedPipeCounters}): {@code flushed}, stored by the writer's flush, and
 * {@code consumed}, stored by the reader after a read, against a snapshot that reads both (a
 * side's {@code stats()}, or {@link SharedPipeStat} in another process). The invariant: a snapshot
 * never sees more messages consumed than flushed, so an honest file never shows a negative depth
 * ({@code flushed - consumed}; {@code PipeStats} clamps it anyway, for a hostile file).
 *
 * <p>The steps are the pipe's own, on a zeroed slot of a memory-mapped file laid out as the pipe
 * file's header ({@code c} at 128, {@code head} at 256, {@code flushed} at 1024, {@code consumed}
 * at 1152): the writer's flush of one message, as {@code SharedPipeWriter.flushPositions} does it,
 * the real {@link SharedPipeCounters#storeFlushed} (opaque) and then {@link SharedWords#publish} of
 * {@code c} (a volatile store); the reader's read, as {@code SharedPipeReader.read} and
 * {@code leaveReader} do it, {@link SharedWords#position} of {@code c} (acquire) and, if it found
 * the message, {@code publish} of {@code head} and the real {@link SharedPipeCounters#storeConsumed}
 * (release); the snapshot, the real {@link SharedPipeCounters#read}: {@code consumed} with acquire,
 * then {@code flushed}. In package {@code org.ysuite} because these classes are package-private
 * (the races run on the class path, where a split package is fine).
 *
 * <p>Why it holds: the store of {@code flushed} precedes, in the writer's program order, the
 * volatile store of {@code c}, which is a release; the reader's acquire load that sees {@code c}
 * therefore sees {@code flushed} too, and its release store of {@code consumed} comes after that
 * load; a snapshot whose acquire load sees that {@code consumed} sees everything before the release,
 * the writer's {@code flushed} included (release/acquire is transitive through the reader), and
 * it loads {@code flushed} after {@code consumed}.
 */
public final class SharedPipeCountersRaces {

    /** The end of the one flushed message (a position of c and head). */
    static final long F = 16;

    /** Slots of 2048 bytes: the header's words and both counter blocks (up to 1176). */
    static final MappedSlots SLOTS = new MappedSlots(2048, 1 << 14);

    private SharedPipeCountersRaces() {
    }

    /** A slot, each side's counters over it, and the steps of a flush, a read and a snapshot. */
    abstract static class Base {
        final ByteBuffer shared = SLOTS.next();
        final SharedPipeCounters writerCounters = new SharedPipeCounters(shared);
        final SharedPipeCounters readerCounters = new SharedPipeCounters(shared);

        /** The writer's flush of its first message: flushed, then c. */
        void flush() {
            writerCounters.storeFlushed(1);
            SharedWords.publish(shared, SharedPipeDescriptor.C_AT, F);
        }

        /** The reader's read: 1 if it found the message (and stored head, then consumed), else 0. */
        int read() {
            if (SharedWords.position(shared, SharedPipeDescriptor.C_AT) != F) {
                return 0;
            }
            SharedWords.publish(shared, SharedPipeDescriptor.HEAD_AT, F);
            readerCounters.storeConsumed(1);
            return 1;
        }

        /** A snapshot of the file's counters into r2 (flushed) and r3 (consumed). */
        void snapshot(III_Result r) {
            SharedPipeCounters.Values v = SharedPipeCounters.read(shared);
            r.r2 = (int) v.flushed;
            r.r3 = (int) v.consumed;
        }
    }

    /**
     * The writer's flush of one message racing the reader, which reads it if it is there and
     * then takes its side's {@code stats()} (the snapshot, on the reader's thread). r1 = 1 if the
     * reader consumed the message; r2, r3 = the snapshot's flushed and consumed.
     *
     * <p>Acceptable: the reader found nothing (its snapshot sees flushed 0 or 1, consumed 0), or
     * consumed the message and its snapshot sees flushed 1, consumed 1. Forbidden: "1, 0, 1", a
     * snapshot with the message consumed but not flushed (a negative depth): the writer's
     * {@code flushed} not ordered before {@code c}. The snapshot's own order needs another
     * thread: {@link FlushConsumeVsStatThreeActors}.
     */
    @JCStressTest
    @Outcome(id = {"0, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "the reader looked before the flush")
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the reader consumed the message; the snapshot counts it flushed")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "NEGATIVE DEPTH: consumed 1, flushed 0")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class FlushVsConsumeThenStat extends Base {
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
     * The whole chain: the writer's flush, the reader's read, and a snapshot on a third thread
     * (SharedPipeStat in another process). r1 = 1 if the reader consumed the message; r2, r3 =
     * the snapshot's flushed and consumed.
     *
     * <p>Acceptable: any snapshot with consumed &le; flushed. Forbidden: "1, 0, 1", the
     * snapshot saw the message consumed but not flushed (a negative depth): the snapshot loading
     * {@code flushed} before {@code consumed}, or {@code consumed} stored or loaded without
     * release/acquire, or {@code flushed} not before {@code c}. Needs three CPUs (run.sh skips it
     * on fewer).
     */
    @JCStressTest
    @Outcome(id = {"0, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "the reader looked before the flush")
    @Outcome(id = {"1, 0, 0", "1, 1, 0"}, expect = ACCEPTABLE, desc = "the reader consumed it; the snapshot came before its count")
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the snapshot saw the message flushed and consumed")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "NEGATIVE DEPTH: consumed 1, flushed 0")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class FlushConsumeVsStatThreeActors extends Base {
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
