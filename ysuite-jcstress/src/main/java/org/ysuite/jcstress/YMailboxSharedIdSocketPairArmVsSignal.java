package org.ysuite.jcstress;

import jnr.ffi.Pointer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.PollableSignaler;
import org.ysuite.YMailbox;
import org.ysuite.YSocketPair;

import java.util.concurrent.ConcurrentLinkedQueue;
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
        final YSocketPair pair = new YSocketPair();

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

    /** A mailbox with two writers on one id, reused across rounds (descriptors are scarce). */
    static final class Box {
        final OneId signals = new OneId();
        final YMailbox<Integer> mailbox = new YMailbox<>(signals);
        final YMailbox.Writer<Integer> a = mailbox.newWriter();
        final YMailbox.Writer<Integer> b = mailbox.newWriter();
    }

    private static final ConcurrentLinkedQueue<Box> POOL = new ConcurrentLinkedQueue<>();

    private final Box box;
    private final Pointer pollfd = Readiness.pollfd();
    private int got;
    private int after;

    /** Takes a box from the pool and drains it: every pipe asleep, the descriptor armed. */
    public YMailboxSharedIdSocketPairArmVsSignal() {
        Box b = POOL.poll();
        box = b != null ? b : new Box();
        while (box.mailbox.check(v -> { }) != 0) {
            // leftovers
        }
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
        r.r2 = Readiness.readable(pollfd, box.signals.pair.fd());
        while (box.mailbox.check(v -> after++) != 0) {
            // the reader's next checks
        }
        r.r3 = after;
        POOL.offer(box);
    }
}
