package org.ysuite.internal;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.WaitPolicy;

/**
 * Helpers shared by the blocking signalers, in-process and cross-process ({@code YSemaphore},
 * {@code YPollset}, the socket pair, the shared signaler and pipe): argument checks with the project's standard
 * messages, and the deadline arithmetic of a timed spin-then-park wait.
 *
 * <p>Nothing here allocates in the normal path and nothing takes a lambda, so a signaler's
 * steady-state wait loop stays allocation-free. The intended shape of a blocking wait is:
 * <pre>{@code
 * if (Thread.interrupted()) throw new InterruptedException();   // as java.util.concurrent does
 * if (tryTake()) return ...;                                     // fast path
 * if (taker.spin(policy)) return ...;                            // SpinWait: the policy's spin
 * long deadline = timed ? Waits.deadline(nanos) : 0L;
 * ... register as the sleeping waiter, publish "asleep" with a CAS ...
 * for (;;) {
 *     if (!Waits.park(this, timed, deadline)) { ... time is up: withdraw "asleep", return ... }
 *     if (Thread.interrupted()) { ... withdraw "asleep" without taking a signal, throw ... }
 *     if (... a signal arrived ...) return ...;
 *     // else: a spurious wake-up, or a stale unpark from an earlier wait: park again
 * }
 * }</pre>
 *
 * <p>Deadlines are {@link System#nanoTime()} values and are only ever compared by subtraction
 * ({@code deadline - now}), so they stay correct when the clock value wraps around and when a
 * timeout saturates at {@link Long#MAX_VALUE} nanoseconds (a wait of 292 years).
 */
public final class Waits {

    private Waits() {
    }

    /**
     * Checks a constructor's waiting policy.
     *
     * @param policy the policy
     * @param name the argument's name, for the message
     * @return {@code policy}
     * @throws NullPointerException if {@code policy} is null
     */
    public static WaitPolicy checkPolicy(WaitPolicy policy, String name) {
        return Objects.requireNonNull(policy, name);
    }

    /**
     * Checks a timeout and converts it to nanoseconds (saturating, as {@link TimeUnit} does).
     *
     * @param timeout the timeout, {@code >= 0}
     * @param unit its unit
     * @return the timeout in nanoseconds, {@code >= 0}
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     */
    public static long timeoutNanos(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout + " " + unit);
        }
        return unit.toNanos(timeout);
    }

    /**
     * Builds the standard message for an id outside {@code [0, capacity)}.
     *
     * @param id the rejected id
     * @param capacity the signaler's capacity
     * @return the exception to throw
     */
    public static IllegalArgumentException badId(int id, int capacity) {
        return new IllegalArgumentException("id must be in [0, " + capacity + "): " + id);
    }

    /**
     * Builds the exception for a second thread that tries to sleep on a single-waiter signaler.
     *
     * @param signaler the signaler
     * @param sleeper the thread already registered as its waiter (may be null if it just left)
     * @return the exception to throw
     */
    public static IllegalStateException secondWaiter(Object signaler, Thread sleeper) {
        return new IllegalStateException(signaler.getClass().getSimpleName()
                + " has one waiting thread (its owner), and " + sleeper + " is already waiting; "
                + Thread.currentThread() + " may not wait at the same time");
    }

    /**
     * Returns the deadline of a wait of {@code nanos} starting now.
     *
     * @param nanos the timeout in nanoseconds, {@code >= 0}
     * @return a {@link System#nanoTime()} value, to compare only by subtraction
     */
    public static long deadline(long nanos) {
        return System.nanoTime() + nanos;
    }

    /**
     * Parks the current thread once: until unparked, interrupted, spuriously woken or, for a
     * timed wait, until {@code deadline}. Parking may return for no reason, so the caller must
     * re-check its condition (and the interrupt status) after every return.
     *
     * @param blocker the object the thread waits on (shown in thread dumps)
     * @param timed whether {@code deadline} applies
     * @param deadline the deadline from {@link #deadline(long)}; ignored unless {@code timed}
     * @return {@code false}, without parking, if the wait is timed and the deadline has passed;
     *     {@code true} otherwise
     */
    public static boolean park(Object blocker, boolean timed, long deadline) {
        if (!timed) {
            LockSupport.park(blocker);
            return true;
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0L) {
            return false;
        }
        LockSupport.parkNanos(blocker, remaining);
        return true;
    }

    /**
     * Hands each bit of {@code bits} to {@code ids}, lowest first; if {@code ids} throws, hands
     * the bits not yet delivered to {@code putBack} (the signaler fires them again) and rethrows.
     */
    public static int deliver(int bits, java.util.function.IntConsumer ids, java.util.function.IntConsumer putBack) {
        int count = Integer.bitCount(bits);
        while (bits != 0) {
            int id = Integer.numberOfTrailingZeros(bits);
            bits &= bits - 1;
            try {
                ids.accept(id);
            } catch (RuntimeException | Error e) {
                if (bits != 0) {
                    putBack.accept(bits);
                }
                throw e;
            }
        }
        return count;
    }
}
