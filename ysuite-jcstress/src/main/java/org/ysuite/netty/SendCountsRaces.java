package org.ysuite.netty;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.WaitPolicy;
import org.ysuite.YPipe;

/**
 * The jcstress race of {@link SendCounts}' hand-off samples: a sender stamping its sample points
 * while the loop takes the stamps of the messages it delivers. In the package
 * {@code org.ysuite.netty} (in this module's jar) because {@code SendCounts} is package-private
 * there; it touches no Netty class.
 */
public final class SendCountsRaces {

    /** Messages the sender sends per sample. */
    static final int MESSAGES = 3;

    /** The loop's looks at the pipe per sample, at most (its next turns; bounded, so it always ends). */
    static final int LOOKS = 64;

    /** Outcome codes per message. */
    static final int NOT_DELIVERED = 0;
    static final int NO_STAMP = 1;
    static final int OWN_STAMP = 2;
    static final int FOREIGN_STAMP = 3;

    private SendCountsRaces() {
    }

    /**
     * A {@link LoopMailbox.Sender}'s {@code send} of messages 1, 2 and 3, as it runs it: the real
     * {@link SendCounts#writing()} (every message is a sample point: interval 1, the builder's
     * smallest), the message written to a real {@link YPipe} (the mailbox's pipe, made with
     * {@code purePark} as {@code LoopDrain} makes it) and flushed, then {@link SendCounts#flushed()}.
     * Racing it, the loop as {@code LoopDrain} runs it: it reads the pipe until empty, and looks
     * again (its next turns) until it has the three messages or has looked {@link #LOOKS} times; it
     * numbers the messages it delivers 1, 2, 3 and, at each sample point, calls the real
     * {@link SendCounts#takeStamp}.
     *
     * <p>What orders it (see {@link SendCounts}): the sender stamps ({@code stampNanos}, then
     * {@code stampSeq}) only if {@code taken} (acquire) equals its {@code stampSeq}; the loop reads
     * {@code stampSeq}, then {@code stampNanos}, then releases {@code taken}; the stamp of message
     * {@code n} precedes the flush that publishes {@code n} (the flush's CAS, the loop's acquire).
     *
     * <p>How a stamp is told apart: {@code System.nanoTime()} is what {@code writing()} stores, so
     * the sender reads the clock just before and just after each {@code writing()} (each window
     * begins on a later clock value than the previous one ended: the sender reads the clock again
     * until it moves, a spin on its own thread that synchronises nothing), and the arbiter looks up
     * which message's window holds the time the loop took. Per message (r1, r2, r3): 0 = not
     * delivered (the loop read before the flush), 1 = delivered, no stamp ({@code NO_STAMP}: the
     * sender skipped that sample point because the previous sample was still in flight),
     * 2 = delivered with its own stamp, 3 = delivered with a time from another message's window
     * (or from none).
     *
     * <p>Acceptable: any prefix delivered, message 1 with its own stamp (the first sample point
     * always finds {@code taken == stampSeq == 0}), messages 2 and 3 with their own stamps or
     * none. Forbidden: a 3 anywhere, the loop pairing a message's number with another message's
     * time; and message 1 delivered without its stamp, a stamp published after its message (or
     * overwritten by a later stamp while the loop had not taken it).
     */
    @JCStressTest
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the loop read before the first flush")
    @Outcome(id = "2, 0, 0", expect = ACCEPTABLE, desc = "message 1 delivered with its stamp")
    @Outcome(id = {"2, 1, 0", "2, 2, 0"}, expect = ACCEPTABLE,
            desc = "messages 1 and 2 delivered; 2 stamped if the loop had taken 1's stamp when 2 was written")
    @Outcome(id = {"2, 1, 1", "2, 1, 2", "2, 2, 1", "2, 2, 2"}, expect = ACCEPTABLE,
            desc = "all delivered; 2 and 3 each stamped or skipped (the previous sample in flight)")
    @Outcome(id = {".*3.*"}, expect = FORBIDDEN, desc = "MISMATCH: a message delivered with another message's time")
    @Outcome(expect = FORBIDDEN, desc = "message 1 delivered without its stamp, or delivery out of order")
    @State
    public static class StampVsTake {

        private final SendCounts counts = new SendCounts(1);
        private final YPipe<Long> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());
        /** Sender only (the arbiter reads them after): the clock around each writing(), by number. */
        private final long[] before = new long[MESSAGES + 1];
        private final long[] after = new long[MESSAGES + 1];
        /** Loop only (the arbiter reads them after): messages delivered, each one's takeStamp. */
        private int delivered;
        private final long[] taken = new long[MESSAGES + 1];

        @Actor
        public void sender() {
            long last = Long.MIN_VALUE;
            for (long n = 1; n <= MESSAGES; n++) {
                long t;
                do {
                    t = System.nanoTime();
                } while (t == last); // this window starts after the previous one ended
                before[(int) n] = t;
                counts.writing();
                last = after[(int) n] = System.nanoTime();
                pipe.write(n, false);
                pipe.flush();
                counts.flushed();
            }
        }

        @Actor
        public void loop() {
            for (int pass = 0; pass < LOOKS && delivered < MESSAGES; pass++) {
                for (Long m; (m = pipe.read()) != null; ) {
                    int n = ++delivered;
                    if (m != n) {
                        throw new IllegalStateException("message " + m + " delivered as number " + n);
                    }
                    // interval 1: every message is a sample point ((n & mask) == 0)
                    taken[n] = counts.takeStamp(n);
                }
            }
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r1 = code(1);
            r.r2 = code(2);
            r.r3 = code(3);
        }

        private int code(int n) {
            if (n > delivered) {
                return NOT_DELIVERED;
            }
            long t = taken[n];
            if (t == SendCounts.NO_STAMP) {
                return NO_STAMP;
            }
            return before[n] <= t && t <= after[n] ? OWN_STAMP : FOREIGN_STAMP;
        }
    }
}
