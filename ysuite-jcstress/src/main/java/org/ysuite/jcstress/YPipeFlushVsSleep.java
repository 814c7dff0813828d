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
 * YPipe: the writer's flush racing the reader's transition to asleep (check_read's CAS of
 * {@code c} to the sentinel).
 *
 * <p>The reader does not spin ({@link WaitPolicy#purePark()}): its first empty look swaps in
 * the sentinel. {@link YPipeFlushVsSpinningSleep} races the spin that comes before it.
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
public class YPipeFlushVsSleep {

    private final YPipe<Integer> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());

    /** Leaves the reader awake with nothing prefetched: the next empty read puts it to sleep. */
    public YPipeFlushVsSleep() {
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
