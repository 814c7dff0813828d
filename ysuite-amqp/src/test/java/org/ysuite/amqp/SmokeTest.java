package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void publishes() throws Exception {
        try (EmbeddedBroker broker = EmbeddedBroker.start();
             Connection c = broker.factory().newConnection()) {
            Channel ch = c.createChannel();
            ch.queueDeclare("q", false, false, false, null);
            try (AmqpPublisher p = AmqpPublisher.builder().open(broker.factory())) {
                PublisherWriter w = p.newWriter();
                long seq = 0;
                for (int i = 0; i < 1000; i++) {
                    seq = w.publish("", "q", ("m" + i).getBytes());
                }
                w.awaitSettled(seq);
                assertEquals(1000, w.confirmed());
            }
            assertEquals(1000, ch.messageCount("q"));
        }
    }
}
