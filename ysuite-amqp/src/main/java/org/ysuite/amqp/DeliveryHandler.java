package org.ysuite.amqp;

import java.nio.ByteBuffer;

/** Takes one delivery in {@link AmqpConsumer#poll}, on the application thread. */
@FunctionalInterface
public interface DeliveryHandler {
    /**
     * Handles one delivery. The body is a read-only view into the consumer's pipe, valid only
     * during this call: its position is {@code offset} and its limit {@code offset + length}, so
     * {@code body.remaining()} is the body's length and a relative read or a decoder (e.g.
     * {@code StandardCharsets.UTF_8.decode(body)}) sees the body alone; its byte order is
     * big-endian, as the bytes came on the wire and as {@code ByteBuffer.wrap(bytes)} would read
     * them, so {@code body.getLong(offset)} reads what a publisher wrote with
     * {@code ByteBuffer.putLong}. The handler may move the position, limit and order; the next
     * delivery gets its own. To keep the body, copy it ({@code body.get(offset, array)}).
     *
     * @param body the buffer holding the body, positioned on it
     * @param offset where the body starts in {@code body}
     * @param length the body's length
     * @param deliveryTag the broker's delivery tag
     * @param redelivered whether the broker delivered it before
     */
    void onDelivery(ByteBuffer body, int offset, int length, long deliveryTag, boolean redelivered);
}
