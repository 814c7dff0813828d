package org.ysuite.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.ConnectionFactory;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ysuite.amqp.broker.EmbeddedBroker;

/**
 * Runs {@link AmqpOrders} on an embedded Broker-J, once undisturbed and once with its connections
 * dropped mid-stream, and on the RabbitMQ node that {@code YSUITE_RABBITMQ_URI} names, if set.
 */
class AmqpOrdersTest {

    private static EmbeddedBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    private static String uri() {
        ConnectionFactory f = broker.factory();
        return "amqp://" + f.getUsername() + ":" + f.getPassword() + "@" + f.getHost() + ":" + f.getPort() + "/"
                + f.getVirtualHost();
    }

    private static String[] run(AmqpOrders.MidStream midStream, String... args) {
        return ExamplesTest.runExample((out, a) -> AmqpOrders.run(out, a, midStream), args);
    }

    @Test
    void everyOrderConfirmedAndConsumed() {
        String[] lines = run(() -> { }, uri(), "20000", "4");
        assertEquals("AmqpOrders: 4 writers published 80000 orders, every one confirmed; 0 published again after "
                + "LOST or NACKED", lines[0]);
        assertEquals("AmqpOrders: consumed every order, 80000 deliveries (0 twice: redelivered, or published again); "
                + "reconnections: publisher 0, consumer 0", lines[1]);
    }

    @Test
    void connectionsDroppedMidStreamEveryOrderStillConfirmedAndConsumed() {
        int[] closed = new int[1];
        String[] lines = run(() -> closed[0] = broker.closeConnections(), uri(), "20000", "4");
        assertEquals(2, closed[0], "the publisher's connection and the consumer's");
        Matcher first = Pattern.compile("AmqpOrders: 4 writers published 80000 orders, every one confirmed; "
                + "(\\d+) published again after LOST or NACKED").matcher(lines[0]);
        assertTrue(first.matches(), lines[0]);
        Matcher second = Pattern.compile("AmqpOrders: consumed every order, (\\d+) deliveries \\((\\d+) twice: "
                + "redelivered, or published again\\); reconnections: publisher 1, consumer 1").matcher(lines[1]);
        assertTrue(second.matches(), lines[1]);
        assertEquals(80000 + Long.parseLong(second.group(2)), Long.parseLong(second.group(1)), lines[1]);
    }

    @Test
    void onRabbitMq() {
        String uri = System.getenv("YSUITE_RABBITMQ_URI");
        Assumptions.assumeTrue(uri != null && !uri.isBlank(), "YSUITE_RABBITMQ_URI is not set: no RabbitMQ to run on");
        String[] lines = run(() -> { }, uri, "5000", "4");
        assertEquals("AmqpOrders: 4 writers published 20000 orders, every one confirmed; 0 published again after "
                + "LOST or NACKED", lines[0]);
        assertEquals("AmqpOrders: consumed every order, 20000 deliveries (0 twice: redelivered, or published again); "
                + "reconnections: publisher 0, consumer 0", lines[1]);
    }
}
