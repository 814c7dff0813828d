package org.ysuite.reliability;

import org.ysuite.PollableSignaler;
import org.ysuite.Signaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.Function;

/** The bad-input rows of the signalers: YSemaphore and YPollset (and the PollableSignaler contract). */
final class SignalerBadInputs {

    private SignalerBadInputs() {
    }

    static List<BadInput> rows() {
        BadInput.Rows t = new BadInput.Rows("YSemaphore");
        signaler(t, YSemaphore::new, new YSemaphore());
        YSemaphore sem = new YSemaphore();
        t.iae("await(-1, ms)", () -> sem.await(-1, TimeUnit.MILLISECONDS), "timeout", "0", -1);
        t.iae("await(MIN_VALUE, ns)", () -> sem.await(Long.MIN_VALUE, TimeUnit.NANOSECONDS), "timeout", "0", Long.MIN_VALUE);
        t.npe("await(1, null)", () -> sem.await(1, null), "unit");
        t.ise("a second thread waiting while the owner waits",
                () -> secondWaiter(new YSemaphore(WaitPolicy.purePark()), s -> s.await(), s -> s.await(60, TimeUnit.SECONDS)),
                "one waiting thread");

        BadInput.Rows p = new BadInput.Rows("YPollset");
        signaler(p, YPollset::new, new YPollset());
        YPollset ps = new YPollset();
        p.iae("poll(-1, ms)", () -> ps.poll(-1, TimeUnit.MILLISECONDS), "timeout", "0", -1);
        p.npe("poll(1, null)", () -> ps.poll(1, null), "unit");
        p.ise("a second thread polling while the owner polls",
                () -> secondWaiter(new YPollset(WaitPolicy.purePark()), s -> s.poll(), s -> s.poll(60, TimeUnit.SECONDS)),
                "one waiting thread");
        t.rows.addAll(p.rows);
        return t.rows;
    }

    /** The rows every PollableSignaler shares: constructor policy, ids out of range, nulls, timeouts. */
    static <S extends PollableSignaler> void signaler(BadInput.Rows t, Function<WaitPolicy, S> withPolicy, S s) {
        t.npe("new(null policy)", () -> withPolicy.apply(null), "policy");
        int cap = s.capacity();
        String range = "[0, " + cap + ")";
        for (int bad : new int[] {-1, cap, cap + 1, 255, 256, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            if (bad >= 0 && bad < cap) {
                continue;
            }
            t.iae("signal(" + bad + ")", () -> s.signal(bad), "id", range, bad);
        }
        IntConsumer ids = id -> { };
        t.npe("check(null)", () -> s.check(null), "ids");
        t.npe("poll(null)", () -> s.poll(null), "ids");
        t.npe("poll(null, 1, ms)", () -> s.poll(null, 1, TimeUnit.MILLISECONDS), "ids");
        t.iae("poll(ids, -1, ms)", () -> s.poll(ids, -1, TimeUnit.MILLISECONDS), "timeout", "0", -1);
        t.iae("poll(ids, MIN_VALUE, s)", () -> s.poll(ids, Long.MIN_VALUE, TimeUnit.SECONDS), "timeout", "0", Long.MIN_VALUE);
        t.npe("poll(ids, 1, null)", () -> s.poll(ids, 1, null), "unit");
    }

    interface Wait<S> {
        void on(S s) throws InterruptedException;
    }

    /**
     * Parks the owner in {@code ownerWait} on another thread, then has a second thread wait too;
     * rethrows what the second waiter got, after releasing the owner with a signal.
     */
    static <S extends Signaler> void secondWaiter(S s, Wait<S> ownerWait, Wait<S> secondWait) throws Throwable {
        secondWaiter(s, ownerWait, secondWait, () -> s.signal(0));
    }

    /** As above, for any waitable subject, with {@code release} waking the owner at the end. */
    static <S> void secondWaiter(S s, Wait<S> ownerWait, Wait<S> secondWait, Runnable release) throws Throwable {
        CountDownLatch done = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            try {
                ownerWait.on(s);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                done.countDown();
            }
        }, "owner");
        owner.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (owner.getState() != Thread.State.WAITING) { // pure park: WAITING means parked in the wait
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the owner never parked");
            }
            Thread.onSpinWait();
        }
        try {
            OffHeapYPipeBadInputs.runOnOtherThread(() -> secondWait.on(s));
        } finally {
            release.run();
            if (!done.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the owner did not wake up");
            }
        }
    }
}
