package org.ysuite.amqp.broker;

import com.rabbitmq.client.ConnectionFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedAction;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.security.auth.Subject;
import org.apache.qpid.server.SystemLauncher;
import org.apache.qpid.server.SystemLauncherListener;
import org.apache.qpid.server.model.Broker;
import org.apache.qpid.server.model.Port;
import org.apache.qpid.server.model.SystemConfig;

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
 * and the child shuts the broker down. {@link #closeConnections()} closes every client connection
 * from the broker's side, as a broker that drops its clients does (the queues and their messages
 * stay). Closing it deletes the temporary work directory it was given.
 */
public final class EmbeddedBroker implements AutoCloseable {

    private static final String READY = "ysuite-broker-ready";
    private static final String CLOSE_CONNECTIONS = "close-connections";
    private static final String CLOSED = "closed ";

    private final int port;
    private final Path work;               // the broker's temporary directory, deleted on close
    private final Launched launched;       // in this JVM, or null
    private final Process child;           // or in a child JVM
    private final BufferedReader childOut; // the child's answers

    private EmbeddedBroker(int port, Path work, Launched launched, Process child, BufferedReader childOut) {
        this.port = port;
        this.work = work;
        this.launched = launched;
        this.child = child;
        this.childOut = childOut;
    }

    /** A broker in this JVM and its model's root, caught as the launcher resolves it. */
    private static final class Launched extends SystemLauncherListener.DefaultSystemLauncherListener {
        final SystemLauncher launcher = new SystemLauncher(this);
        private volatile SystemConfig<?> system;

        @Override
        public void onContainerResolve(SystemConfig<?> systemConfig) {
            system = systemConfig;
        }

        /** Closes every connection on every port, as the system; returns how many. */
        int closeConnections() {
            Subject subject = new Subject(true, Set.of(launcher.getSystemPrincipal()), Set.of(), Set.of());
            return Subject.doAs(subject, (PrivilegedAction<Integer>) () -> {
                int n = 0;
                for (Port<?> port : ((Broker<?>) system.getContainer()).getPorts()) {
                    for (org.apache.qpid.server.model.Connection<?> c : port.getConnections()) {
                        c.delete(); // closes it: the client gets connection.close
                        n++;
                    }
                }
                return n;
            });
        }
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
        try {
            return start(port, work, ownJvm);
        } catch (Exception | Error e) {
            try {
                delete(work);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static EmbeddedBroker start(int port, Path work, boolean ownJvm) throws Exception {
        boolean here = Runtime.version().feature() < 23;
        if (here && !ownJvm) {
            return new EmbeddedBroker(port, work, launch(port, work), null, null);
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
        return new EmbeddedBroker(port, work, null, p, out);
    }

    /** Deletes a directory and everything under it; a path that is already gone is no error. */
    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> all = Files.walk(dir)) {
            deepestFirst = all.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path p : deepestFirst) {
            Files.deleteIfExists(p);
        }
    }

    /** The broker's temporary work directory (for the tests: it is gone after {@link #close()}). */
    Path workDirectory() {
        return work;
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

    private static Launched launch(int port, Path work) throws Exception {
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
        Launched launched = new Launched();
        launched.launcher.startup(attributes);
        return launched;
    }

    /**
     * The child JVM: starts the broker, says so on stdout, closes its connections when stdin says
     * so, and shuts it down when stdin ends.
     *
     * @param args the port and the work directory
     * @throws Exception if the broker fails
     */
    public static void main(String[] args) throws Exception {
        Launched launched = launch(Integer.parseInt(args[0]), Path.of(args[1]));
        System.out.println(READY);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            // until the parent closes stdin (or dies)
            if (CLOSE_CONNECTIONS.equals(line)) {
                System.out.println(CLOSED + launched.closeConnections());
                System.out.flush();
            }
        }
        launched.launcher.shutdown();
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

    /**
     * Closes every client connection from the broker's side ({@code connection.close} with
     * {@code connection-forced}); the broker, its queues and their messages stay. Returns once
     * the broker has closed them.
     *
     * @return how many connections were closed
     * @throws IOException if the broker's JVM cannot be told, or ended
     */
    public int closeConnections() throws IOException {
        if (launched != null) {
            return launched.closeConnections();
        }
        synchronized (childOut) {
            OutputStream in = child.getOutputStream();
            in.write((CLOSE_CONNECTIONS + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            for (String line = childOut.readLine(); ; line = childOut.readLine()) {
                if (line == null) {
                    throw new IOException("the broker's JVM ended");
                }
                if (line.startsWith(CLOSED)) {
                    return Integer.parseInt(line.substring(CLOSED.length()));
                }
            }
        }
    }

    /**
     * Shuts the broker down (a child JVM: within 30 s, else it is killed) and deletes its work
     * directory.
     *
     * @throws IOException if the child's standard input cannot be closed or the directory deleted
     */
    @Override
    public void close() throws IOException {
        if (launched != null) {
            launched.launcher.shutdown();
        } else {
            stopChild();
        }
        delete(work);
    }

    private void stopChild() throws IOException {
        try {
            child.getOutputStream().close();
        } finally {
            try {
                if (!child.waitFor(30, TimeUnit.SECONDS)) {
                    child.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                child.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
