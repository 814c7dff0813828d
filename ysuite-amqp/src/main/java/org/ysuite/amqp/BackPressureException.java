package org.ysuite.amqp;

/**
 * A {@link PublisherWriter#publish} found its writer's buffer full with {@link OnFull#FAIL}: the
 * publisher is held back (the broker blocked the connection, or too many confirms are outstanding).
 * The message was not accepted.
 */
public final class BackPressureException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BackPressureException(int length, int bufferBytes, String why) {
        super("the writer's buffer (" + bufferBytes + " bytes) has no room for a record of " + length
                + " bytes: " + why);
    }
}
