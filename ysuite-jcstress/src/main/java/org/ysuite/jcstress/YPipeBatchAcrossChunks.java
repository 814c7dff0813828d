package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.YPipe;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
public class YPipeBatchAcrossChunks {

    private final YPipe<Integer> pipe = new YPipe<>(2);
    private int seq;
    private int after;

    /** Reader awake, nothing prefetched, the write position at a chunk's second slot. */
    public YPipeBatchAcrossChunks() {
        pipe.write(0);
        pipe.flush();
        pipe.read();
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
