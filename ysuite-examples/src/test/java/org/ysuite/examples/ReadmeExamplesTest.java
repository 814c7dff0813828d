package org.ysuite.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReadmeExamplesTest {

    private static String run(Example example) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
                example.run(out);
            }
        });
        return bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    interface Example {
        void run(PrintStream out) throws Exception;
    }

    @Test
    void semaphoreExamplePrintsEveryMessageButTheLastInOrder() {
        for (int i = 0; i < 200; i++) {
            assertEquals("hello\nworld\n", run(ReadmeExamples::semaphore));
        }
    }

    @Test
    void mailboxExampleReceivesEveryMessageInOrder() {
        assertEquals("mailbox: 300000 messages from 3 writers, 0 out of order\n",
                run(out -> ReadmeExamples.mailbox(out, 3, 100_000)));
    }
}
