package org.ysuite.jcstress;

import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;
import org.ysuite.WaitPolicy;
import org.ysuite.YPollset;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress races of {@link org.ysuite.YPollset}, one nested test per race (run one with
 * {@code -t YPollsetRaces.Name}, all of them with {@code -t YPollsetRaces}).
 */
public final class YPollsetRaces {

    private YPollsetRaces() {
    }

    /**
     * YPollset: {@code signal(3)} racing the owner's non-blocking {@code check()}. The bit is taken
     * exactly once: by the racing check (r1) or by the next one (r2).
     */
    @JCStressTest
    @Outcome(id = "8, 0", expect = ACCEPTABLE, desc = "check took the signal")
    @Outcome(id = "0, 8", expect = ACCEPTABLE, desc = "signal landed after the check: the next check takes it")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "LOST SIGNAL: bit 3 vanished")
    @Outcome(expect = FORBIDDEN, desc = "bit delivered twice or a bit never fired")
    @State
    public static class SignalVsCheck {

        private final YPollset pollset = new YPollset();

        @Actor
        public void signaller() {
            pollset.signal(3);
        }

        @Actor
        public void owner(II_Result r) {
            r.r1 = pollset.check();
        }

        @Arbiter
        public void next(II_Result r) {
            r.r2 = pollset.check();
        }
    }

    /**
     * YPollset (pure park): {@code signal(5)} racing the owner's blocking {@code poll}, which sets
     * the sleep bit and parks. The wait is bounded ({@link Seq#TIMEOUT_MS}) only so that a failure
     * ends: the owner must wake with bit 5, never sleep through it (r2 = 1: it was still asleep with
     * the bit set after {@link Seq#SLOW_MS}), and leave nothing behind (r3).
     */
    @JCStressTest
    @Outcome(id = "32, 0, 0", expect = ACCEPTABLE, desc = "owner woke with the signal")
    @Outcome(id = "32, 1, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: owner asleep with the bit set until its timeout")
    @Outcome(id = "0, 1, 32", expect = FORBIDDEN, desc = "LOST WAKE-UP: poll timed out with the bit set")
    @Outcome(expect = FORBIDDEN, desc = "signal lost or delivered twice")
    @State
    public static class SignalVsPoll {

        private final YPollset pollset = new YPollset(WaitPolicy.purePark());

        @Actor
        public void signaller() {
            pollset.signal(5);
        }

        @Actor
        public void owner(III_Result r) {
            long start = System.nanoTime();
            try {
                r.r1 = pollset.poll(Seq.TIMEOUT_MS, Seq.UNIT);
            } catch (InterruptedException e) {
                r.r1 = -1;
            }
            r.r2 = Seq.slow(start);
        }

        @Arbiter
        public void next(III_Result r) {
            r.r3 = pollset.check();
        }
    }

    /**
     * YPollset (pure park): {@code signal(4)} racing a poll whose one-microsecond timeout runs out —
     * the owner withdraws its sleep bit as the signaller clears it. The bit must survive either way:
     * taken by the timed-out poll (r1) or left for the next check (r2), exactly once.
     */
    @JCStressTest
    @Outcome(id = "16, 0", expect = ACCEPTABLE, desc = "poll took the signal")
    @Outcome(id = "0, 16", expect = ACCEPTABLE, desc = "poll timed out first; the signal waits for the next check")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "LOST SIGNAL: the timeout path erased the bit")
    @Outcome(expect = FORBIDDEN, desc = "bit delivered twice or a stray bit (the sleep bit leaked out)")
    @State
    public static class SignalVsPollTimeout {

        private final YPollset pollset = new YPollset(WaitPolicy.purePark());

        @Actor
        public void signaller() {
            pollset.signal(4);
        }

        @Actor
        public void owner(II_Result r) {
            try {
                r.r1 = pollset.poll(1, TimeUnit.MICROSECONDS);
            } catch (InterruptedException e) {
                r.r1 = -1;
            }
        }

        @Arbiter
        public void next(II_Result r) {
            r.r2 = pollset.check();
        }
    }

    /**
     * YPollset: two signallers setting different bits of the one word at the same time, with one
     * atomic step each. Neither bit may be lost.
     */
    @JCStressTest
    @Outcome(id = "6", expect = ACCEPTABLE, desc = "both bits 1 and 2 fired")
    @Outcome(expect = FORBIDDEN, desc = "LOST SIGNAL: a bit overwritten by the other signaller")
    @State
    public static class TwoSignallers {

        private final YPollset pollset = new YPollset(WaitPolicy.purePark());

        @Actor
        public void signaller1() {
            pollset.signal(1);
        }

        @Actor
        public void signaller2() {
            pollset.signal(2);
        }

        @Arbiter
        public void owner(I_Result r) {
            r.r1 = pollset.check();
        }
    }

    /**
     * YPollset (pure park), three actors (needs three CPUs): two signallers racing each other and
     * the owner going to sleep. The owner wakes with at least one bit, never sleeps through a set bit
     * (r2), and the two bits are delivered exactly once between its poll (r1) and the next check (r3).
     */
    @JCStressTest
    @Outcome(id = {"6, 0, 0", "2, 0, 4", "4, 0, 2"}, expect = ACCEPTABLE, desc = "owner woke; every bit taken once")
    @Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP or LOST SIGNAL: owner slept with a bit set, or a bit vanished or came twice")
    @State
    public static class TwoSignallersVsPollThreeActors {

        private final YPollset pollset = new YPollset(WaitPolicy.purePark());

        @Actor
        public void signaller1() {
            pollset.signal(1);
        }

        @Actor
        public void signaller2() {
            pollset.signal(2);
        }

        @Actor
        public void owner(III_Result r) {
            long start = System.nanoTime();
            try {
                r.r1 = pollset.poll(Seq.TIMEOUT_MS, Seq.UNIT);
            } catch (InterruptedException e) {
                r.r1 = -1;
            }
            r.r2 = Seq.slow(start);
        }

        @Arbiter
        public void next(III_Result r) {
            r.r3 = pollset.check();
        }
    }
}
