package org.ysuite.amqp;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ReconnectContract} on the RabbitMQ node that {@code YSUITE_RABBITMQ_URI} names, whose
 * connections {@code rabbitmqctl close_all_connections} closes; skipped where the variable is
 * unset or {@code rabbitmqctl} is not on the PATH.
 */
class RabbitMqReconnectTest extends ReconnectContract {

    @RegisterExtension
    static final BrokerExtension BROKER = BrokerExtension.rabbitMq();

    @BeforeAll
    static void rabbitmqctlOnThePath() {
        BrokerExtension.assumeRabbitmqctl();
    }

    @Override
    BrokerExtension broker() {
        return BROKER;
    }

    @Override
    void killConnections() throws Exception {
        BrokerExtension.rabbitmqctl("close_all_connections", "test");
    }
}
