package org.ysuite.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Runs the README's three programs (see {@link ReadmeSnippetsTest} for their text). */
class ReadmeExamplesTest {

    interface Example {
        void run() throws Exception;
    }

    /** Runs {@code example} with {@link System#out} captured; the tests of this class run one at a time. */
    private static String run(Example example) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream original = System.out;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            assertTimeoutPreemptively(Duration.ofMinutes(10), example::run);
        } finally {
            System.setOut(original);
        }
        return bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    @Test
    void pipeExamplePrintsEveryMessageButTheLastInOrder() {
        for (int i = 0; i < 200; i++) {
            assertEquals("hello\nworld\n", run(ReadmeExamples::runPipeExample));
        }
    }

    @Test
    void mailboxExampleReceivesEveryOrderInOrderAndEndsOnClose() {
        for (int i = 0; i < 3; i++) {
            assertEquals("300000 orders from 3 writers, 0 out of order\n",
                    run(ReadmeExamples::runMailboxExample));
        }
    }

    @Test
    void offHeapPipeExampleReadsTheNumbersItWrote() {
        // 1000 orders of price i * 100 cents and quantity i: 100 * (1^2 + ... + 1000^2)
        for (int i = 0; i < 20; i++) {
            assertEquals("1000 orders, turnover 33383350000 cents\n",
                    run(ReadmeExamples::runOffHeapPipeExample));
        }
    }

    @Test
    void zmqExampleReceivesTheTwoFrameMessage() {
        assertEquals("order\ntrue 42\n", run(ReadmeExamples::runZmqExample));
    }
}
