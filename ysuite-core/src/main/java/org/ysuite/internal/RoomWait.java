package org.ysuite.internal;

import org.ysuite.internal.event.Outcome;
import org.ysuite.internal.event.WriterBlockedEvent;

/**
 * A byte pipe writer's wait for room in a full ring, as both byte pipes wrap it: the
 * {@link WriterBlockedEvent} from the look that found no room to the end of the wait, with the
 * outcome the wait ended by (room, time out, interrupt; any other exception is a close or a gone
 * peer). The pipe says how it waits ({@link #waitForRoom}: its spin, then its own sleep, over its
 * own memory); the writer keeps one instance, made with it, so a wait allocates nothing.
 *
 * @param <X> the checked exception the pipe's wait may throw besides the interrupt
 */
public abstract class RoomWait<X extends Exception> {

    private final String writer;

    /**
     * Makes the wait of one writer.
     *
     * @param writer the writer's kind in events ({@code "OffHeapYPipe writer"}, ...)
     */
    protected RoomWait(String writer) {
        this.writer = writer;
    }

    /**
     * The pipe's wait, once the ring was found full: until a message of {@code length} fits, the
     * deadline passes or the wait fails.
     *
     * @param length the message's length
     * @param timed whether {@code deadline} applies
     * @param deadline the {@link System#nanoTime()} the wait ends at, if timed
     * @return {@code true} if the message fits now; {@code false} if the time ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws X the pipe's own failure (a gone peer, a bad file)
     */
    protected abstract boolean waitForRoom(int length, boolean timed, long deadline) throws InterruptedException, X;

    /**
     * {@link #waitForRoom}, inside a {@link WriterBlockedEvent} that records how it ended.
     *
     * @param name the pipe's name in events, or null
     * @param length the message's length
     * @param timed whether {@code deadline} applies
     * @param deadline the {@link System#nanoTime()} the wait ends at, if timed
     * @return what {@link #waitForRoom} returned
     * @throws InterruptedException if interrupted while waiting
     * @throws X the pipe's own failure
     */
    public final boolean blocked(String name, int length, boolean timed, long deadline) throws InterruptedException, X {
        WriterBlockedEvent blocked = WriterBlockedEvent.begin(writer, name, length);
        String outcome = Outcome.CLOSE; // an exception other than the interrupt: closed, or the peer gone
        try {
            boolean room = waitForRoom(length, timed, deadline);
            outcome = room ? Outcome.SIGNAL : Outcome.TIMEOUT;
            return room;
        } catch (InterruptedException e) {
            outcome = Outcome.INTERRUPT;
            throw e;
        } finally {
            WriterBlockedEvent.end(blocked, outcome);
        }
    }
}
