package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.OffHeapYPipe;

import java.nio.ByteBuffer;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * OffHeapYPipe zero-copy path: the writer claims a record, fills it byte by byte in the ring,
 * commits and flushes, racing the reader's {@code readBatch} (which hands out views into the
 * ring). The consumer must see the whole message or none: a view with a stale byte (9) is a
 * half-written message, and the flush's answer must cover a reader that ended asleep.
 */
@JCStressTest
@Outcome(id = "1, 4, 0", expect = ACCEPTABLE, desc = "reader awake: got the whole message")
@Outcome(id = "0, 0, 4", expect = ACCEPTABLE, desc = "reader asleep first: flush owes the signal")
@Outcome(id = "1, 0, 4", expect = FORBIDDEN, desc = "LOST WAKE-UP: reader asleep, message pending, flush said awake")
@Outcome(expect = FORBIDDEN, desc = "HALF-WRITTEN message seen (9), or lost or duplicated")
@State
public class OffHeapClaimCommitNoHalfMessage {

    private final OffHeapYPipe pipe = new OffHeapYPipe(256);
    private int seq;
    private int after;

    /** Reader awake with nothing prefetched; the ring's bytes are dirty (a stale message). */
    public OffHeapClaimCommitNoHalfMessage() {
        pipe.write(new byte[12]);
        pipe.flush();
        pipe.read(new byte[12]);
    }

    @Actor
    public void writer(III_Result r) {
        int length = 12; // message 4
        int at = pipe.claim(length);
        ByteBuffer ring = pipe.claimBuffer();
        for (int i = 0; i < length; i++) {
            ring.put(at + i, (byte) 4);
        }
        pipe.commit(false);
        r.r1 = pipe.flush() ? 1 : 0;
    }

    @Actor
    public void reader(III_Result r) {
        while (pipe.readBatch((buf, off, len) -> seq = Seq.append(seq, Seq.decode(buf, off, len))) > 0) {
            // until empty: the reader ends asleep
        }
        r.r2 = seq;
    }

    @Arbiter
    public void afterWakeUp(III_Result r) {
        while (pipe.readBatch((buf, off, len) -> after = Seq.append(after, Seq.decode(buf, off, len))) > 0) {
            // what the wake-up was owed for
        }
        r.r3 = after;
        pipe.close();
    }
}
