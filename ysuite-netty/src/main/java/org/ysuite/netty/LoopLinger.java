package org.ysuite.netty;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;

/**
 * Keeps a stream's event loop out of its sleep for a short while after it handed messages to a
 * reader that is awake, so that the reader's answer finds the loop running. A writer whose flush
 * finds the loop's side of its pipe asleep queues the pipe's drain task; Netty's
 * {@code execute()} writes the loop's eventfd only when the loop sleeps in {@code epoll_wait}, so
 * a loop that lingers in a task costs the sender no system call, and the loop runs the drain task
 * at once instead of after a wake-up: on a 2-vCPU virtual machine a send call that wakes the loop
 * takes several microseconds (docs/network.md, "The loop lingers for the answer").
 *
 * <p>The linger is a task queued by the loop itself after such a delivery (no wake-up). It
 * yields the CPU round by round (the reader that will answer may need it) and ends as soon as any
 * task is pending, or after its budget. The budget adapts as the reader's spin does, in time: a
 * linger that ended with a task after {@code t} raises it to {@code 2t}; every
 * {@value SpinBudget#FAILURES_PER_HALVING}th linger in a row that ran out halves it, down to zero
 * (a stream whose reader does not answer, e.g. one-way traffic, soon lingers not at all); while it
 * is zero, a writer's drain task that comes within the cap of a delivery brings it back to a
 * quarter of the cap. All at most the cap; a cap of 0 never lingers. While the loop lingers it
 * handles no I/O for its other channels, which is why the budget is short and adaptive.
 *
 * <p>Every field is the loop thread's only; {@link #NONE} is for a stream without a loop of this
 * kind (an embedded channel in tests).
 */
final class LoopLinger implements Runnable {

    /** A linger that never lingers. */
    static final LoopLinger NONE = new LoopLinger(null, 0);

    private final SingleThreadEventExecutor loop;
    private final SpinBudget budget;
    private boolean queued;
    /** When the last delivery that did not linger happened ({@link System#nanoTime()}), or 0. */
    private long unlingeredAt;
    private long lingers;
    private long hits;

    /**
     * A linger on {@code loop}, at most {@code capNanos} long; none unless the loop is a
     * {@link SingleThreadEventExecutor} (whose pending tasks it can see).
     */
    LoopLinger(EventExecutor loop, long capNanos) {
        this.loop = loop instanceof SingleThreadEventExecutor ? (SingleThreadEventExecutor) loop : null;
        this.budget = new SpinBudget(this.loop == null ? 0 : capNanos);
    }

    /** Loop: messages went to a reader that is awake; linger after this read, if the budget allows. */
    void delivered() {
        if (budget.cap() == 0 || queued) {
            return;
        }
        if (budget.nanos() > 0) {
            queued = true;
            loop.execute(this); // from the loop thread: queued, no wake-up
        } else {
            unlingeredAt = System.nanoTime();
        }
    }

    /** Loop: a writer's drain task ran; while the budget is zero, one soon after a delivery brings it back. */
    void drained() {
        if (unlingeredAt != 0) {
            learnUnlingered(System.nanoTime() - unlingeredAt);
            unlingeredAt = 0;
        }
    }

    /** The linger itself: runs on the loop, as a task. */
    @Override
    public void run() {
        queued = false;
        lingers++;
        long start = System.nanoTime();
        long limit = budget.nanos();
        long waited;
        do {
            if (loop.pendingTasks() > 0) {
                hits++;
                learnHit(System.nanoTime() - start);
                return;
            }
            Thread.yield(); // the answering thread may need this very CPU
            waited = System.nanoTime() - start;
        } while (waited < limit);
        learnMiss();
    }

    /** A linger ended with a task after {@code waited} ns. */
    void learnHit(long waited) {
        budget.paid(2 * waited);
    }

    /** A linger ran out. */
    void learnMiss() {
        budget.failed();
    }

    /** While the budget is zero: a writer's drain task came {@code after} ns after a delivery. */
    void learnUnlingered(long after) {
        if (budget.nanos() == 0 && after <= budget.cap()) {
            budget.regrow();
        }
    }

    /** The budget now, ns (for tests). */
    long budget() {
        return budget.nanos();
    }

    /** How many lingers ran, and how many of them ended with a task (for tests). */
    long lingers() {
        return lingers;
    }

    long hits() {
        return hits;
    }
}
