package org.ysuite.amqp;

import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link PublisherContract} on the RabbitMQ node that {@code YSUITE_RABBITMQ_URI} names (CI starts
 * one from Debian's packages with {@code .ci/rabbitmq.sh}); skipped where it is unset.
 */
class RabbitMqPublisherTest extends PublisherContract {

    @RegisterExtension
    static final BrokerExtension BROKER = BrokerExtension.rabbitMq();

    @Override
    BrokerExtension broker() {
        return BROKER;
    }
}
