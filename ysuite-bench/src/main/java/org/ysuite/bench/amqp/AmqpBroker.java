package org.ysuite.bench.amqp;

import com.rabbitmq.client.ConnectionFactory;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import org.ysuite.amqp.broker.EmbeddedBroker;

/**
 * The broker a benchmark publishes to: {@code embedded}, Apache Qpid Broker-J in a JVM of its own
 * ({@link EmbeddedBroker#startProcess()}: memory store, AMQP 0-9-1 on a free loopback port), or {@code rabbitmq}, the
 * RabbitMQ node named by the environment variable {@value #RABBITMQ_URI} ({@code .ci/rabbitmq.sh
 * start} prints one).
 */
final class AmqpBroker implements AutoCloseable {

    /** The environment variable that names a running RabbitMQ, e.g. {@code amqp://guest:guest@127.0.0.1:5672}. */
    static final String RABBITMQ_URI = "YSUITE_RABBITMQ_URI";

    private final EmbeddedBroker embedded;
    private final ConnectionFactory factory;

    private AmqpBroker(EmbeddedBroker embedded, ConnectionFactory factory) {
        this.embedded = embedded;
        this.factory = factory;
        factory.setAutomaticRecoveryEnabled(false);
    }

    /**
     * Starts or finds the broker.
     *
     * @param kind {@code embedded} or {@code rabbitmq}
     * @return the broker, whose {@link #factory()} connects to it
     * @throws Exception if it cannot be started or is not configured
     */
    static AmqpBroker open(String kind) throws Exception {
        switch (kind) {
            case "embedded": {
                EmbeddedBroker b = EmbeddedBroker.startProcess();
                return new AmqpBroker(b, b.factory());
            }
            case "rabbitmq": {
                String uri = System.getenv(RABBITMQ_URI);
                if (uri == null || uri.isBlank()) {
                    throw new IllegalStateException("broker=rabbitmq needs " + RABBITMQ_URI
                            + " (bash .ci/rabbitmq.sh start prints one)");
                }
                ConnectionFactory f = new ConnectionFactory();
                try {
                    f.setUri(uri);
                } catch (URISyntaxException | GeneralSecurityException e) {
                    throw new IllegalArgumentException(RABBITMQ_URI + " is not an AMQP URI: " + uri, e);
                }
                return new AmqpBroker(null, f);
            }
            default:
                throw new IllegalArgumentException("broker must be embedded or rabbitmq, was " + kind);
        }
    }

    /** The connection settings (a fresh connection per call to {@code newConnection}). */
    ConnectionFactory factory() {
        return factory;
    }

    @Override
    public void close() throws java.io.IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
