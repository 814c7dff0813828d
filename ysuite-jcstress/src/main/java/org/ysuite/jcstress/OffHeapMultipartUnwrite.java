package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.ysuite.OffHeapYPipe;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
public class OffHeapMultipartUnwrite {

    private static final byte[] M1 = Seq.message(1);
    private static final byte[] M2 = Seq.message(2);
    private static final byte[] M5 = Seq.message(5);

    private final OffHeapYPipe pipe = new OffHeapYPipe(256);
    private int seq;
    private int after;

    /** Reader awake with nothing prefetched. */
    public OffHeapMultipartUnwrite() {
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
