package org.ysuite.jcstress;

import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.PollableSignaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;
import org.ysuite.YSocketPair;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The jcstress races of {@link org.ysuite.YMailbox}, one nested test per race (run one with
 * {@code -t YMailboxRaces.Name}, all of them with {@code -t YMailboxRaces}).
 */
public final class YMailboxRaces {

    private YMailboxRaces() {
    }

    /**
     * YMailbox: a writer's send racing {@link YMailbox#close()} (the CAS of each pipe's {@code c} to
     * CLOSED against the flush's CAS). r1: 1 if the send was accepted, 0 if it was rejected. r2: the
     * messages the reader gets after the close (poll until it returns 0). An accepted message must be
     * delivered, a rejected one never.
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "sent before the close: delivered")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "closed first: rejected, not delivered")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "LOST: accepted but never delivered")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "rejected, yet delivered")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class CloseVsSend {

        private final YMailbox<Integer> mailbox = new YMailbox<>(new YPollset(), WaitPolicy.purePark());
        private final YMailbox.Writer<Integer> writer = mailbox.newWriter();

        @Actor
        public void writer(II_Result r) {
            try {
                writer.send(1);
                r.r1 = 1;
            } catch (IllegalStateException closed) {
                r.r1 = 0;
            }
        }

        @Actor
        public void closer() {
            mailbox.close();
        }

        @Arbiter
        public void reader(II_Result r) {
            int[] got = new int[1];
            try {
                while (mailbox.poll(m -> got[0]++) > 0) {
                    // drain
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            r.r2 = got[0];
        }
    }

    /**
     * YMailbox over a YSocketPair whose two writers share one signal id (as writers beyond a
     * signaler's capacity do), the reader waiting in a native poller. The writers each send a message
     * while the reader checks until a check returns 0 — its cue to sleep in poll(2) on {@code fd()}.
     * With a shared id, a signal can arrive for a message the reader already drained (a stale id); a
     * check that takes only such a stale id leaves the descriptor unarmed, and must not return 0.
     *
     * <p>The arbiter then sends one more message (every pipe is asleep, so the flush signals) and asks
     * whether {@code fd()} is readable: it must be (r2 = 1), or the reader would sleep through it.
     * r1 = messages the racing reader got, r3 = messages left for the reader's next checks; r1 + r3 = 3.
     */
    @JCStressTest
    @Outcome(id = {"2, 1, 1", "1, 1, 2", "0, 1, 3"}, expect = ACCEPTABLE, desc = "fd armed when the reader's check said 0; every message once")
    @Outcome(id = {"2, 0, 1", "1, 0, 2", "0, 0, 3"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: check returned 0 with the descriptor unarmed")
    @Outcome(expect = FORBIDDEN, desc = "message lost or delivered twice")
    @State
    public static class SharedIdSocketPairArmVsSignal {

        /** A YSocketPair seen through one id: every writer of a mailbox over it shares id 0. */
        static final class OneId implements PollableSignaler {
            final Fixtures.SocketPair fixture = new Fixtures.SocketPair(YSocketPair.Kind.SOCKETPAIR);
            final YSocketPair pair = fixture.signals;

            @Override
            public void signal(int id) {
                if (id != 0) {
                    throw new IllegalArgumentException("id must be in [0, 1): " + id);
                }
                pair.signal(0);
            }

            @Override
            public int capacity() {
                return 1;
            }

            @Override
            public int check(IntConsumer ids) {
                return pair.check(ids);
            }

            @Override
            public int poll(IntConsumer ids) throws InterruptedException {
                return pair.poll(ids);
            }

            @Override
            public int poll(IntConsumer ids, long timeout, TimeUnit unit) throws InterruptedException {
                return pair.poll(ids, timeout, unit);
            }
        }

        /** A mailbox with two writers on one id, leased from a {@link DescriptorPool}. */
        static final class Box implements DescriptorPool.Fixture, Fixtures.Probe {
            final OneId signals = new OneId();
            final YMailbox<Integer> mailbox = new YMailbox<>(signals);
            final YMailbox.Writer<Integer> a = mailbox.newWriter();
            final YMailbox.Writer<Integer> b = mailbox.newWriter();

            @Override
            public int readable() {
                return signals.fixture.readable();
            }

            @Override
            public void reset() {
                YMailboxRaces.SocketPairArmVsSignal.drainArmed(mailbox, this);
            }
        }

        private static final DescriptorPool<Box> POOL = new DescriptorPool<>(SharedIdSocketPairArmVsSignal.class, Box::new);

        private final Box box;
        private int got;
        private int after;

        /** Leases a clean box (see {@link DescriptorPool}): every pipe asleep, the descriptor armed. */
        public SharedIdSocketPairArmVsSignal() {
            box = POOL.take(this);
        }

        @Actor
        public void writers() {
            box.a.send(1);
            box.b.send(2);
        }

        @Actor
        public void reader(III_Result r) {
            while (box.mailbox.check(v -> got++) != 0) {
                // until a check returns 0: the reader would now sleep on fd()
            }
            r.r1 = got;
        }

        @Arbiter
        public void poller(III_Result r) {
            box.a.send(3);
            r.r2 = box.readable();
            while (box.mailbox.check(v -> after++) != 0) {
                // the reader's next checks
            }
            r.r3 = after;
            POOL.give(box);
        }
    }

    /**
     * YMailbox over a YSemaphore (capacity 1): two writers whose pipes share signal id 0 (driven from one actor thread
     * so that the race fits two CPUs) each sending one message, racing the reader draining until it
     * finds nothing, i.e. until it is asleep on every pipe. The arbiter is the reader's next
     * {@code poll} (bounded by {@link Seq#TIMEOUT_MS}): a message the reader did not get must be
     * reachable by it — a pipe asleep and not signalled with a message in it is the lost wake-up.
     *
     * <p>r1 = messages (as a bit mask: writer A = 1, B = 2) the racing reader got, r2 = the mask the
     * next poll got, r3 = how many messages in all (2, or duplicates were delivered).
     */
    @JCStressTest
    @Outcome(id = {"3, 0, 2", "1, 2, 2", "2, 1, 2", "0, 3, 2"}, expect = ACCEPTABLE, desc = "both messages, once each, whoever got them")
    @Outcome(id = {"0, 0, 0", "1, 0, 1", "2, 0, 1", "0, 1, 1", "0, 2, 1"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: a message stranded behind a sleeping reader")
    @Outcome(expect = FORBIDDEN, desc = "message duplicated or corrupted")
    @State
    public static class SharedIdVsSleep {

        private final YMailbox<Integer> mailbox = new YMailbox<>(new YSemaphore());
        private final YMailbox.Writer<Integer> a = mailbox.newWriter();
        private final YMailbox.Writer<Integer> b = mailbox.newWriter();
        private int got;
        private int after;
        private int count;

        @Actor
        public void writers() {
            a.send(1);
            b.send(2);
        }

        @Actor
        public void reader(III_Result r) {
            while (mailbox.check(v -> {
                got |= v;
                count++;
            }) > 0) {
                // until nothing: asleep on every pipe
            }
            r.r1 = got;
        }

        @Arbiter
        public void nextPoll(III_Result r) {
            try {
                while ((got | after) != 3 && mailbox.poll(v -> {
                    after |= v;
                    count++;
                }, Seq.TIMEOUT_MS, Seq.UNIT) > 0) {
                    // until both are in, or the poll times out
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            r.r2 = after;
            r.r3 = count;
        }
    }

    /**
     * YMailbox over a YSocketPair, the reader waiting in a native poller: a writer's {@code send}
     * (the pipe's flush, and the id's signal when the pipe's reader sleeps) racing the reader's
     * {@code check}, which drains, finds nothing, puts the pipe to sleep and arms the descriptor. The
     * reader starts busy (its last check got a message). A {@code check} that returned 0 is the
     * reader's cue to sleep in poll(2) on {@code fd()}: a message still pending behind a descriptor
     * that reads not-ready is the lost wake-up, through both layers (pipe and signaler).
     *
     * <p>r1 = messages the racing check got; r2 = 1 if {@code fd()} polls readable; r3 = messages the
     * reader's next checks get.
     */
    @JCStressTest
    @Outcome(id = {"1, 0, 0", "1, 1, 0"}, expect = ACCEPTABLE, desc = "the check got the message (a leftover wake-up is allowed)")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the check found nothing and armed; the send made fd readable")
    @Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: message pending, reader armed, fd not readable")
    @Outcome(expect = FORBIDDEN, desc = "message lost or delivered twice")
    @State
    public static class SocketPairArmVsSignal {

        /** A mailbox, its one writer and its signaler, leased from a {@link DescriptorPool}. */
        static final class Box implements DescriptorPool.Fixture, Fixtures.Probe {
            final Fixtures.SocketPair signals = new Fixtures.SocketPair(YSocketPair.Kind.SOCKETPAIR);
            final YMailbox<Integer> mailbox = new YMailbox<>(signals.signals);
            final YMailbox.Writer<Integer> writer = mailbox.newWriter();

            @Override
            public int readable() {
                return signals.readable();
            }

            @Override
            public void reset() {
                drainArmed(mailbox, this);
            }
        }

        /**
         * Drains a mailbox until a check finds nothing (every pipe asleep, the signaler armed) and
         * proves its descriptor not readable.
         */
        static void drainArmed(YMailbox<Integer> mailbox, Fixtures.Probe fd) {
            while (mailbox.check(v -> { }) != 0) {
                // the previous sample's messages
            }
            if (fd.readable() != 0) {
                throw new IllegalStateException("mailbox: descriptor still readable after a drain that armed it");
            }
        }

        private static final DescriptorPool<Box> POOL = new DescriptorPool<>(SocketPairArmVsSignal.class, Box::new);

        private final Box box;
        private int got;
        private int after;

        /** Leases a clean box (see {@link DescriptorPool}) and leaves the reader busy (its last check got one). */
        public SocketPairArmVsSignal() {
            box = POOL.take(this);
            box.writer.send(0);
            if (box.mailbox.check(v -> { }) != 1) {
                throw new IllegalStateException("setup: the reader did not get its message");
            }
        }

        @Actor
        public void writer() {
            box.writer.send(5);
        }

        @Actor
        public void reader(III_Result r) {
            r.r1 = box.mailbox.check(v -> got++);
        }

        @Arbiter
        public void poller(III_Result r) {
            r.r2 = box.readable();
            while (box.mailbox.check(v -> after++) != 0) {
                // the reader's next checks
            }
            r.r3 = after;
            POOL.give(box);
        }
    }

    /**
     * YMailbox over its YPollset: two writers (two pipes, two signal ids; driven from one actor thread
     * so that the race fits two CPUs) each sending one message, racing the reader draining until it
     * finds nothing, i.e. until it is asleep on every pipe. The arbiter is the reader's next
     * {@code poll} (bounded by {@link Seq#TIMEOUT_MS}): a message the reader did not get must be
     * reachable by it — a pipe asleep and not signalled with a message in it is the lost wake-up.
     *
     * <p>r1 = messages (as a bit mask: writer A = 1, B = 2) the racing reader got, r2 = the mask the
     * next poll got, r3 = how many messages in all (2, or duplicates were delivered).
     */
    @JCStressTest
    @Outcome(id = {"3, 0, 2", "1, 2, 2", "2, 1, 2", "0, 3, 2"}, expect = ACCEPTABLE, desc = "both messages, once each, whoever got them")
    @Outcome(id = {"0, 0, 0", "1, 0, 1", "2, 0, 1", "0, 1, 1", "0, 2, 1"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: a message stranded behind a sleeping reader")
    @Outcome(expect = FORBIDDEN, desc = "message duplicated or corrupted")
    @State
    public static class TwoWritersVsSleep {

        private final YMailbox<Integer> mailbox = new YMailbox<>();
        private final YMailbox.Writer<Integer> a = mailbox.newWriter();
        private final YMailbox.Writer<Integer> b = mailbox.newWriter();
        private int got;
        private int after;
        private int count;

        @Actor
        public void writers() {
            a.send(1);
            b.send(2);
        }

        @Actor
        public void reader(III_Result r) {
            while (mailbox.check(v -> {
                got |= v;
                count++;
            }) > 0) {
                // until nothing: asleep on every pipe
            }
            r.r1 = got;
        }

        @Arbiter
        public void nextPoll(III_Result r) {
            try {
                while ((got | after) != 3 && mailbox.poll(v -> {
                    after |= v;
                    count++;
                }, Seq.TIMEOUT_MS, Seq.UNIT) > 0) {
                    // until both are in, or the poll times out
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            r.r2 = after;
            r.r3 = count;
        }
    }

    /**
     * YMailbox, three actors (needs three CPUs): two writer threads each sending one message,
     * racing each other (both fire ids of the one YPollset word) and the reader going to sleep. As
     * {@link YMailboxRaces.TwoWritersVsSleep}: the next poll must reach whatever the racing reader missed.
     */
    @JCStressTest
    @Outcome(id = {"3, 0, 2", "1, 2, 2", "2, 1, 2", "0, 3, 2"}, expect = ACCEPTABLE, desc = "both messages, once each")
    @Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP (a message stranded) or a duplicate")
    @State
    public static class TwoWritersVsSleepThreeActors {

        private final YMailbox<Integer> mailbox = new YMailbox<>();
        private final YMailbox.Writer<Integer> a = mailbox.newWriter();
        private final YMailbox.Writer<Integer> b = mailbox.newWriter();
        private int got;
        private int after;
        private int count;

        @Actor
        public void writerA() {
            a.send(1);
        }

        @Actor
        public void writerB() {
            b.send(2);
        }

        @Actor
        public void reader(III_Result r) {
            while (mailbox.check(v -> {
                got |= v;
                count++;
            }) > 0) {
                // until nothing: asleep on every pipe
            }
            r.r1 = got;
        }

        @Arbiter
        public void nextPoll(III_Result r) {
            try {
                while ((got | after) != 3 && mailbox.poll(v -> {
                    after |= v;
                    count++;
                }, Seq.TIMEOUT_MS, Seq.UNIT) > 0) {
                    // until both are in, or the poll times out
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            r.r2 = after;
            r.r3 = count;
        }
    }
}
