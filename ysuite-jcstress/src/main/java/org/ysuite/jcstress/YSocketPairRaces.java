package org.ysuite.jcstress;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.WaitPolicy;
import org.ysuite.YSocketPair;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress races of {@link org.ysuite.YSocketPair}, one nested test per race (run one with
 * {@code -t YSocketPairRaces.Name}, all of them with {@code -t YSocketPairRaces}).
 */
public final class YSocketPairRaces {

    private YSocketPairRaces() {
    }

    /**
     * YSocketPair (socketpair kind): {@code signal(7)} racing the owner's drain ({@code check}), which
     * reads back an outstanding wake-up, takes the bits and, finding none, re-arms the descriptor.
     * The owner starts armed (its last check found nothing), as it is before it sleeps in poll(2).
     *
     * <p>r1 = ids the racing check took; r2 = 1 if {@code fd()} then polls readable (what a native
     * poller would see, asked with a zero timeout); r3 = ids the owner's next check takes. Forbidden
     * is the lost wake-up: the owner's check found nothing (it would now sleep in poll(2)), id 7 is
     * unconsumed, and the descriptor reads not-ready. A readable descriptor with nothing behind it is
     * a spurious wake-up, which the contract allows.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "check took the signal; no wake-up left")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "check found nothing and re-armed; the signal made fd readable")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "check took the signal; its wake-up byte stays (spurious wake-up, allowed)")
    @Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: id fired and unconsumed, owner armed, fd not readable")
    @Outcome(expect = FORBIDDEN, desc = "signal lost or taken twice")
    @State
    public static class ArmVsSignal extends Fixtures.ArmRace<Fixtures.SocketPair> {

        private static final DescriptorPool<Fixtures.SocketPair> POOL = new DescriptorPool<>(ArmVsSignal.class, () -> new Fixtures.SocketPair(YSocketPair.Kind.SOCKETPAIR));

        /** Leases a clean signaler, armed as after a check that found nothing (see {@link DescriptorPool}). */
        public ArmVsSignal() {
            super(POOL, f -> f.signals, false);
        }

        @Actor
        public void signaller() {
            fire();
        }

        @Actor
        public void owner(III_Result r) {
            drain(r);
        }

