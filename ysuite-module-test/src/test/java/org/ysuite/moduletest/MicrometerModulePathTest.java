package org.ysuite.moduletest;

import static java.lang.module.ModuleDescriptor.Requires.Modifier.TRANSITIVE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Compiles the consumer module in {@code src/test/micrometer-consumer} ({@code requires
 * org.ysuite.micrometer;} and nothing else) against ysuite-micrometer's jar with the JDK that runs
 * the build, and runs it in a fresh {@code java --module-path ... -m} (17 and 25 in CI):
 * {@code LoopMailboxMetrics} bound to a {@code SimpleMeterRegistry}, a {@code LoopMailbox} hand-off
 * on a real NIO event loop, every meter read back, nothing on the class path. A descriptor that
 * does not export {@code org.ysuite.micrometer}, or does not pass ysuite-netty or Micrometer on
 * with {@code requires transitive}, fails the compilation.
 */
class MicrometerModulePathTest {

    static final String MAIN = "org.ysuite.moduletest.micrometer/org.ysuite.moduletest.micrometer.MicrometerConsumer";

    /** Messages sent, as in MicrometerConsumer.MESSAGES (not on this test's class path). */
    static final int MESSAGES = 1_000;

    static final ConsumerModule CONSUMER = new ConsumerModule("micrometer-consumer", MAIN);

    @BeforeAll
    static void compileTheConsumer() throws IOException {
        CONSUMER.compile();
    }

    @Test
    void consumerBindsTheMetricsAndReadsThemOnTheModulePath() throws Exception {
        // jffi: ysuite-netty's LoopMailbox opens its descriptors through ysuite-core's jnr-ffi
        String[] r = CONSUMER.run("--enable-native-access=io.netty.common,org.jnrproject.jffi");
        String report = "stdout:\n" + r[1] + "\nstderr:\n" + r[2];
        assertEquals("0", r[0], report);
        String me = "module: org.ysuite.moduletest.micrometer reads ";
        assertTrue(r[1].contains(me + "org.ysuite.micrometer (explicit)"), report);
        assertTrue(r[1].contains(me + "org.ysuite.netty (explicit)"), report);
        assertTrue(r[1].contains(me + "micrometer.core (automatic)"), report);
        assertTrue(r[1].contains("exports: [org.ysuite.micrometer]"), report);
        assertTrue(r[1].contains("meters: 6\n"), report);
        assertTrue(r[1].contains("sent: " + (double) MESSAGES + "\n"), report);
        assertTrue(r[1].contains("delivered: " + (double) MESSAGES + "\n"), report);
        assertTrue(r[1].contains("depth: 0.0\n"), report);
        assertTrue(r[1].matches("(?s).*\nhand-off samples: \\d+\\.0\n.*"), report);
        assertTrue(r[1].endsWith("micrometer consumer: ok\n"), report);
        assertEquals("", r[2], report);
    }

    @Test
    void theJarIsAnExplicitModuleThatExportsOnlyOrgYsuiteMicrometer() throws Exception {
        ConsumerModule.assertExplicitModule("ysuite-micrometer", "org.ysuite.micrometer", Map.of(
                "org.ysuite.netty", Set.of(TRANSITIVE),
                "micrometer.core", Set.of(TRANSITIVE)));
    }
}
