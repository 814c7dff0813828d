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
public class YPipeMultipartNoHalfMessage {

    private final YPipe<Integer> pipe = new YPipe<>(2);
    private int seq;
    private int after;

    /** Reader awake with nothing prefetched. */
    public YPipeMultipartNoHalfMessage() {
        pipe.write(0);
        pipe.flush();
        pipe.read();
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
