package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.PollableSignaler;
import org.ysuite.YMailbox;
import org.ysuite.YSocketPair;

import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
public class YMailboxSharedIdSocketPairArmVsSignal {

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
            YMailboxSocketPairArmVsSignal.drainArmed(mailbox, this);
        }
    }

    private static final DescriptorPool<Box> POOL = new DescriptorPool<>(YMailboxSharedIdSocketPairArmVsSignal.class, Box::new);

    private final Box box;
    private int got;
    private int after;

    /** Leases a clean box (see {@link DescriptorPool}): every pipe asleep, the descriptor armed. */
    public YMailboxSharedIdSocketPairArmVsSignal() {
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
