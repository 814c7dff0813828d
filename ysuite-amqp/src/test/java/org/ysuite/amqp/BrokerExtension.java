package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.ysuite.amqp.broker.EmbeddedBroker;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The broker of a test class, with an admin channel for declaring and counting: a new
 * {@link EmbeddedBroker} per class (its factory in NIO mode with {@link #embeddedNio()}), or
 * ({@link #rabbitMq()}) the RabbitMQ node that {@value #RABBITMQ_URI} names, the class skipped
 * where it is unset.
 */
final class BrokerExtension implements BeforeAllCallback, AfterAllCallback {

    /** The environment variable naming a running RabbitMQ ({@code .ci/rabbitmq.sh start} prints it). */
    static final String RABBITMQ_URI = "YSUITE_RABBITMQ_URI";

    private final boolean rabbitMq;
    private final boolean nio;
    private EmbeddedBroker broker;
    private ConnectionFactory factory;
    private Connection admin;
    private Channel channel;

    BrokerExtension() {
        this(false, false);
    }

    private BrokerExtension(boolean rabbitMq, boolean nio) {
        this.rabbitMq = rabbitMq;
        this.nio = nio;
    }

    /** The RabbitMQ node of {@value #RABBITMQ_URI}. */
    static BrokerExtension rabbitMq() {
        return new BrokerExtension(true, false);
    }

    /** An embedded broker, its factory in amqp-client's NIO mode ({@code useNio()}). */
    static BrokerExtension embeddedNio() {
        return new BrokerExtension(false, true);
    }

    @Override
    @SuppressWarnings("deprecation") // useNio(): amqp-client 5.37 deprecates NIO mode, which applications still use
    public void beforeAll(ExtensionContext context) throws Exception {
        if (rabbitMq) {
            String uri = System.getenv(RABBITMQ_URI);
            Assumptions.assumeTrue(uri != null && !uri.isBlank(), RABBITMQ_URI + " is not set: no RabbitMQ to test on");
            factory = new ConnectionFactory();
            factory.setUri(uri);
            factory.setAutomaticRecoveryEnabled(false);
        } else {
            broker = EmbeddedBroker.start();
            factory = broker.factory();
            if (nio) {
                factory.useNio();
            }
        }
        openAdmin();
    }

    private void openAdmin() throws Exception {
        admin = factory.newConnection("admin");
        channel = admin.createChannel();
    }

    /** The admin channel, opened again if the broker closed it (a test killed the connections). */
    private Channel channel() throws IOException {
        if (!channel.isOpen()) {
            try {
                openAdmin();
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        return channel;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (admin != null && admin.isOpen()) {
                admin.close();
            }
        } finally {
            if (broker != null) {
                broker.close();
            }
        }
    }

    ConnectionFactory factory() {
        return factory;
    }

    /** The embedded broker, or {@code null} on RabbitMQ. */
    EmbeddedBroker embedded() {
        return broker;
    }

    /** Declares {@code queue} and empties it (a node that outlives the test run may hold an earlier run's). */
    void declare(String queue) throws IOException {
        channel().queueDeclare(queue, false, false, false, null);
        channel().queuePurge(queue);
    }

    /** Declares {@code queue} durable (it outlives a restart of the broker) and empties it. */
    void declareDurable(String queue) throws IOException {
        channel().queueDeclare(queue, true, false, false, null);
        channel().queuePurge(queue);
    }

    /** Deletes {@code queue}, whoever consumes it. */
    void deleteQueue(String queue) throws IOException {
        channel().queueDelete(queue);
    }

    long messageCount(String queue) throws IOException {
        return channel().messageCount(queue);
    }

    /** Skips the calling class where {@code rabbitmqctl} is not on the PATH. */
    static void assumeRabbitmqctl() {
        String path = System.getenv("PATH");
        boolean found = path != null && Arrays.stream(path.split(File.pathSeparator))
                .map(dir -> Path.of(dir, "rabbitmqctl")).anyMatch(Files::isExecutable);
        Assumptions.assumeTrue(found, "rabbitmqctl is not on the PATH: no way to act on the node");
    }

    /** Runs {@code rabbitmqctl args} against the local node; fails unless it exits 0 within 60 s. */
    static void rabbitmqctl(String... args) throws Exception {
        run(new ProcessBuilder(command(args)).inheritIO());
    }

    /** Runs {@code rabbitmqctl args} as {@link #rabbitmqctl} does and returns its output's last line. */
    static String rabbitmqctlOutput(String... args) throws Exception {
        Path out = Files.createTempFile("rabbitmqctl", ".out");
        try {
            run(new ProcessBuilder(command(args)).redirectErrorStream(true).redirectOutput(out.toFile()));
            List<String> lines = Files.readAllLines(out);
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1).trim();
        } finally {
            Files.delete(out);
        }
    }

    private static List<String> command(String... args) {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl"));
        command.addAll(List.of(args));
        return command;
    }

    private static void run(ProcessBuilder builder) throws Exception {
        String command = String.join(" ", builder.command());
        Process p = builder.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not end in 60 s");
        }
        assertEquals(0, p.exitValue(), command);
    }
}
