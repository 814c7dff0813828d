package org.ysuite;

/**
 * A signaler owner's parks and their time, counted around the park itself (not the spin before
 * it, nor a poll that found a signal at once): what {@link YMailbox#stats()} reports as the
 * reader's sleeps over one of ysuite's signalers. Written by the owner thread only, on its slow
 * path (it is about to park, a system call); read racily by snapshots from any thread (a 64-bit
 * long is never torn on the JVMs ysuite runs on).
 */
final class ParkClock {

    private long parks;
    private long parkNanos;

    /** Owner, about to park: the start of the sleep. */
    static long start() {
        return System.nanoTime();
    }

    /** Owner, awake again (signalled, timed out, interrupted or closed): counts one sleep. */
    void stop(long startedAt) {
        parks++;
        parkNanos += System.nanoTime() - startedAt;
    }

    /** Any thread: sleeps so far. */
    long parks() {
        return parks;
    }

    /** Any thread: time asleep so far, in nanoseconds (sleeps that ended). */
    long parkNanos() {
        return parkNanos;
    }

    /** The clock of one of ysuite's signalers, or {@code null} for any other signaler. */
    static ParkClock of(Signaler signaler) {
        if (signaler instanceof YPollset) {
            return ((YPollset) signaler).parkClock;
        } else if (signaler instanceof YSemaphore) {
            return ((YSemaphore) signaler).parkClock;
        } else if (signaler instanceof WakeupSignaler) {
            return ((WakeupSignaler) signaler).parkClock;
        }
        return null;
    }
}
