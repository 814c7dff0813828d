package org.ysuite.amqp;

/**
 * {@link ReconnectContract} with the RabbitMQ node that {@code YSUITE_RABBITMQ_URI} names
 * restarted mid-stream ({@code rabbitmqctl stop_app}, then {@code start_app}): the queue is
 * durable and the messages persistent, the publisher and the consumer reconnect once the node
 * listens again, and every confirmed message is consumed. Skipped, as its parent, where the
 * variable is unset or {@code rabbitmqctl} is not on the PATH.
 */
class RabbitMqRestartTest extends RabbitMqReconnectTest {

    @Override
    boolean restartsBroker() {
        return true;
    }

    @Override
    void killConnections() throws Exception {
        BrokerExtension.rabbitmqctl("stop_app");
        BrokerExtension.rabbitmqctl("start_app");
    }
}
