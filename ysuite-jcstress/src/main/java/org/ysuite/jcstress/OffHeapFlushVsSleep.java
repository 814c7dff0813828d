package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.OffHeapYPipe;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * OffHeapYPipe: the writer's flush racing the reader's transition to asleep, with the message
 * wrapping around the ring's end (the writer writes a padding record first, which the reader
 * must skip in the same check).
 *
 * <p>r1 = 1 if flush said "reader awake", r2 = messages the reader got before ending asleep
 * (read returning -1), r3 = what is left for the wake-up the flush owes. Each message is checked
 * byte by byte: 9 is a torn message.
 */
@JCStressTest
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "reader awake: it took the message")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal")
@Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, message pending, flush said awake")
@Outcome(expect = FORBIDDEN, desc = "message torn, lost or duplicated")
@State
public class OffHeapFlushVsSleep {

    private static final byte[] FILLER = new byte[100];
    private static final byte[] MESSAGE = Seq.message(1);

    private final OffHeapYPipe pipe = new OffHeapYPipe(256);
    private final byte[] dst = new byte[128];

    /**
     * Moves the ring's write position to byte 208 (two 104-byte records written and read), so the
     * 16-byte record of the race's message does not fit before the end; leaves the reader awake.
     */
    public OffHeapFlushVsSleep() {
        pipe.write(FILLER);
        pipe.write(FILLER);
        pipe.flush();
        pipe.read(dst);
        pipe.read(dst);
    }

    @Actor
    public void writer(III_Result r) {
        pipe.write(MESSAGE);
        r.r1 = pipe.flush() ? 1 : 0;
    }

    @Actor
    public void reader(III_Result r) {
        int seq = 0;
        for (int n; (n = pipe.read(dst)) >= 0; ) {
            seq = Seq.append(seq, Seq.decode(dst, n));
        }
        r.r2 = seq;
    }

    @Arbiter
    public void afterWakeUp(III_Result r) {
        int seq = 0;
        for (int n; (n = pipe.read(dst)) >= 0; ) {
            seq = Seq.append(seq, Seq.decode(dst, n));
        }
        r.r3 = seq;
        pipe.close();
    }
}
