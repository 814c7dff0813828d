package org.ysuite.netty;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.ysuite.PollableSignaler;

/**
 * The signaler of a {@link LoopMailbox}: {@value #CAPACITY} signal ids in one atomic word, and
 * Netty's own wake-up instead of a descriptor of ours. The first signal after the loop found the
 * mailbox empty queues one preallocated task on the loop ({@code loop.execute(wakeTask)}); Netty
 * writes its eventfd only if the loop is asleep in {@code epoll_wait} (its
 * {@code nextWakeupNanos}), so an awake loop costs the signaller no system call, and a sleeping
 * one costs what {@code execute()} costs: one {@code write(2)}, which the loop never reads back
 * (Netty's eventfd is edge-triggered). A descriptor of our own costs one more system call per
 * wake-up (its {@code read(2)} on the loop) and its readiness event.
 *
 * <h2>States</h2>
 * <ul>
 *   <li>{@code IDLE}: the loop is draining (its last check found something); signals set bits.</li>
 *   <li>{@code ARMED}: the loop's last check found nothing; the signaller that moves
 *       ARMED&rarr;WOKEN queues the wake task.</li>
 *   <li>{@code WOKEN}: the wake task is queued; signals set bits. Only the wake task leaves it
 *       ({@link #woken()}), and it then drains: while WOKEN a drain is owed, so a check that finds
 *       nothing does not arm.</li>
 * </ul>
 *
 * <p>Why no wake-up is lost: a signaller fires its bit (a volatile read-modify-write) and then
 * reads {@code state} (volatile); the loop stores ARMED (volatile) and then reads the bits
 * (volatile). Volatile accesses are totally ordered, so either the loop's read sees the bit, or
 * the signaller's read sees ARMED and queues the task. A signaller that finds its bit already set
 * does nothing: the thread that set it does the state check. The queued task happens-after the
 * signal ({@code execute} hands it over through Netty's queue), so the drain sees the message.
 *
 * <p>If the loop refuses the task (it is shut down), the signal is dropped: the mailbox's close
 * sequence visits every pipe after every sender call has returned.
 */
final class LoopWakeSignaler implements PollableSignaler {

    /** Signal ids: {@value}, one bit each of one word. */
    static final int CAPACITY = 64;

    private static final int IDLE = 0;
    private static final int ARMED = 1;
    private static final int WOKEN = 2;

    private static final VarHandle BITS;
    private static final VarHandle STATE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            BITS = l.findVarHandle(LoopWakeSignaler.class, "bits", long.class);
            STATE = l.findVarHandle(LoopWakeSignaler.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Executor loop;
    private final Runnable wakeTask;

    private volatile long bits;
    /** Starts IDLE: signals before the first check only set bits, and that check takes them. */
    private volatile int state;

    /**
     * @param loop where the wake task is queued
     * @param wakeTask runs on the loop: calls {@link #woken()}, then drains
     */
    LoopWakeSignaler(Executor loop, Runnable wakeTask) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.wakeTask = Objects.requireNonNull(wakeTask, "wakeTask");
    }

    @Override
    public int capacity() {
        return CAPACITY;
    }

    @Override
    public void signal(int id) {
        if (id < 0 || id >= CAPACITY) {
            throw new IllegalArgumentException("id must be >= 0 and < " + CAPACITY + ": " + id);
        }
        long bit = 1L << id;
        if (((long) BITS.getAndBitwiseOr(this, bit) & bit) != 0) {
            return; // already fired: the thread that fired it does the state check
        }
        // Volatile read after the volatile read-modify-write of the bit (Dekker, see class doc).
        if (state == ARMED && STATE.compareAndSet(this, ARMED, WOKEN)) {
            try {
                loop.execute(wakeTask);
            } catch (RejectedExecutionException e) {
                // The loop is shut down: the close sequence drains every pipe (see class doc).
            }
        }
    }

    /** Loop thread, first thing in the wake task: leaves WOKEN, so that a check can arm again. */
    void woken() {
        state = IDLE; // only the wake task leaves WOKEN, and only the loop thread arms
    }

    /**
     * Loop thread: takes every fired id; one that finds none arms the wake-up (unless a wake task
     * is queued already, which drains in turn).
     */
    @Override
    public int check(IntConsumer ids) {
        int n = take(ids);
        if (n != 0) {
            return n;
        }
        if (state == IDLE) {
            state = ARMED; // only the loop leaves IDLE, so a volatile store is enough
        }
        n = take(ids); // re-read after publishing ARMED (Dekker with signal)
        if (n != 0) {
            // Busy again: disarm, unless a signaller already won ARMED->WOKEN (its task then
            // drains once more, finding nothing or the next messages).
            STATE.compareAndSet(this, ARMED, IDLE);
        }
        return n;
    }

    private int take(IntConsumer ids) {
        if (bits == 0L) {
            return 0; // volatile read: no atomic when nothing is fired
        }
        long b = (long) BITS.getAndSet(this, 0L);
        int n = 0;
        while (b != 0L) {
            ids.accept(Long.numberOfTrailingZeros(b));
            b &= b - 1;
            n++;
        }
        return n;
    }

    /**
     * Not supported: the loop never blocks on this signaler, it is woken by its task.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public int poll(IntConsumer ids) {
        throw new UnsupportedOperationException("a LoopMailbox is drained by its event loop, not polled");
    }

    /**
     * Not supported: the loop never blocks on this signaler, it is woken by its task.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public int poll(IntConsumer ids, long timeout, TimeUnit unit) {
        throw new UnsupportedOperationException("a LoopMailbox is drained by its event loop, not polled");
    }
}
