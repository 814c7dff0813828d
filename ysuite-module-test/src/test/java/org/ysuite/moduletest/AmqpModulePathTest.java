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
 * Compiles the consumer module in {@code src/test/amqp-consumer} ({@code requires org.ysuite.amqp;}
 * and nothing else) against ysuite-amqp's jar and runs it in a fresh {@code java --module-path ... -m}:
 * a descriptor that does not export {@code org.ysuite.amqp}, or does not pass amqp-client on with
 * {@code requires transitive}, fails the compilation.
 */
class AmqpModulePathTest {

    static final String MAIN = "org.ysuite.moduletest.amqp/org.ysuite.moduletest.amqp.AmqpConsumerMain";

    static final ConsumerModule CONSUMER = new ConsumerModule("amqp-consumer", MAIN);

    @BeforeAll
    static void compileTheConsumer() throws IOException {
        CONSUMER.compile();
    }

    @Test
    void consumerUsesThePublisherOnTheModulePath() throws Exception {
        String[] r = CONSUMER.run();
        String report = "stdout:\n" + r[1] + "\nstderr:\n" + r[2];
        assertEquals("0", r[0], report);
        String me = "module: org.ysuite.moduletest.amqp reads ";
        assertTrue(r[1].contains(me + "org.ysuite.amqp (explicit)"), report);
        assertTrue(r[1].contains(me + "com.rabbitmq.client (automatic)"), report);
        assertTrue(r[1].contains("exports: [org.ysuite.amqp]"), report);
        assertTrue(r[1].contains("refused: confirmWindow must be a power of two in 1..1048576: 3\n"), report);
        assertTrue(r[1].contains("no broker: "), report);
        assertTrue(r[1].endsWith("amqp consumer: ok\n"), report);
    }

    @Test
    void theJarIsAnExplicitModuleThatExportsOnlyOrgYsuiteAmqp() throws Exception {
        ConsumerModule.assertExplicitModule("ysuite-amqp", "org.ysuite.amqp", Map.of(
                "com.rabbitmq.client", Set.of(TRANSITIVE),
                "org.ysuite", Set.of()));
    }
}
