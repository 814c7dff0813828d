package org.ysuite.amqp.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A broker answers AMQP while it runs and leaves nothing behind once closed, in this JVM and in its own. */
class EmbeddedBrokerTest {

    @Test
    void inThisJvm() throws Exception {
        answersAndLeavesNothing(EmbeddedBroker.start());
    }

    @Test
    void inItsOwnJvm() throws Exception {
        answersAndLeavesNothing(EmbeddedBroker.startProcess());
    }

    private static void answersAndLeavesNothing(EmbeddedBroker broker) throws Exception {
        Path work;
        try (broker) {
            work = broker.workDirectory();
            assertTrue(Files.isDirectory(work), work + " exists while the broker runs");
            try (Connection c = broker.factory().newConnection(); Channel ch = c.createChannel()) {
                String queue = ch.queueDeclare().getQueue();
                ch.basicPublish("", queue, null, new byte[] {42});
                assertEquals(42, ch.basicGet(queue, true).getBody()[0]);
            }
        }
        assertFalse(Files.exists(work), work + " is deleted on close");
    }
}
