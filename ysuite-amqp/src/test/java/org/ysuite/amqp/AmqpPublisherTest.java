package org.ysuite.amqp;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PublisherContract} on Apache Qpid Broker-J, started by the test. */
class AmqpPublisherTest extends PublisherContract {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    @Override
    BrokerExtension broker() {
        return BROKER;
    }
}
