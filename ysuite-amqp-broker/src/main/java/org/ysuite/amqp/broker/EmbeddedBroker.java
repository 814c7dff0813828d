package org.ysuite.amqp.broker;

import com.rabbitmq.client.ConnectionFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.qpid.server.SystemLauncher;

/**
 * Apache Qpid Broker-J for ysuite-amqp's tests and the AMQP benchmarks: memory store, AMQP 0-9-1 on
 * a free loopback port, user {@code guest}, virtual host {@code default}. A real broker: clients
 * talk to it over TCP with amqp-client.
 *
 * <p>{@link #start()} runs it in this JVM on JDK 22 and older; {@link #startProcess()} always in a
 * JVM of its own (a benchmark's broker should not share the client's JVM). Broker-J (10.x) calls
 * {@code Subject.getSubject}, which JDK 23 and later refuse, so on those it always runs in a child
 * JVM of an older JDK, with this JVM's class path: {@code -Dysuite.amqp.brokerJavaHome=...} names
 * one, else the first JDK 17 to 22 under /usr/lib/jvm. Closing a child closes its standard input,
 * and the child shuts the broker down.
 */
public final class EmbeddedBroker implements AutoCloseable {

    private static final String READY = "ysuite-broker-ready";

    private final int port;
    private final SystemLauncher launcher; // in this JVM, or null
    private final Process child;           // or in a child JVM

    private EmbeddedBroker(int port, SystemLauncher launcher, Process child) {
        this.port = port;
        this.launcher = launcher;
        this.child = child;
    }

    /**
     * Starts a broker: in this JVM where the JDK allows it (22 and older), else in a child JVM.
     *
     * @return the running broker
     * @throws Exception if it cannot start
     */
    public static EmbeddedBroker start() throws Exception {
        return start(false);
    }

    /**
     * Starts a broker in a JVM of its own: this JVM's {@code java} on JDK 22 and older, else an older JDK's.
     *
     * @return the running broker
     * @throws Exception if it cannot start
     */
    public static EmbeddedBroker startProcess() throws Exception {
        return start(true);
    }

    private static EmbeddedBroker start(boolean ownJvm) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path work = Files.createTempDirectory("ysuite-amqp-broker");
        boolean here = Runtime.version().feature() < 23;
        if (here && !ownJvm) {
            return new EmbeddedBroker(port, launch(port, work), null);
        }
        String java = here ? Path.of(System.getProperty("java.home"), "bin", "java").toString()
                : olderJava().orElseThrow(() -> new IllegalStateException("Broker-J needs a JDK older than 23"
                        + " (Subject.getSubject): install one under /usr/lib/jvm or set -Dysuite.amqp.brokerJavaHome"));
        Process p = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                EmbeddedBroker.class.getName(), Integer.toString(port), work.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = out.readLine(); !READY.equals(line); line = out.readLine()) {
            if (line == null) {
                throw new IllegalStateException("the broker's JVM ended before it was ready: exit " + p.waitFor());
            }
        }
        return new EmbeddedBroker(port, null, p);
    }

    private static Optional<String> olderJava() throws IOException {
        String home = System.getProperty("ysuite.amqp.brokerJavaHome");
        if (home != null) {
            return Optional.of(Path.of(home, "bin", "java").toString());
        }
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            return jdks.sorted().filter(EmbeddedBroker::olderThan23).findFirst()
                    .map(jdk -> jdk.resolve("bin").resolve("java").toString());
        }
    }

    private static boolean olderThan23(Path jdk) {
        Path release = jdk.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(jdk.resolve("bin").resolve("java"))) {
            return false;
        }
        try {
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_VERSION=\"")) {
                    String v = line.substring("JAVA_VERSION=\"".length());
                    int feature = Integer.parseInt(v.split("[.\"]")[0]);
                    return feature >= 17 && feature < 23;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return false;
        }
        return false;
    }

    private static SystemLauncher launch(int port, Path work) throws Exception {
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("type", "Memory");
        attributes.put("initialConfigurationLocation",
                EmbeddedBroker.class.getResource("/ysuite-amqp-broker.json").toExternalForm());
        attributes.put("startupLoggedToSystemOut", false);
        Map<String, String> context = new HashMap<>();
        context.put("qpid.amqp_port", Integer.toString(port));
        context.put("qpid.work_dir", work.toString());
        context.put("qpid.home_dir", work.toString());
        attributes.put("context", context);
        SystemLauncher launcher = new SystemLauncher();
        launcher.startup(attributes);
        return launcher;
    }

    /**
     * The child JVM: starts the broker, says so on stdout, and shuts it down when stdin ends.
     *
     * @param args the port and the work directory
     * @throws Exception if the broker fails
     */
    public static void main(String[] args) throws Exception {
        SystemLauncher launcher = launch(Integer.parseInt(args[0]), Path.of(args[1]));
        System.out.println(READY);
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the parent to close stdin (or to die)
        }
        launcher.shutdown();
        System.exit(0);
    }

    /**
     * Connection settings for this broker (a new factory each call; automatic recovery off).
     *
     * @return the factory
     */
    public ConnectionFactory factory() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost("127.0.0.1");
        f.setPort(port);
        f.setUsername("guest");
        f.setPassword("guest");
        f.setVirtualHost("default");
        f.setAutomaticRecoveryEnabled(false);
        return f;
    }

    /** Shuts the broker down (a child JVM: within 30 s, else it is killed). */
    @Override
    public void close() throws IOException {
        if (launcher != null) {
            launcher.shutdown();
            return;
        }
        child.getOutputStream().close();
        try {
            if (!child.waitFor(30, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
