package org.ysuite.amqp;

/** What became of a message a {@link PublisherWriter} accepted. Each accepted message gets exactly one. */
public enum Fate {
    /** The broker confirmed it ({@code basic.ack}): it is the broker's now. */
    CONFIRMED,
    /** The broker refused it ({@code basic.nack}). */
    NACKED,
    /** Published as mandatory, no queue took it: the broker returned it ({@code basic.return}), then confirmed. */
    RETURNED,
    /**
     * Not confirmed: the channel or connection went down (or the publisher was closed) before the
     * broker's answer came, or the message was never published. The broker may or may not have it.
     */
    LOST
}
