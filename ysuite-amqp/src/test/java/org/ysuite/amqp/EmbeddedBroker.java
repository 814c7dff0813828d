package org.ysuite.amqp;

import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.qpid.server.SystemLauncher;

/**
 * Apache Qpid Broker-J in the test JVM: memory store, AMQP 0-9-1 on a free port, user guest.
 * A real broker: the tests talk to it over TCP with amqp-client.
 */
final class EmbeddedBroker implements AutoCloseable {

    private final SystemLauncher launcher = new SystemLauncher();
    private final int port;
    private final Path workDir;

    private EmbeddedBroker(int port, Path workDir) {
        this.port = port;
        this.workDir = workDir;
    }

    static EmbeddedBroker start() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        EmbeddedBroker broker = new EmbeddedBroker(port, Files.createTempDirectory("ysuite-amqp-broker"));
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("type", "Memory");
        attributes.put("initialConfigurationLocation",
                EmbeddedBroker.class.getResource("/broker-config.json").toExternalForm());
        attributes.put("startupLoggedToSystemOut", false);
        Map<String, String> context = new HashMap<>();
        context.put("qpid.amqp_port", Integer.toString(port));
        context.put("qpid.work_dir", broker.workDir.toString());
        context.put("qpid.home_dir", broker.workDir.toString());
        attributes.put("context", context);
        broker.launcher.startup(attributes);
        return broker;
    }

    ConnectionFactory factory() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost("127.0.0.1");
        f.setPort(port);
        f.setUsername("guest");
        f.setPassword("guest");
        f.setVirtualHost("default");
        f.setAutomaticRecoveryEnabled(false);
        return f;
    }

    @Override
    public void close() throws IOException {
        launcher.shutdown();
    }
}
