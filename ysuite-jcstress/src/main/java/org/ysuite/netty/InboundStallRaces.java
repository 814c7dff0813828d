package org.ysuite.netty;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.OffHeapYPipe;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress race of {@link MessageStream}'s inbound stall/resume hand-shake
 * ({@link InboundStall}), run with {@code -t InboundStallRaces}. It lives in the package
 * {@code org.ysuite.netty} (in this module's jar) because the hand-shake is package-private there;
 * it touches no Netty class.
 */
public final class InboundStallRaces {

    private InboundStallRaces() {
    }

    /**
     * The event loop (the inbound {@link OffHeapYPipe}'s writer) claims room for a message in a
     * full window, exactly as {@code MessageStream}'s decoder does: claim; if that fails,
     * {@link InboundStall#stall} (declare the stall, retry the claim; withdraw the stall if the
     * retry claimed), and pause (autoRead off) if it says so. Racing it, the application thread (the pipe's reader)
     * consumes one message, which frees the room, then calls {@link InboundStall#consumed()}.
     *
     * <p>r1, the loop: 0 = its first claim found room (no stall); 1 = stalled, the retry found
     * room and it withdrew the stall; 2 = stalled, the retry found room but the reader had taken
     * the stall (a resume is on its way to a loop that is not paused); 3 = stalled and paused.
     * r2, the reader: 1 if its {@code consumed()} took the stall (it resumes the loop), else 0.
     *
     * <p>The reader always frees the room, so a paused loop nobody resumes ("3, 0") is the lost
     * resume: the stream would hang with a window that has room. "1, 1" is two takers (two
     * resumes) for one stall.
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the reader freed room first: no stall")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "stalled, the retry saw the room, stall withdrawn")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "stalled, the retry saw the room, the reader also took the stall: one harmless resume of a running loop")
    @Outcome(id = "3, 1", expect = ACCEPTABLE, desc = "paused, the reader saw the stall and resumes the loop")
    @Outcome(id = "3, 0", expect = FORBIDDEN, desc = "LOST RESUME: the loop paused while the window has room, nobody resumes it")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "TWO TAKERS for one stall")
    @Outcome(expect = FORBIDDEN, desc = "anything else (a resume without a stall, a failed withdraw nobody won)")
    @State
    public static class ClaimRetryVsConsume implements InboundStall.Room {

        private final OffHeapYPipe window = new OffHeapYPipe(OffHeapYPipe.MIN_CAPACITY_BYTES);
        private final InboundStall stall = new InboundStall();
        private final int length = window.maxMessageLength();
        private final byte[] dst = new byte[length];

        /** A full window: two messages of the largest length fill the ring, both flushed. */
        public ClaimRetryVsConsume() {
            byte[] m = new byte[length];
            if (!window.write(m) || !window.write(m) || window.claim(length) >= 0) {
                throw new IllegalStateException("the window must be full after two messages of " + length + " bytes");
            }
            window.flush();
        }

        @Actor
        public void loop(II_Result r) {
            if (claim()) {
                r.r1 = 0;
                return;
            }
            switch (stall.stall(this)) {
                case InboundStall.CLAIMED:
                    r.r1 = 1;
                    break;
                case InboundStall.CLAIMED_RESUME_COMING:
                    r.r1 = 2;
                    break;
                default:
                    r.r1 = 3; // autoRead off: only the reader's resume restarts the loop
                    break;
            }
        }

        @Actor
        public void reader(II_Result r) {
            if (window.read(dst) != length) {
                throw new IllegalStateException("the reader must find the two flushed messages");
            }
            r.r2 = stall.consumed() ? 1 : 0;
        }

        /** The loop's claim: the largest message, committed at once. */
        @Override
        public boolean claim() {
            if (window.claim(length) < 0) {
                return false;
            }
            window.commit(false);
            return true;
        }
    }
}
