package org.ysuite;

/**
 * The reader's batching delay: how many {@link Thread#onSpinWait()} pauses a reader (a pipe's,
 * a mailbox's) lets pass before its first look for new messages after a batch. Each reader keeps
 * its current delay in a plain field of its own; this class holds the rule.
 *
 * <p>Why a delay: every look by the reader takes the cache line of {@code c} (and of the slots
 * the writer is filling) out of the writer's hands, and the writer's next flush, a CAS on that
 * line, waits for it to come back: a cross-core round trip. A reader that looks as fast as it
 * can in a dense stream finds one or two messages per look and makes every flush pay that wait:
 * the reader's eagerness slows the writer down, and the pipe runs in lock step at one round trip
 * per message. Giving the writer a moment lets its flushes land on uncontended lines and reach
 * the reader as one batch, the seed's consumer-side batching.
 *
 * <p>The rule, per first look after a batch:
 * <pre>
 *   found 0                     no change here; the wait's spin decides (see below)
 *   found 1, no delay           the writer was ahead of an eager look      delay = 2 * delay + 1
 *   found 2 .. TARGET-1         the writer flushed several times meanwhile delay = 2 * delay + 1
 *   found 1 after a delay       a reply in a ping-pong looks like this     delay = delay / 2
 *   found TARGET or more        the reader is behind: waiting gains nothing delay = delay / 2
 *   found during the spin       the messages came later: no dense stream   delay = delay / 2
 *   the reader went to sleep    sparse traffic                             delay = 0
 * </pre>
 * capped at {@value #MAX_PAUSES} pauses (a few microseconds on x86), and always zero for a reader
 * whose {@link WaitPolicy} allows no spin ({@code purePark()}, or any policy in a virtual thread,
 * whose carrier the pauses would hold). A ping-pong and sparse
 * traffic therefore never pay the delay; a saturated stream is drained in batches of tens to
 * hundreds. The delay only spaces a reader's loads out: it adds no memory access and changes no
 * ordering, so the pipe's protocol and its proofs are untouched.
 */
final class BatchDelay {

    /** The cap, in pauses. */
    static final int MAX_PAUSES = 128;
    /** A first look that finds this many messages or more halves the delay. */
    static final int TARGET = 256;

    private BatchDelay() {
    }

    /**
     * Does nothing; calling it loads and initialises this class. A pipe calls it when its class is
     * initialised, so that no first look, possibly in a virtual thread, loads a class (a class load
     * in a virtual thread can pin its carrier), as {@code SideGuard.preload()} does.
     */
    static void preload() {
    }

    /**
     * Spends {@code pauses} pauses without touching shared memory.
     *
     * @param pauses how many, {@code >= 0}
     */
    static void pause(int pauses) {
        for (int i = 0; i < pauses; i++) {
            Thread.onSpinWait();
        }
    }

    /**
     * The next delay after a first look that followed {@code delay} pauses and found
     * {@code found} new messages ({@code found > 0}; a pipe passes how far c moved).
     *
     * @param delay the delay just spent
     * @param found messages (or positions) the look found
     * @return the next delay
     */
    static int afterLook(int delay, long found) {
        if (found < TARGET && (found > 1 || delay == 0)) {
            return Math.min(2 * delay + 1, MAX_PAUSES);
        }
        return delay >> 1;
    }

    /**
     * The next delay after messages came only during the spin that followed an empty look.
     *
     * @param delay the current delay
     * @return the next delay
     */
    static int afterSpin(int delay) {
        return delay >> 1;
    }
}
