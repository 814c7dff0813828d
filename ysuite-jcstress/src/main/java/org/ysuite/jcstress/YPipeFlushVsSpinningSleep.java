package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.WaitPolicy;
import org.ysuite.YPipe;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YPipe: the writer's flush racing a reader that spins on loads of {@code c} before it swaps in
 * the sentinel (the reader's {@link WaitPolicy}).
 *
 * <p>While the reader spins, {@code c} is not the sentinel, so a flush that lands then succeeds
 * (no signal) and the reader must see its item through its acquire load alone; a flush that lands
 * after the spin's last look either is seen by the CAS or finds the sentinel and owes a signal.
 * Same outcomes as {@link YPipeFlushVsSleep}: writer r1 (1 = flush said "awake"), reader r2
 * (items read until null), arbiter r3 (what is left after the owed wake-up).
 */
@JCStressTest
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "reader awake: it took the item; no signal owed")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal; the item waits for it")
@Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, item pending, flush said awake")
@Outcome(expect = FORBIDDEN, desc = "item lost, duplicated, or a spurious 'asleep'")
@State
public class YPipeFlushVsSpinningSleep {

    /** A few rounds: the writer lands inside the spin in some samples, after it in others. */
    private static final int SPINS = 3;

    private final YPipe<Integer> pipe =
            new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.spinThenPark(SPINS));

    /** Leaves the reader awake with nothing prefetched: the next empty read puts it to sleep. */
    public YPipeFlushVsSpinningSleep() {
        pipe.write(0);
        pipe.flush();
        pipe.read();
    }

    @Actor
    public void writer(III_Result r) {
        pipe.write(1);
        r.r1 = pipe.flush() ? 1 : 0;
    }

    @Actor
    public void reader(III_Result r) {
        int seq = 0;
        for (Integer v; (v = pipe.read()) != null; ) {
            seq = Seq.append(seq, v);
        }
        r.r2 = seq;
    }

    @Arbiter
    public void afterWakeUp(III_Result r) {
        int seq = 0;
        for (Integer v; (v = pipe.read()) != null; ) {
            seq = Seq.append(seq, v);
        }
        r.r3 = seq;
    }
}
