package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.amqp.ReconnectContract.awaitState;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker blocks the publisher's connection ({@code connection.blocked}) while a resource alarm
 * is on: RabbitMQ's memory alarm, set off by {@code rabbitmqctl set_vm_memory_high_watermark 0} and
 * cleared by setting the node's own watermark back. Skipped where {@code YSUITE_RABBITMQ_URI} is
 * unset or {@code rabbitmqctl} is not on the PATH. (Broker-J sends no {@code connection.blocked}.)
 */
@Timeout(90)
class RabbitMqBlockedTest {

    @RegisterExtension
    static final BrokerExtension BROKER = BrokerExtension.rabbitMq();

    @BeforeAll
    static void rabbitmqctlOnThePath() {
        BrokerExtension.assumeRabbitmqctl();
    }

    @Test
    void aBlockedConnectionHoldsTheWritersBackAndOnceUnblockedEveryMessageIsConfirmed() throws Exception {
        BROKER.declare("blocked");
        String watermark = BrokerExtension.rabbitmqctlOutput("eval",
                "vm_memory_monitor:get_vm_memory_high_watermark().");
        assertTrue(watermark.matches("[0-9.]+"), "the node's watermark: " + watermark);
        try (AmqpPublisher publisher = AmqpPublisher.builder().onFull(OnFull.FAIL).writerBufferBytes(4096)
                .open(BROKER.factory())) {
            PublisherWriter w = publisher.newWriter();
            byte[] body = new byte[8];
            w.publish("", "blocked", body);
            assertTrue(w.awaitSettled(1, 20, TimeUnit.SECONDS));
            BackPressureException full = null;
            try {
                BrokerExtension.rabbitmqctl("set_vm_memory_high_watermark", "0"); // the memory alarm goes off
                w.publish("", "blocked", body); // RabbitMQ blocks a connection as it publishes
                awaitState("the broker blocked the connection", publisher::isBlocked);
                while (full == null) {
                    try {
                        w.publish("", "blocked", body);
                    } catch (BackPressureException e) {
                        full = e;
                    }
                }
                assertTrue(publisher.isBlocked());
                assertTrue(publisher.isConnected(), "blocked, not lost");
                // the first message, the one that met the alarm, and nothing more: the buffer waits
                assertTrue(publisher.published() <= 2, "published while blocked: " + publisher.published());
            } finally {
                BrokerExtension.rabbitmqctl("set_vm_memory_high_watermark", watermark); // the alarm clears
            }
            assertTrue(full.getMessage().contains("the broker blocks the connection (low on memory)"),
                    full.getMessage());
            awaitState("the broker unblocked the connection", () -> !publisher.isBlocked());
            long accepted = w.accepted();
            assertTrue(accepted > 2, "accepted while blocked: " + accepted);
            assertTrue(w.awaitSettled(accepted, 20, TimeUnit.SECONDS), "every message settled");
            assertEquals(accepted, w.confirmed(), "every message confirmed once unblocked");
            assertEquals(accepted, BROKER.messageCount("blocked"));
            assertFalse(publisher.isBlocked());
        }
    }
}
