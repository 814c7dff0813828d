package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.ysuite.OffHeapYPipe;
import org.ysuite.Signaler;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * OffHeapYPipe full ring (pure park): a writer that finds the ring full and goes to sleep in
 * {@code awaitSpace} (raises its flag, parks) racing the reader that frees space (publishes its
 * head, looks at the flag). Forbidden: both asleep — the writer still parked after
 * {@link Seq#SLOW_MS} although the reader freed the space (r3 = 1), or its wait timing out.
 *
 * <p>r1 = 1 if the first write found room (the reader was first), r2 = awaitSpace's answer (1 if
 * it was not needed), r3 = 1 if the writer slept through the wake-up, r4 = what the reader got.
 */
@JCStressTest
@Outcome(id = "1, 1, 0, 7", expect = ACCEPTABLE, desc = "reader freed space first: the write fit at once")
@Outcome(id = "0, 1, 0, 7", expect = ACCEPTABLE, desc = "writer waited for space and was woken")
@Outcome(id = {"0, 1, 1, 7", "0, 0, 1, 7"}, expect = FORBIDDEN, desc = "BOTH ASLEEP: the writer slept through the space the reader freed")
@Outcome(expect = FORBIDDEN, desc = "the reader lost or tore the message, or the writer failed")
@State
public class OffHeapFullRingWriterVsReader {

    private static final byte[] FULL = Seq.message(7); // 15 bytes: 8 bytes of header and padding
    private static final byte[] MESSAGE = Seq.message(3);

    private final OffHeapYPipe pipe = new OffHeapYPipe(256, Signaler.PURE_PARK);
    private final byte[] dst = new byte[16];

    /** Fills the ring with flushed 24-byte records of message 7, the reader awake. */
    public OffHeapFullRingWriterVsReader() {
        pipe.write(FULL);
        pipe.flush();
        pipe.read(dst);
        while (pipe.write(FULL)) {
            // until the ring is full
        }
        pipe.flush();
    }

    @Actor
    public void writer(IIII_Result r) {
        if (pipe.write(MESSAGE)) {
            r.r1 = 1;
            r.r2 = 1;
            return;
        }
        long start = System.nanoTime();
        try {
            r.r2 = pipe.awaitSpace(MESSAGE.length, Seq.TIMEOUT_MS, Seq.UNIT) ? 1 : 0;
        } catch (InterruptedException e) {
            r.r2 = -1;
        }
        r.r3 = Seq.slow(start);
    }

    @Actor
    public void reader(IIII_Result r) {
        int n = pipe.read(dst);
        r.r4 = Seq.decode(dst, n);
    }

    @Arbiter
    public void close(IIII_Result r) {
        pipe.close();
    }
}
