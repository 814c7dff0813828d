package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker cancels a consumer's subscription ({@code basic.cancel}) when its queue is deleted,
 * on the RabbitMQ node that {@code YSUITE_RABBITMQ_URI} names; skipped where it is unset. (Broker-J
 * sends no {@code basic.cancel}: there a consumer of a deleted queue just receives nothing more.)
 */
@Timeout(45) // bounds the loops that wait for a state
class RabbitMqCancelTest {

    @RegisterExtension
    static final BrokerExtension BROKER = BrokerExtension.rabbitMq();

    private static final DeliveryHandler NONE = (buf, off, len, tag, redelivered) -> { };

    @Test
    void aConsumerWhoseQueueIsDeletedIsToldWhy() throws Exception {
        BROKER.declare("deleted");
        try (AmqpConsumer consumer = AmqpConsumer.open(BROKER.factory(), "deleted", 10, 4096)) {
            assertTrue(consumer.isConnected());
            assertNull(consumer.lossCause());
            BROKER.deleteQueue("deleted");
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> consumer.poll(NONE, 20, TimeUnit.SECONDS));
            String cause = "the broker cancelled the subscription (basic.cancel): was the queue deleted?";
            assertEquals("the consumer's channel is down: " + cause, e.getMessage());
            assertFalse(consumer.isConnected());
            assertEquals(cause, consumer.lossCause());
        }
    }

    /**
     * A reconnecting consumer whose queue is deleted tries again and again, and says why each try
     * fails; once the queue is back it consumes again.
     */
    @Test
    void aReconnectingConsumerSaysWhyUntilItsQueueIsBack() throws Exception {
        BROKER.declare("recreated");
        try (AmqpConsumer consumer = AmqpConsumer.open(BROKER.factory(), "recreated", 10, 4096,
                Duration.ofMillis(1), Duration.ofMillis(20))) {
            BROKER.deleteQueue("recreated");
            String cause = null;
            while (cause == null || !cause.startsWith("reconnecting failed: ")) {
                assertEquals(0, consumer.poll(NONE, 10, TimeUnit.MILLISECONDS));
                cause = consumer.lossCause();
            }
            assertTrue(cause.contains("NOT_FOUND - no queue 'recreated'"), cause);
            assertFalse(consumer.isConnected());
            assertEquals(0, consumer.reconnections());

            BROKER.declare("recreated");
            try (Connection c = BROKER.factory().newConnection("recreated-publisher")) {
                c.createChannel().basicPublish("", "recreated", null, new byte[] {42});
            }
            List<Byte> got = new ArrayList<>();
            while (got.isEmpty()) {
                consumer.poll((buf, off, len, tag, redelivered) -> got.add(buf.get(off)), 100, TimeUnit.MILLISECONDS);
            }
            assertEquals(List.of((byte) 42), got);
            assertTrue(consumer.isConnected());
            assertNull(consumer.lossCause());
            assertEquals(1, consumer.reconnections());
        }
    }
}
