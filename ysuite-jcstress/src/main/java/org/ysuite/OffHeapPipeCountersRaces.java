package org.ysuite;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * {@link OffHeapYPipe}'s message counts, derived by a snapshot ({@code stats()}, any thread)
 * from the writer's anchor (a count at a flushed position, moved under a seqlock where the
 * writer re-reads head), head, c and a walk of the ring's records between them; and the guard
 * that keeps the ring's memory from being freed under a snapshot's walk (ringUsers). All on real
 * pipes of the smallest ring (256 bytes), through their own methods. In package
 * {@code org.ysuite}: the seams are package-private.
 */
public final class OffHeapPipeCountersRaces {

    private OffHeapPipeCountersRaces() {
    }

    /**
     * The writer re-reads head, moves its anchor and rewrites the first records of a ring lap
     * the reader is done with, racing a snapshot's walk. Before: 32 messages of 4 bytes (records
     * of 8 bytes: the whole ring) written, flushed and read (head = c = 256), the anchor still at
     * (count 0, position 0): the writer never had to re-read head. The writer's next message, 12
     * bytes at position 256, finds the ring full by its cached head 0: it reads head 256, anchors
     * (count 32, position 256) and writes one record of 16 bytes over ring offset 0, where two
     * old records were (not flushed: c stays 256). r1, r2 = the snapshot's flushed and depth.
     *
     * <p>Forbidden: "31, 0", a walk from the old anchor that read the rewritten header and still
     * passed the seqlock (a writer that rewrites before its anchor's odd sequence and fence, or
     * does not move it; a snapshot that does not load the sequence again after its walk).
     */
    @JCStressTest
    @Outcome(id = "32, 0", expect = ACCEPTABLE, desc = "the old anchor and records, or the new anchor")
    @Outcome(id = "0, 0", expect = ACCEPTABLE_INTERESTING, desc = "the writer stopped inside its anchor through every attempt: the count alone")
    @Outcome(id = "31, 0", expect = FORBIDDEN, desc = "LOST A MESSAGE: walked a record rewritten after the anchor moved")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class ReanchorVsWalk {
        final OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark());

        public ReanchorVsWalk() {
            byte[] four = new byte[4];
            for (int i = 0; i < 32; i++) {
                pipe.write(four);
            }
            pipe.flush();
            pipe.readBatch((buffer, offset, length) -> { });
        }

        @Actor
        public void writer() {
            pipe.write(new byte[12]);
        }

        @Actor
        public void snapshot(JJ_Result r) {
            PipeStats s = pipe.stats();
            r.r1 = s.messagesFlushed();
            r.r2 = s.depth();
        }

        @Arbiter
        public void close() {
            pipe.close();
        }
    }

    /**
     * close() (both sides idle: it frees the ring's memory) racing a snapshot, on a pipe holding
     * one flushed, unread message. The snapshot either walks the ring before the memory goes, or
     * finds both sides closed and reports the counts the closer took before it let the memory go.
     * r1, r2 = flushed and depth; both are 1 either way.
     *
     * <p>Forbidden: anything else, e.g. "0, 0", the counts of a closer that stores them after
     * the CAS that refuses snapshots.
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the walk, or the counts taken at the close")
    @Outcome(expect = FORBIDDEN, desc = "counts lost to the close")
    @State
    public static class CloseVsStats {
        final OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark());

        public CloseVsStats() {
            pipe.write(new byte[4]);
            pipe.flush();
        }

        @Actor
        public void closer() {
            pipe.close();
        }

        @Actor
        public void snapshot(JJ_Result r) {
            PipeStats s = pipe.stats();
            r.r1 = s.messagesFlushed();
            r.r2 = s.depth();
        }
    }

    /**
     * close() racing a snapshot's hold on the ring's memory (enterRing ... exitRing, what
     * {@code stats()} walks the ring inside). r1 = 1 if the snapshot entered; r2 = 1 if the
     * memory was freed while it was inside (looked at just before it leaves).
     *
     * <p>Forbidden: "1, 1", memory freed under a snapshot (a close that frees while a snapshot
     * is inside, or a snapshot that enters after the close let the memory go).
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "entered before the close; the memory went after it left")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "refused: both sides closed")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "USE AFTER FREE: the memory was freed while the snapshot was inside")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class CloseVsRingUser {
        final OffHeapYPipe pipe = new OffHeapYPipe(256, WaitPolicy.purePark());

        @Actor
        public void closer() {
            pipe.close();
        }

        @Actor
        public void snapshot(II_Result r) {
            if (pipe.enterRing()) {
                r.r1 = 1;
                r.r2 = pipe.memoryFreed() ? 1 : 0;
                pipe.exitRing(false);
            }
        }

        @Arbiter
        public void freedOnce(II_Result r) {
            if (!pipe.memoryFreed()) {
                r.r1 = r.r2 = 9; // the memory was never freed: the last one out did not free it
            }
        }
    }
}
