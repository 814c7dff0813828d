package org.ysuite.internal.event;

/** How a wait ended: the {@code outcome} field of {@link ParkEvent} and {@link WriterBlockedEvent}. */
public final class Outcome {

    /** Woken by the signal it waited for (a flush, a signal id, or the space it needed). */
    public static final String SIGNAL = "signal";
    /** Its time limit ran out. */
    public static final String TIMEOUT = "timeout";
    /** The pipe, signaler or mailbox was closed, or its peer went away. */
    public static final String CLOSE = "close";
    /** The waiting thread was interrupted. */
    public static final String INTERRUPT = "interrupt";

    private Outcome() {
    }
}
