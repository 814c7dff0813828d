package org.ysuite.shared;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.internal.Futex;
import org.ysuite.internal.Membarrier;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * {@link SharedSignaler}'s shared word: the steps of {@link SharedSignalerWords} (the very methods
 * the signaler and its senders call) on a word of a memory-mapped file, as processes would run
 * them, the owner's futex sleeps included. Each state takes a fresh slot of
 * {@link SharedWordsRaces#SLOTS}' mapped file: the word at 64 (as in the memfd), a "payload" long
 * at 768 standing for what a sender wrote before signalling or ringing (a message in another ring,
 * an Aeron log entry).
 */
public final class SharedSignalerRaces {

    static final int AT = SharedSignalerFile.WORD_AT;
    static final int PAYLOAD_AT = 768;
    static final long PAYLOAD = 0x5EED_F00DL;
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private SharedSignalerRaces() {
    }

    /** A slot of the mapped file, the word's address and the owner's futex. */
    abstract static class Base {
        final ByteBuffer shared = SharedWordsRaces.SLOTS.next();
        final long address = Futex.address(shared) + AT;
        final Futex futex = new Futex();

        int payloadVisible() {
            return shared.getLong(PAYLOAD_AT) == PAYLOAD ? 1 : 0;
        }

        /**
         * A doorbell's publisher: a release store of the payload (as Aeron's offer publishes a
         * log entry), then a ring, with its fence or without. r3 = 1 if the ring woke the worker.
         */
        void publishAndRing(boolean unfenced, III_Result r) {
            SharedPipeDescriptor.LONG.setRelease(shared, PAYLOAD_AT, PAYLOAD);
            boolean woke = unfenced ? SharedSignalerWords.ringUnfenced(shared, AT, address)
                    : SharedSignalerWords.ring(shared, AT, address);
            r.r3 = woke ? 1 : 0;
        }

        /**
         * A doorbell's worker: looks at the work (an acquire load of the payload); while there is
         * none, arms, looks once more (the caller's poll after arming) and sleeps if still none,
         * until 5 s have gone. r1 = 1 if it got the work, r2 = 1 if it did not within 5 s.
         */
        void armLookSleep(boolean fenceSenders, III_Result r) {
            long start = System.nanoTime();
            int seen = work();
            while (seen == 0 && System.nanoTime() - start < TIMEOUT_NANOS) {
                if (SharedSignalerWords.arm(shared, AT, fenceSenders)) {
                    seen = work();
                    if (seen == 0) {
                        SharedSignalerWords.sleepIfArmed(shared, AT, address, futex,
                                Math.max(1, TIMEOUT_NANOS - (System.nanoTime() - start)));
                    } else {
                        SharedSignalerWords.disarm(shared, AT);
                    }
                }
                seen = seen != 0 ? seen : work();
            }
            r.r1 = seen;
            r.r2 = seen == 0 ? 1 : 0;
        }

        private int work() {
            return (long) SharedPipeDescriptor.LONG.getAcquire(shared, PAYLOAD_AT) == PAYLOAD ? 1 : 0;
        }
    }

    /**
     * A sender's signal of id 3 (after a plain store of the payload) racing the owner that takes
     * nothing, arms, and sleeps in the futex until the id is taken, at most 5 s. r1 = the ids the
     * owner took, r2 = 1 if it slept the whole 5 s, r3 = 1 if it saw the payload.
     */
    @JCStressTest
    @Outcome(id = "8, 0, 1", expect = ACCEPTABLE, desc = "the owner took the id with the payload, awake or woken in time")
    @Outcome(id = ".*, 1, .*", expect = FORBIDDEN, desc = "LOST WAKE-UP: slept through the signal")
    @Outcome(expect = FORBIDDEN, desc = "the id lost, or taken without the payload")
    @State
    public static class SignalVsSleep extends Base {
        @Actor
        public void sender() {
            shared.putLong(PAYLOAD_AT, PAYLOAD);
            SharedSignalerWords.signal(shared, AT, address, 1 << 3);
        }

        @Actor
        public void owner(III_Result r) {
            long start = System.nanoTime();
            int ids = SharedSignalerWords.take(shared, AT);
            while (ids == 0 && System.nanoTime() - start < TIMEOUT_NANOS) {
                if (SharedSignalerWords.arm(shared, AT, false)) {
                    SharedSignalerWords.sleepIfArmed(shared, AT, address, futex,
                            Math.max(1, TIMEOUT_NANOS - (System.nanoTime() - start)));
                }
                ids = SharedSignalerWords.take(shared, AT);
            }
            r.r1 = ids;
            r.r2 = ids == 0 ? 1 : 0;
            r.r3 = payloadVisible();
        }
    }

    /**
     * Two senders signalling ids 1 and 2 at an owner that armed its sleep before they started
     * (the word holds SLEEP alone). r1, r2 = 1 if that sender's CAS cleared SLEEP (and so made the
     * FUTEX_WAKE); the arbiter checks that the word holds both ids and no SLEEP.
     */
    @JCStressTest
    @Outcome(id = {"1, 0", "0, 1"}, expect = ACCEPTABLE, desc = "exactly one sender woke the owner, both ids fired")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "both saw SLEEP: two wake-ups for one sleep (a lost update)")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "nobody woke the sleeping owner")
    @Outcome(expect = FORBIDDEN, desc = "an id lost, or SLEEP left set")
    @State
    public static class TwoSignallersVsArmedOwner extends Base {
        {
            SharedSignalerWords.arm(shared, AT, false);
        }

        @Actor
        public void sender1(II_Result r) {
            r.r1 = SharedSignalerWords.signal(shared, AT, address, 1 << 1) ? 1 : 0;
        }

        @Actor
        public void sender2(II_Result r) {
            r.r2 = SharedSignalerWords.signal(shared, AT, address, 1 << 2) ? 1 : 0;
        }

        @Arbiter
        public void word(II_Result r) {
            if ((int) SharedSignalerWords.INT.getVolatile(shared, AT) != 0b110) {
                r.r1 = 7;
            }
        }
    }

    /**
     * The doorbell: a publisher stores its work (a release store of the payload, as Aeron's offer
     * publishes a log entry), then rings; the worker arms, looks at the work once more (an acquire
     * load), and only then sleeps if there is none, at most 5 s. r1 = 1 if the worker got the work,
     * r2 = 1 if it slept the whole 5 s, r3 = 1 if the ring found it asleep (armed) and woke it.
     */
    @JCStressTest
    @Outcome(id = {"1, 0, 0", "1, 0, 1"}, expect = ACCEPTABLE, desc = "the worker got the work, awake or woken by the ring")
    @Outcome(id = ".*, 1, .*", expect = FORBIDDEN, desc = "LOST WAKE-UP: slept through the ring")
    @Outcome(expect = FORBIDDEN, desc = "the work never seen")
    @State
    public static class RingVsArmThenSleep extends Base {
        @Actor
        public void publisher(III_Result r) {
            publishAndRing(false, r);
        }

        @Actor
        public void worker(III_Result r) {
            armLookSleep(false, r);
        }
    }

    /**
     * The doorbell without its fence ({@code SharedSignalerWords.ringUnfenced}, what a sender
     * whose process is registered for {@code membarrier} rings): the publisher stores its work
     * (a release store) and loads the word, with no fence between; the worker arms with
     * {@code fenceSenders} (its CAS, then {@code membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)}),
     * looks at the work, and sleeps if there is none, at most 5 s. This JVM is registered, as a
     * sender's is. r1 = 1 if the worker got the work, r2 = 1 if it slept the whole 5 s, r3 = 1 if
     * the ring found it armed and woke it.
     */
    @JCStressTest
    @Outcome(id = {"1, 0, 0", "1, 0, 1"}, expect = ACCEPTABLE, desc = "the worker got the work, awake or woken by the ring")
    @Outcome(id = ".*, 1, .*", expect = FORBIDDEN, desc = "LOST WAKE-UP: slept through the unfenced ring")
    @Outcome(expect = FORBIDDEN, desc = "the work never seen")
    @State
    public static class UnfencedRingVsArmFenceThenSleep extends Base {
        static {
            if (!Membarrier.register()) {
                throw new IllegalStateException("membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) "
                        + "is not available: this race needs it");
            }
        }

        @Actor
        public void publisher(III_Result r) {
            publishAndRing(true, r);
        }

        @Actor
        public void worker(III_Result r) {
            armLookSleep(true, r);
        }
    }
}
