package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.ysuite.YPipe;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
public class YPipeUnwriteFlush {

    private final YPipe<Integer> pipe = new YPipe<>(2);
    private int seq;
    private int after;

    /** Reader awake with nothing prefetched. */
    public YPipeUnwriteFlush() {
        pipe.write(0);
        pipe.flush();
        pipe.read();
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
