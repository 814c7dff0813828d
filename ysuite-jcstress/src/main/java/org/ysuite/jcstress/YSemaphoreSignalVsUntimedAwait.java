package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.YSemaphore;

import java.util.concurrent.ScheduledFuture;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YSemaphore (default spin-then-park): a post racing the untimed {@code await()}. The untimed
 * wait has no timeout of its own, so a {@link Watchdog} interrupts the waiter after {@link Seq#TIMEOUT_MS}:
 * r1 = -1 (interrupted) or r2 = 1 (slow) is a waiter that slept through its wake-up.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "await returned with the signal")
@Outcome(id = {"-1, 1, 1", "-1, 1, 0"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: the watchdog had to interrupt the waiter")
@Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP (slow) or the signal delivered twice")
@State
public class YSemaphoreSignalVsUntimedAwait {

    private final YSemaphore semaphore = new YSemaphore();

    @Actor
    public void poster() {
        semaphore.signal(0);
    }

    @Actor
    public void waiter(III_Result r) {
        long start = System.nanoTime(); // before the watchdog, so its interrupt counts as slow
        ScheduledFuture<?> dog = Watchdog.arm();
        try {
            semaphore.await();
            r.r1 = 1;
        } catch (InterruptedException e) {
            r.r1 = -1;
        }
        r.r2 = Seq.slow(start);
        Watchdog.disarm(dog);
    }

    @Arbiter
    public void next(III_Result r) {
        r.r3 = semaphore.check(id -> { });
    }
}
