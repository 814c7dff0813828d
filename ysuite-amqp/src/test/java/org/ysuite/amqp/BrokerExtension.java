package org.ysuite.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import org.ysuite.amqp.broker.EmbeddedBroker;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** One {@link EmbeddedBroker} per test class, with an admin channel for declaring and counting. */
final class BrokerExtension implements BeforeAllCallback, AfterAllCallback {

    private EmbeddedBroker broker;
    private Connection admin;
    private Channel channel;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        broker = EmbeddedBroker.start();
        admin = broker.factory().newConnection("admin");
        channel = admin.createChannel();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            admin.close();
        } finally {
            broker.close();
        }
    }

    ConnectionFactory factory() {
        return broker.factory();
    }

    void declare(String queue) throws IOException {
        channel.queueDeclare(queue, false, false, false, null);
    }

    long messageCount(String queue) throws IOException {
        return channel.messageCount(queue);
    }
}
