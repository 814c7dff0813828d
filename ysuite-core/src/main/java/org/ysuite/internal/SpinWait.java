package org.ysuite.internal;

import org.ysuite.WaitPolicy;

/**
 * The spin phase of every ysuite wait, written once: the loop of {@link WaitPolicy}'s javadoc,
 * with the policy's {@link WaitPolicy#spun(int)} / {@link WaitPolicy#parked()} reports, so that an
 * adaptive policy hears of every wait, and times every park from its {@code parked()} to the
 * next wait's {@link WaitPolicy#spins()} without any code of the caller's.
 *
 * <p>A waiter keeps one instance (made with the waiter, never on the wait's path) of a
 * {@code final} nested class that says what "ready" means for it. The field holding it is
 * declared with that final class, so the JIT knows the receiver's exact type where
 * {@link #spin(WaitPolicy)} is inlined and inlines {@link #ready()} too: no allocation, no
 * lambda and no virtual call on the hot path.
 */
public abstract class SpinWait {

    /**
     * One look at the awaited condition, on the waiting thread. It may take what it finds (a
     * signal); a subclass keeps what it took in a plain field for its caller.
     *
     * @return {@code true} once the wait is over
     */
    protected abstract boolean ready();

    /**
     * Spins as {@code policy} allows, looking once per round after one
     * {@link Thread#onSpinWait()}. The caller has looked once already (its fast path).
     *
     * @param policy the waiter's policy
     * @return {@code true} if {@link #ready()} answered {@code true} (reported as
     *     {@code spun(round)}); {@code false} if the whole spin passed in vain (reported as
     *     {@code parked()}: the caller goes on to sleep)
     */
    public final boolean spin(WaitPolicy policy) {
        int limit = policy.spins();
        for (int round = 1; round <= limit; round++) {
            Thread.onSpinWait();
            if (ready()) {
                policy.spun(round);
                return true;
            }
        }
        policy.parked();
        return false;
    }
}