        @Arbiter
        public void poller(III_Result r) {
            probe(r);
        }
    }

    /**
     * YSocketPair (eventfd kind): the same race as {@link YSocketPairRaces.ArmVsSignal}: {@code signal(7)}
     * racing the owner's drain-and-re-arm; forbidden is an unconsumed id behind a not-ready fd.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "check took the signal; no wake-up left")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "check found nothing and re-armed; the signal made fd readable")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "check took the signal; its wake-up stays (spurious wake-up, allowed)")
    @Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: id fired and unconsumed, owner armed, fd not readable")
    @Outcome(expect = FORBIDDEN, desc = "signal lost or taken twice")
    @State
    public static class EventfdArmVsSignal extends Fixtures.ArmRace<Fixtures.SocketPair> {

        private static final DescriptorPool<Fixtures.SocketPair> POOL = new DescriptorPool<>(EventfdArmVsSignal.class, () -> new Fixtures.SocketPair(YSocketPair.Kind.EVENTFD));

        /** Leases a clean signaler, armed as after a check that found nothing (see {@link DescriptorPool}). */
        public EventfdArmVsSignal() {
            super(POOL, f -> f.signals, false);
        }

        @Actor
        public void signaller() {
            fire();
        }

        @Actor
        public void owner(III_Result r) {
            drain(r);
        }

        @Arbiter
        public void poller(III_Result r) {
            probe(r);
        }
    }

    /**
     * YSocketPair (eventfd kind), owner starting busy: the same race as
     * {@link YSocketPairRaces.IdleArmVsSignal}; forbidden is an unconsumed id behind a not-ready fd.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "check took the signal; no wake-up left")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "check found nothing and re-armed; the signal made fd readable")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "check took the signal; its wake-up stays (spurious wake-up, allowed)")
    @Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: id fired and unconsumed, owner armed, fd not readable")
    @Outcome(expect = FORBIDDEN, desc = "signal lost or taken twice")
    @State
    public static class EventfdIdleArmVsSignal extends Fixtures.ArmRace<Fixtures.SocketPair> {

        private static final DescriptorPool<Fixtures.SocketPair> POOL = new DescriptorPool<>(EventfdIdleArmVsSignal.class, () -> new Fixtures.SocketPair(YSocketPair.Kind.EVENTFD));

        /** Leases a clean, armed signaler (see {@link DescriptorPool}); leaves the owner busy. */
        public EventfdIdleArmVsSignal() {
            super(POOL, f -> f.signals, true);
        }

        @Actor
        public void signaller() {
            fire();
        }

        @Actor
        public void owner(III_Result r) {
            drain(r);
        }

        @Arbiter
        public void poller(III_Result r) {
            probe(r);
        }
    }

    /**
     * YSocketPair (socketpair kind): {@code signal(7)} racing the owner's drain ({@code check}), which
     * reads back an outstanding wake-up, takes the bits and, finding none, re-arms the descriptor.
     * The owner starts busy (its last check took an id, so the descriptor is not armed): the racing
     * check is the one that finds nothing and arms it, publishing ARMED and re-reading the bits
     * (Dekker with the signaller's fire-then-read-state).
     *
     * <p>r1 = ids the racing check took; r2 = 1 if {@code fd()} then polls readable (what a native
     * poller would see, asked with a zero timeout); r3 = ids the owner's next check takes. Forbidden
     * is the lost wake-up: the owner's check found nothing (it would now sleep in poll(2)), id 7 is
     * unconsumed, and the descriptor reads not-ready. A readable descriptor with nothing behind it is
     * a spurious wake-up, which the contract allows.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "check took the signal; no wake-up left")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "check found nothing and re-armed; the signal made fd readable")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "check took the signal; its wake-up byte stays (spurious wake-up, allowed)")
    @Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: id fired and unconsumed, owner armed, fd not readable")
    @Outcome(expect = FORBIDDEN, desc = "signal lost or taken twice")
    @State
    public static class IdleArmVsSignal extends Fixtures.ArmRace<Fixtures.SocketPair> {

        private static final DescriptorPool<Fixtures.SocketPair> POOL = new DescriptorPool<>(IdleArmVsSignal.class, () -> new Fixtures.SocketPair(YSocketPair.Kind.SOCKETPAIR));

        /** Leases a clean, armed signaler (see {@link DescriptorPool}); leaves the owner busy. */
        public IdleArmVsSignal() {
            super(POOL, f -> f.signals, true);
        }

        @Actor
        public void signaller() {
            fire();
        }

        @Actor
        public void owner(III_Result r) {
            drain(r);
        }

        @Arbiter
        public void poller(III_Result r) {
            probe(r);
        }
    }

    /**
     * YSocketPair (pure park, so {@code poll} publishes PARKED at once), the owner parked in
     * {@code poll} and polling <em>twice</em>: the PARKED state and the ABA on it (issue 8, defect 1).
     *
     * <p>The signaller fires id 1, then id 2. The owner first polls with a 1 ns timeout: it registers
     * itself, publishes PARKED, finds nothing (or id 1) and leaves PARKED by its own timeout, taking
     * what arrived; it then polls untimed until it has both ids. The ABA this exposes: the signaller
     * fires 1 and reads PARKED (the first poll's), the owner's first poll times out, takes 1 and
     * returns (clearing its registration), the signaller reads the registration (none), the owner's
     * second poll publishes PARKED again and parks, and the signaller's CAS PARKED&rarr;IDLE succeeds
     * on that <em>new</em> PARKED and unparks nobody: the owner sleeps with the state IDLE, and
     * {@code signal(2)} sees IDLE and does not wake it.
     *
     * <p>The untimed poll has no timeout of its own, so a {@link Watchdog} interrupts the owner after
     * {@link Seq#TIMEOUT_MS} (the pattern of {@link YSemaphoreRaces.SignalVsUntimedAwait}). After the
     * interrupt the owner re-reads the bits and finds id 2, so a lost wake-up shows as a wait that
     * lasted {@link Seq#SLOW_MS} (the whole timeout).
     *
     * <p>r1 = ids the first (timed) poll took; r2 = ids the owner took in all (2), or -1 if the
     * watchdog's interrupt ended its wait; r3 = 1 if the owner waited {@link Seq#SLOW_MS} (its whole
     * timeout). r1 = 1 is the shape the ABA needs (the owner took id 1, then parked again for id 2).
     *
     * <p>What this race can and cannot show: the ABA needs the owner to time out, return and park
     * again between the signaller's two adjacent loads of {@code state} and {@code waiter} — in
     * practice only when the signaller is descheduled (or interpreted while the owner runs compiled
     * code) right there. A jcstress sample practically never hits that (0 in 275,747 samples of
     * {@code -m quick} on the unfixed code); ysuite-core's {@code WakeupSignalerAuditTest}, with a hook
     * between the two reads, reproduces it deterministically. This race keeps the PARKED path and
     * its outcomes under jcstress's compilers and schedulers; with the unpark removed from that path
     * (a mutant) it reports "0, 2, 1" and "1, 2, 1" at once.
     */
    @JCStressTest
    @Outcome(id = {"0, 2, 0", "2, 2, 0"}, expect = ACCEPTABLE, desc = "the owner got both ids and was never stuck")
    @Outcome(id = "1, 2, 0", expect = ACCEPTABLE_INTERESTING, desc = "the timed poll took id 1 and the owner parked again for id 2 (the ABA's shape), woken in time")
    @Outcome(id = {"1, 2, 1", "0, 2, 1", "1, -1, 1", "0, -1, 1"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: the owner slept in its untimed poll with id 2 fired (the watchdog woke it)")
    @Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP or an id lost or taken twice")
    @State
    public static class ParkedPollTwiceVsSignal {

        private static final DescriptorPool<Fixtures.SocketPair> POOL = new DescriptorPool<>(
                ParkedPollTwiceVsSignal.class,
                () -> new Fixtures.SocketPair(YSocketPair.Kind.SOCKETPAIR, WaitPolicy.purePark()));

        private final Fixtures.SocketPair fixture;
        private final YSocketPair signals;

        /** Leases a clean signaler (see {@link DescriptorPool}): nothing pending, no waiter. */
        public ParkedPollTwiceVsSignal() {
            fixture = POOL.take(this);
            signals = fixture.signals;
        }

        @Actor
        public void signaller() {
            signals.signal(1);
            signals.signal(2);
        }

        @Actor
        public void owner(III_Result r) {
            long start = System.nanoTime(); // before the watchdog, so its interrupt counts as slow
            ScheduledFuture<?> dog = Watchdog.arm();
            try {
                int got = signals.poll(Fixtures.DROP, 1, TimeUnit.NANOSECONDS); // PARKED, left by timeout
                r.r1 = got;
                while (got < 2) {
                    got += signals.poll(Fixtures.DROP); // parks again: the PARKED a stale CAS could hit
                }
                r.r2 = got;
            } catch (InterruptedException e) {
                r.r2 = -1;
            }
            r.r3 = Seq.slow(start);
            Watchdog.disarm(dog);
        }

        @Arbiter
        public void done(III_Result r) {
            POOL.give(fixture);
        }
    }
}
