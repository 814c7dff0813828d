package org.ysuite.jcstress;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * Bounds an untimed wait inside an actor: {@link #arm()} schedules an interrupt of the calling
 * thread after {@link Seq#TIMEOUT_MS}, {@link #disarm} cancels it. A waiter that needed the
 * interrupt (or waited {@link Seq#SLOW_MS}, see {@link Seq#slow}) slept through its
 * wake-up, which the races report as a forbidden outcome.
 */
final class Watchdog {

    /** One task per sample; cancelled ones must leave the queue at once, or millions of them pile up. */
    private static final ScheduledExecutorService TIMER = timer();

    private Watchdog() {
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread t = new Thread(task, "ysuite-jcstress-watchdog");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** Interrupts the calling thread after {@link Seq#TIMEOUT_MS} unless {@link #disarm}ed first. */
    static ScheduledFuture<?> arm() {
        Thread me = Thread.currentThread();
        return TIMER.schedule(me::interrupt, Seq.TIMEOUT_MS, Seq.UNIT);
    }

    /** Cancels the interrupt and clears one that came already, so it cannot leak into the next sample. */
    static void disarm(ScheduledFuture<?> dog) {
        dog.cancel(false);
        Thread.interrupted();
    }
}
