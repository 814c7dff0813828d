package org.ysuite.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.zmq.internal.Lane;

/**
 * The jcstress races of ysuite-zmq's {@link Lane}: a writer at the high-water mark registering for a
 * wake-up ({@link Lane#tryReserve()}: the "writer waits" flag, then a second look at the room) against the
 * reader taking messages down to the low-water mark ({@link Lane#read()}: the store of its count, then a
 * look at the flag). The reader's own wake-up is the lane's {@link org.ysuite.YPipe}'s flush against its
 * sleep, raced by {@link YPipeRaces.FlushVsSleep} (the lane's pipe is the same {@code purePark} YPipe).
 */
public final class LaneRaces {

    /** The lanes' high-water mark: 4 messages, so the low-water mark is 2. */
    static final int HWM = 4;

    private LaneRaces() {
    }

    /**
     * A lane filled to its mark (4 flushed messages). The writer calls {@link Lane#tryReserve()} (r1 = 1:
     * it saw room and would write, 0: it registered and would wait). The reader reads two messages, down to
     * the low-water mark of 2 (r2 = the messages it got, 2). The arbiter counts the writer wake-ups the
     * reader ran (r3).
     *
     * <p>Acceptable: the writer saw the room the reader made, or it waits and the reader woke it (or both:
     * a spare wake-up, when the flag was up before the reader looked and the writer's second look saw room).
     * Forbidden: {@code 0, 2, 0}, a writer that waits while the lane is at its low-water mark and nobody will
     * wake it; more than one wake-up, or a message lost.
     */
    @JCStressTest
    @Outcome(id = "1, 2, 0", expect = ACCEPTABLE, desc = "the writer saw the room the reader made")
    @Outcome(id = "0, 2, 1", expect = ACCEPTABLE, desc = "the writer registered first: the reader woke it")
    @Outcome(id = "1, 2, 1", expect = ACCEPTABLE, desc = "both: room seen, and a spare wake-up")
    @Outcome(id = "0, 2, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: the writer waits, the lane at its low-water mark, no wake")
    @Outcome(expect = FORBIDDEN, desc = "a message lost, or woken twice")
    @State
    public static class ReserveVsDrain {
        private int wakes; // run on the reader's thread only; the arbiter reads it after both actors
        private final Lane lane = new Lane(HWM, () -> { }, () -> wakes++);

        public ReserveVsDrain() {
            for (int i = 0; i < HWM; i++) {
                lane.write(i);
            }
        }

        @Actor
        public void writer(III_Result r) {
            r.r1 = lane.tryReserve() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            r.r2 = (lane.read() != null ? 1 : 0) + (lane.read() != null ? 1 : 0);
        }

        @Arbiter
        public void wakes(III_Result r) {
            r.r3 = wakes;
        }
    }

    /**
     * As {@link ReserveVsDrain}, but the writer had already registered once before the race (a failed
     * {@link Lane#tryReserve()}: the flag is up, a wake-up owed) and registers again (as a writer that looks
     * again before its wake-up came). The reader's clear of the flag may land after the writer's second
     * store of it; the wake-up that follows every clear must then be the one the writer waits for.
     * Outcomes as in {@link ReserveVsDrain}: r1 the writer's second look, r2 the messages read, r3 the
     * wake-ups; {@code 1, 2, 0} is impossible (the flag was up before the reader looked).
     */
    @JCStressTest
    @Outcome(id = "1, 2, 1", expect = ACCEPTABLE, desc = "the writer saw the room; the wake-up owed to its first registration came too")
    @Outcome(id = "0, 2, 1", expect = ACCEPTABLE, desc = "the writer waits: the reader cleared the flag and woke it")
    @Outcome(id = "0, 2, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: the writer waits, the lane at its low-water mark, no wake")
    @Outcome(expect = FORBIDDEN, desc = "a message lost, woken twice, or the owed wake-up missing")
    @State
    public static class ReRegisterVsDrain {
        private int wakes;
        private final Lane lane = new Lane(HWM, () -> { }, () -> wakes++);

        public ReRegisterVsDrain() {
            for (int i = 0; i < HWM; i++) {
                lane.write(i);
            }
            if (lane.tryReserve()) {
                throw new IllegalStateException("a lane of " + HWM + " messages at a mark of " + HWM + " has room");
            }
        }

        @Actor
        public void writer(III_Result r) {
            r.r1 = lane.tryReserve() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            r.r2 = (lane.read() != null ? 1 : 0) + (lane.read() != null ? 1 : 0);
        }

        @Arbiter
        public void wakes(III_Result r) {
            r.r3 = wakes;
        }
    }
}
