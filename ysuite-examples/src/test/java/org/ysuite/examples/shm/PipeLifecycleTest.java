package org.ysuite.examples.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/cross-process.md}'s lifecycle block is {@link PipeLifecycle} verbatim (so it
 * compiles), and it does what the docs say: a consumer started first waits for the file, reads to
 * the producer's close and deletes the file; a producer run over a stale file replaces it.
 */
class PipeLifecycleTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\\n(.*?)^```\\s*$");

    private static Path projectRoot() {
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/cross-process.md")) && Files.isDirectory(p.resolve("ysuite-examples"))) {
                return p;
            }
        }
        throw new AssertionError("no docs/cross-process.md above " + Paths.get("").toAbsolutePath());
    }

    @Test
    void theDocsLifecycleBlockIsPipeLifecycleVerbatim() throws IOException {
        Path root = projectRoot();
        String doc = Files.readString(root.resolve("docs/cross-process.md"), StandardCharsets.UTF_8);
        String source = Files.readString(root.resolve(
                "ysuite-examples/src/main/java/org/ysuite/examples/shm/PipeLifecycle.java"), StandardCharsets.UTF_8);
        String body = source.substring(source.indexOf('\n') + 1).stripLeading(); // without the package line
        Matcher m = JAVA_BLOCK.matcher(doc);
        String block = null;
        while (m.find()) {
            if (m.group(1).contains("class PipeLifecycle")) {
                block = m.group(1);
            }
        }
        assertEquals(body, block, "the docs' PipeLifecycle block");
    }

    @Test
    void consumerFirstThenProducerThenTheConsumerDeletesTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("orders");
        CompletableFuture<List<String>> consumed = new CompletableFuture<>();
        Thread consumer = new Thread(() -> {
            try {
                consumed.complete(PipeLifecycle.consume(file));
            } catch (Throwable t) {
                consumed.completeExceptionally(t);
            }
        });
        consumer.start();
        while (consumer.getState() != Thread.State.TIMED_WAITING && !consumed.isDone()) {
            Thread.onSpinWait(); // until it waits for the file
        }
        assertFalse(consumed.isDone(), () -> "the consumer ended before the file existed: " + consumed);
        PipeLifecycle.produce(file, "a", "b", "c");
        assertEquals(List.of("a", "b", "c"), consumed.get(1, TimeUnit.MINUTES));
        consumer.join();
        assertFalse(Files.exists(file), "the consumer deleted the file");
    }

    @Test
    void aSecondProducerRunReplacesTheFileTheFirstLeft(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("orders");
        PipeLifecycle.produce(file, "old"); // nobody read it: the file stays
        assertTrue(Files.exists(file));
        PipeLifecycle.produce(file, "new");
        assertEquals(List.of("new"), PipeLifecycle.consume(file));
        assertFalse(Files.exists(file));
    }
}
