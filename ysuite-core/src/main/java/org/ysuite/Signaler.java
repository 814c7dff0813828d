package org.ysuite;

/**
 * The standard y-suite signalling interface: the writing side of active synchronisation.
 *
 * <p>A signaler carries up to {@link #capacity()} distinct signals, numbered {@code 0} to
 * {@code capacity() - 1}, from any thread the implementation allows to the one thread that owns
 * it. Generic algorithms (a pipe writer whose {@code flush()} found the reader asleep, a
 * {@link YMailbox} writer) fire signals through this interface without knowing whether a
 * {@link YSemaphore}, a {@link YPollset} or a {@link YSocketPair} is behind it.
 *
 * <p>Signals are <em>binary</em>: firing an id that is already fired and not yet taken by the
 * owner is the same as firing it once. Firing a signal happens-before the owner's taking it.
 *
 * <p>The owner's (waiting) side is {@link PollableSignaler}; a signaler whose owner waits by
 * other means (a native poller on {@link YSocketPair#fd()}) needs only this interface.
 */
public interface Signaler {

    /**
     * Fires signal {@code id}, waking the owner if it is asleep.
     *
     * @param id the signal to fire, {@code 0 <= id < capacity()}
     * @throws IllegalArgumentException if {@code id} is out of range
     * @throws IllegalStateException if the signaler is closed
     */
    void signal(int id);

    /**
     * Returns how many distinct signals this signaler carries.
     *
     * @return the number of valid ids; valid ids are {@code 0} to {@code capacity() - 1}
     */
    int capacity();
}
