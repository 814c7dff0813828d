package org.ysuite.amqp;

/**
 * The publisher's thread asleep until a confirm frees room in a full window, and the confirms
 * that wake it. A full window resumes when {@link #resumeRoom} slots are free, not at the first
 * confirm: one wake-up and one socket write per many messages, not per confirm frame.
 *
 * <p>Ordering (a Dekker, raced in {@code ConfirmWakeRaces}): the publisher's thread writes
 * {@link #wanted} (volatile) in {@link #want}, then reads the ledgers' room (their volatile
 * {@code settled}); the connection's thread writes a ledger's {@code settled} in
 * {@link ConfirmLedger#answer}, then reads {@code wanted} in {@link #wakes}. So a confirm that
 * made {@code resumeRoom} of room after the publisher looked is seen by the publisher's look or
 * wakes it. Room only grows while the publisher sleeps (it alone publishes) and every later confirm
 * looks again, so the confirm that makes enough room wakes it; the last one leaves the whole window
 * free ({@code resumeRoom} is at most the window).
 */
final class ConfirmWake {

    /** Free slots of a channel's window at which a full window resumes: a sixteenth, 1 to maxBatch. */
    final int resumeRoom;
    /** True from the publisher's {@link #want} to its {@link #done}: it looks at the ledgers, or sleeps. */
    private volatile boolean wanted;

    ConfirmWake(int confirmWindow, int maxBatch) {
        this.resumeRoom = Math.max(1, Math.min(maxBatch, confirmWindow / 16));
    }

    /** Publisher's thread: before it looks at the ledgers and, finding no room, sleeps. */
    void want() {
        wanted = true;
    }

    /** Publisher's thread: it found room, or woke. */
    void done() {
        wanted = false;
    }

    /**
     * Connection's thread, after {@code ledger} settled a confirm: whether to wake the publisher's
     * thread, which waits for room ({@link #resumeRoom} on the ledger) or, {@code closing}, for any confirm.
     */
    boolean wakes(ConfirmLedger ledger, boolean closing) {
        return wanted && (ledger.room() >= resumeRoom || closing);
    }
}
