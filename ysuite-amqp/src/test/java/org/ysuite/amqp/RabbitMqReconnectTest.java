package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
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
        String path = System.getenv("PATH");
        boolean found = path != null && java.util.Arrays.stream(path.split(File.pathSeparator))
                .map(dir -> Path.of(dir, "rabbitmqctl")).anyMatch(Files::isExecutable);
        Assumptions.assumeTrue(found, "rabbitmqctl is not on the PATH: no way to close the connections");
    }

    @Override
    BrokerExtension broker() {
        return BROKER;
    }

    @Override
    void killConnections() throws Exception {
        Process p = new ProcessBuilder("rabbitmqctl", "close_all_connections", "test").inheritIO().start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("rabbitmqctl close_all_connections did not end in 60 s");
        }
        assertEquals(0, p.exitValue(), "rabbitmqctl close_all_connections");
    }
}
