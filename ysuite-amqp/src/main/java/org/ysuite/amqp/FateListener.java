package org.ysuite.amqp;

/**
 * Told each message's {@link Fate}, per writer in the order the writer published them
 * (sequence {@code 1, 2, 3, ...}). Called on the thread that learns the fate: the connection's
 * thread for the broker's answers, the publisher's thread for {@link Fate#LOST}; never two at once
 * for one writer. It must be quick and must not call the publisher or the writer.
 */
@FunctionalInterface
public interface FateListener {
    /**
     * Reports one message's fate.
     *
     * @param sequence the writer's sequence number of the message, as {@link PublisherWriter#publish} returned it
     * @param fate what became of it
     */
    void onFate(long sequence, Fate fate);
}
