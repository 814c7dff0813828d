package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.YMailbox;
import org.ysuite.YSocketPair;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
public class YMailboxSocketPairArmVsSignal {

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

    private static final DescriptorPool<Box> POOL = new DescriptorPool<>(YMailboxSocketPairArmVsSignal.class, Box::new);

    private final Box box;
    private int got;
    private int after;

    /** Leases a clean box (see {@link DescriptorPool}) and leaves the reader busy (its last check got one). */
    public YMailboxSocketPairArmVsSignal() {
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
