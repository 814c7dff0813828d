package org.ysuite.amqp;

import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link PublisherContract} over amqp-client's NIO mode on Broker-J: there the publisher has no
 * {@link FrameBatch} and publishes each message through {@code basicPublish}.
 */
class NioPublisherTest extends PublisherContract {

    @RegisterExtension
    static final BrokerExtension BROKER = BrokerExtension.embeddedNio();

    @Override
    BrokerExtension broker() {
        return BROKER;
    }
}
