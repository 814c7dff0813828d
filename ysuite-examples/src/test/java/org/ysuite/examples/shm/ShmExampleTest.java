package org.ysuite.examples.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the two example services as two JVMs, as a user would, and checks what they print: the
 * consumer received every message the producer sent, in order, with the same CRC-32, and ended at
 * the producer's close. Every wait is bounded; a child left running is killed.
 */
class ShmExampleTest {

    private static final long MESSAGES = 200_000;
    private static final Pattern SENT = Pattern.compile(
            "Producer: sent (\\d+) messages, (\\d+) bytes, crc32 ([0-9a-f]{8}), \\d+ msgs/s");
    private static final Pattern RECEIVED = Pattern.compile(
            "Consumer: received (\\d+) messages, (\\d+) bytes, crc32 ([0-9a-f]{8}), in order, \\d+ msgs/s");

    private final List<Child> children = new ArrayList<>();
    private Path dir;

    @BeforeEach
    void folder() throws IOException {
        Path shm = Paths.get("/dev/shm");
        dir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir")),
                "ysuite-example-test-");
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Child c : children) {
            c.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    @Test
    void consumerReceivesEveryMessageInOrderAndEndsAtTheProducersClose() throws Exception {
        Path file = dir.resolve("orders");
        Child producer = start(Producer.class, file.toString(), Long.toString(MESSAGES));
        assertEquals("Producer: created " + file, producer.line(60));
        Child consumer = start(Consumer.class, file.toString(), "30");
        assertEquals("Consumer: opened " + file, consumer.line(60));

        Matcher sent = SENT.matcher(String.valueOf(producer.line(120)));
        assertTrue(sent.matches(), sent.toString());
        assertEquals(0, producer.exit(60), "producer's exit code");
        Matcher received = RECEIVED.matcher(String.valueOf(consumer.line(120)));
        assertTrue(received.matches(), received.toString());
        assertEquals(0, consumer.exit(60), "consumer's exit code");

        assertEquals(MESSAGES, Long.parseLong(sent.group(1)));
        assertEquals(sent.group(1), received.group(1), "messages");
        assertEquals(sent.group(2), received.group(2), "bytes");
        assertEquals(sent.group(3), received.group(3), "crc32");
        assertFalse(Files.exists(file), "the consumer deletes the pipe file at the end");
    }

    @Test
    void consumerEndsWithExitCodeOneWhenTheProducerIsKilledMidStream() throws Exception {
        Path file = dir.resolve("orders");
        Child producer = start(Producer.class, file.toString(), Long.toString(Long.MAX_VALUE));
        assertEquals("Producer: created " + file, producer.line(60));
        Child consumer = start(Consumer.class, file.toString(), "30");
        assertEquals("Consumer: opened " + file, consumer.line(60));
        assertTrue(producer.process.isAlive(), "the producer sends for ever");
        producer.process.destroyForcibly(); // SIGKILL, in the middle of the stream
        assertTrue(producer.process.waitFor(30, TimeUnit.SECONDS));

        String last = consumer.line(60);
        Matcher gone = Pattern.compile("Consumer: producer gone after (\\d+) messages, every one whole and in order \\(.+\\)")
                .matcher(last);
        assertTrue(gone.matches(), last);
        assertEquals(1, consumer.exit(60), "consumer's exit code");
        assertTrue(Files.exists(file), "the file is left for a restarted producer");
    }

    private Child start(Class<?> main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        Child c = new Child(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        children.add(c);
        return c;
    }

    /** A child JVM whose output lines are read by a daemon thread, so each wait is bounded. */
    private static final class Child {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Child(Process process) {
            this.process = process;
            Thread pump = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // the child is gone
                }
            });
            pump.setDaemon(true);
            pump.start();
        }

        /** The next line, failing the test if none comes within {@code seconds}. */
        String line(int seconds) throws InterruptedException {
            String line = lines.poll(seconds, TimeUnit.SECONDS);
            assertNotNull(line, "no output line within " + seconds + " s (alive: " + process.isAlive() + ")");
            return line;
        }

        int exit(int seconds) throws InterruptedException {
            assertTrue(process.waitFor(seconds, TimeUnit.SECONDS), "did not exit within " + seconds + " s");
            return process.exitValue();
        }
    }
}
