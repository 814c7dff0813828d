package org.ysuite;

import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * A {@link Signaler} whose owner can take the fired signals itself, without blocking
 * ({@link #check(IntConsumer)}) or waiting for one ({@link #poll(IntConsumer)}).
 *
 * <p>Only the owning thread may call the methods of this interface; any thread may
 * {@link #signal(int) signal}. Each call hands every fired id to {@code ids}, once, and clears it:
 * a signal fired after the call took it is kept for the next call. Taking a signal happens-after
 * the {@code signal} call that fired it.
 *
 * <p>The sink is called on the owner's thread while the call runs; a sink stored in a field
 * lets a steady-state loop run without allocation.
 */
public interface PollableSignaler extends Signaler {

    /**
     * Takes every fired signal without blocking.
     *
     * @param ids receives each fired id once
     * @return how many ids were handed to {@code ids}; {@code 0} if none was fired
     * @throws NullPointerException if {@code ids} is null
     */
    int check(IntConsumer ids);

    /**
     * Takes every fired signal, waiting (spinning briefly, then parking) until at least one is
     * fired.
     *
     * @param ids receives each fired id once
     * @return how many ids were handed to {@code ids}; at least {@code 1}
     * @throws InterruptedException if the owner is interrupted while waiting; no signal is taken
     * @throws NullPointerException if {@code ids} is null
     */
    int poll(IntConsumer ids) throws InterruptedException;

    /**
     * Takes every fired signal, waiting at most {@code timeout} for one to be fired.
     *
     * @param ids receives each fired id once
     * @param timeout how long to wait, {@code >= 0}; zero means do not wait (like {@link #check})
     * @param unit the unit of {@code timeout}
     * @return how many ids were handed to {@code ids}; {@code 0} if the time ran out
     * @throws InterruptedException if the owner is interrupted while waiting; no signal is taken
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code ids} or {@code unit} is null
     */
    int poll(IntConsumer ids, long timeout, TimeUnit unit) throws InterruptedException;
}
