package org.ysuite.amqp;

import java.nio.ByteBuffer;

/** Takes one delivery in {@link AmqpConsumer#poll}, on the application thread. */
@FunctionalInterface
public interface DeliveryHandler {
    /**
     * Handles one delivery. The body is a view into the consumer's pipe, valid only during this call.
     *
     * @param body the buffer holding the body
     * @param offset where the body starts in {@code body}
     * @param length the body's length
     * @param deliveryTag the broker's delivery tag
     * @param redelivered whether the broker delivered it before
     */
    void onDelivery(ByteBuffer body, int offset, int length, long deliveryTag, boolean redelivered);
}
