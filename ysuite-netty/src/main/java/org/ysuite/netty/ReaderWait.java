package org.ysuite.netty;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.IntConsumer;
import org.ysuite.WaitPolicy;
import org.ysuite.YSemaphore;

/**
 * The one wait of a {@link MessageStream}'s reader: it found the inbound pipe empty (the pipe,
 * whose reader policy never spins, has put it to sleep), so the loop's next flush signals here.
 * The reader spins on that signal for an adaptive budget, then parks once: one spin, under one
 * policy, per wait. Each round of the spin yields the CPU ({@link Thread#yield()}): the loop that
 * will signal may be waiting for this very core.
 *
 * <p>Two kinds of wait, each with a budget of its own: a <em>reply</em> wait, when the reading
 * thread itself sent a message since its last wait (a request/response: the answer is due within
 * a round trip, so it may spin up to {@code replySpin}), and any other wait (traffic it did not
 * ask for, capped at {@code readerSpin}). Each budget is learned from recent waits of its kind,
 * in time (a round trip is tens of microseconds; a count of spin rounds would mean a different
 * time on every machine): a wait caught while spinning after {@code t} raises the budget to
 * {@code 2t}; a park whose message came within the cap raises it to the time measured (which
 * includes the wake-up, so it errs long), and a park shorter than
 * {@value Budget#SHORT_PARK_NANOS} ns (about a wake-up) doubles it, from a quarter of the cap if it
 * was lower; all at most the cap. Every {@value SpinBudget#FAILURES_PER_HALVING}th wait in a row that
 * took longer than both the cap and that bound halves it, down to zero, so a sparse stream soon
 * spins not at all; its parks still measure the waits, so a stream that becomes dense again gets
 * its spin back.
 *
 * <p>Fields: {@code reader}, {@code replyDue} and both budgets are written by the reading thread
 * only. A writer thread reads {@code reader} in {@link #sent()} as a plain hint: a reference is
 * read whole, and a stale value only means one wait of the wrong kind. {@code replyDue} is set by
 * {@link #sent()} only on the reading thread itself. The counters are read after the reader is
 * joined, or as hints.
 *
 * <p>Ordering: the signal is a {@link YSemaphore}: the loop's {@code signal} happens-before the
 * reader's take, so the reader sees every message the loop flushed before it.
 */
final class ReaderWait {

    private static final IntConsumer NO_IDS = id -> { };
    private static final VarHandle SPINNING;

    static {
        try {
            SPINNING = MethodHandles.lookup().findVarHandle(ReaderWait.class, "spinning", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final YSemaphore signal = new YSemaphore(WaitPolicy.purePark());
    private final Budget other;
    private final Budget reply;
    /** The thread that last waited here. */
    private Thread reader;
    /** The reading thread sent a message since its last wait. */
    private boolean replyDue;
    private long waits;
    private long sleeps;
    /**
     * True while the reader spins (opaque: a hint for the loop, {@link #spinning()}); written by
     * the reading thread only.
     */
    private boolean spinning;

    ReaderWait(long maxSpinNanos, long maxReplySpinNanos) {
        this.other = new Budget(maxSpinNanos);
        this.reply = new Budget(maxReplySpinNanos);
    }

    /** Loop (or any thread): wakes the reader. */
    /** Names the semaphore the reader sleeps on, for its Flight Recorder events. */
    void name(String name) {
        signal.named(name);
    }

    void signal() {
        signal.signal(0);
    }

    /** Any writer thread, after it published a message: a reply is due if it is the reader. */
    void sent() {
        if (Thread.currentThread() == reader) {
            replyDue = true;
        }
    }

    /** Reader: waits for {@link #signal()}, spinning first as the budget of this kind allows. */
    void await() throws InterruptedException {
        waits++;
        Thread me = Thread.currentThread();
        Budget kind = replyDue && reader == me ? reply : other;
        reader = me;
        replyDue = false;
        long budget = kind.nanos();
        long start = System.nanoTime();
        if (budget > 0 && !(WaitPolicy.isVirtual(me) && WaitPolicy.virtualThreadSpins() == 0)) {
            long waited;
            SPINNING.setOpaque(this, true);
            do {
                if (signal.check(NO_IDS) > 0) {
                    SPINNING.setOpaque(this, false);
                    kind.learn(System.nanoTime() - start, false);
                    return;
                }
                // What the reader waits for is an event loop's thread on this machine, which may
                // need this very CPU (every core busy): give it up at once rather than hold it to
                // the end of a time slice. Where a core is free, yield returns at once.
                Thread.yield();
                waited = System.nanoTime() - start;
            } while (waited < budget);
            SPINNING.setOpaque(this, false);
        }
        sleeps++;
        signal.await();
        kind.learn(System.nanoTime() - start, true);
    }

    /**
     * Any thread (the loop, after its signal): whether the reader is spinning, so will take the
     * signal without a wake-up and may answer soon. A hint: a stale answer costs one linger too
     * many or too few ({@link LoopLinger}).
     */
    boolean spinning() {
        return (boolean) SPINNING.getOpaque(this);
    }

    /** How many times the reader waited (found the pipe empty). */
    long waits() {
        return waits;
    }

    /** How many of those waits parked (the spin did not catch the message). */
    long sleeps() {
        return sleeps;
    }

    /** The spin budget for waits the reader did not ask for, for tests. */
    Budget other() {
        return other;
    }

    /** The spin budget for replies to the reader's own messages, for tests. */
    Budget reply() {
        return reply;
    }

    /**
     * The reader's spin budget (the reading thread's only): what a wait of the reader tells
     * {@link SpinBudget}.
     */
    static final class Budget extends SpinBudget {
        /**
         * A park shorter than this brought a message about as soon as a wake-up could (one costs
         * tens of microseconds on a virtual machine, more than a cap of a few): the same bound as
         * the core's adaptive {@code WaitPolicy}. Such a park grows the budget even when it took
         * longer than the cap, so a budget at zero comes back once the stream is dense again;
         * measured against the cap alone, every park of a dense stream looked long and a budget
         * that had reached zero stayed there.
         */
        static final long SHORT_PARK_NANOS = 60_000L;

        Budget(long cap) {
            super(cap);
        }

        /** A wait took {@code waited} ns: to the message if caught spinning, to the wake-up if {@code parked}. */
        void learn(long waited, boolean parked) {
            if (waited <= cap()) {
                paid(parked ? waited : 2 * waited);
            } else if (parked && waited < SHORT_PARK_NANOS) {
                regrow();
            } else {
                failed();
            }
        }
    }
}
