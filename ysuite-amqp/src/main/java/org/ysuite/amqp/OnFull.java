package org.ysuite.amqp;

/** What {@link PublisherWriter#publish} does when its writer's buffer has no room. */
public enum OnFull {
    /** Wait (interruptibly) until the publisher's thread has drained room. */
    BLOCK,
    /** Throw {@link BackPressureException} at once. */
    FAIL
}
