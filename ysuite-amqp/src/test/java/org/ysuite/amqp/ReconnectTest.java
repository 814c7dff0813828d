package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Connection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.ysuite.amqp.broker.EmbeddedBroker;

/**
 * {@link ReconnectContract} on Apache Qpid Broker-J, which closes the connections from its side
 * ({@link EmbeddedBroker#closeConnections()}); and a broker gone for good: the publisher waits for
 * it, the writers meet back-pressure, and a close settles what is buffered as lost.
 */
class ReconnectTest extends ReconnectContract {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    @Override
    BrokerExtension broker() {
        return BROKER;
    }

    @Override
    void killConnections() throws Exception {
        assertTrue(BROKER.embedded().closeConnections() >= 1, "the publisher's connection at least");
    }

    @Test
    void brokerGoneTheWritersMeetBackPressureAndCloseSettlesTheBufferAsLost() throws Exception {
        EmbeddedBroker broker = EmbeddedBroker.start();
        Fates fates = new Fates(100_000);
        AmqpPublisher publisher = AmqpPublisher.builder().onFull(OnFull.FAIL).writerBufferBytes(4096)
                .reconnect(Duration.ofMillis(1), Duration.ofMillis(20)).name("gone").open(broker.factory());
        PublisherWriter w = publisher.newWriter(fates);
        try {
            for (int s = 1; s <= 100; s++) { // one at a time: the buffer never fills (OnFull.FAIL)
                w.publish("", "no-queue", PublisherContract.body(0, s));
                assertTrue(w.awaitSettled(s, 20, TimeUnit.SECONDS));
            }
            assertEquals(100, w.confirmed());
            assertNull(publisher.lossCause(), "connected");
        } finally {
            broker.close(); // for good
        }
        awaitState("a try to reconnect failed", () -> String.valueOf(publisher.lossCause())
                .startsWith("reconnecting failed: java.net.ConnectException"));
        assertFalse(publisher.isConnected());
        assertTrue(publisher.isOpen(), "reconnecting: still open");
        BackPressureException full = null;
        for (int s = 101; full == null; s++) {
            try {
                w.publish("", "no-queue", PublisherContract.body(0, s));
                assertTrue(s < 100_000, "the buffer never filled");
            } catch (BackPressureException e) {
                full = e;
            }
        }
        assertTrue(full.getMessage().contains("the connection is down"), full.getMessage());
        long accepted = w.accepted();
        assertTrue(accepted > 100);
        assertEquals(100, w.settled(), "buffered, not settled, while disconnected");
        assertTrue(threadNamed("gone-publisher"));

        publisher.close();
        assertFalse(threadNamed("gone-publisher"), "the publisher's thread ended");
        assertFalse(publisher.isOpen());
        assertFalse(publisher.isConnected());
        assertTrue(publisher.lossCause().startsWith("reconnecting failed: "), publisher.lossCause());
        assertEquals(accepted, w.settled(), "close settles the buffer");
        assertNull(fates.error.get());
        assertEquals(100, w.confirmed());
        assertEquals(accepted - 100, w.lost());
        assertEquals(accepted - 100, fates.count(Fate.LOST, accepted));
        assertEquals(0, publisher.reconnections());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> w.publish("", "no-queue", new byte[1]));
        assertEquals("the publisher is closed", e.getMessage());
    }

    @Test
    void consumerWaitingToReconnectToAGoneBrokerIsEndedByClose() throws Exception {
        EmbeddedBroker broker = EmbeddedBroker.start();
        try (Connection admin = broker.factory().newConnection("admin")) {
            admin.createChannel().queueDeclare("gone", false, false, false, null);
        }
        // The first try an hour after the loss: only close() can end the poll's wait.
        AmqpConsumer consumer = AmqpConsumer.open(broker.factory(), "gone", 10, 4096,
                Duration.ofHours(1), Duration.ofHours(1));
        AtomicReference<Throwable> ended = new AtomicReference<>();
        Thread poller = new Thread(() -> {
            try {
                consumer.poll((buf, off, len, tag, redelivered) -> { });
                ended.set(new AssertionError("poll returned"));
            } catch (Throwable t) {
                ended.set(t);
            }
        }, "gone-poller");
        poller.start();
        broker.close(); // for good
        // the poller saw the loss and waits in the back-off (its stack says so)
        awaitState("the poller waits to reconnect", () -> poller.getState() == Thread.State.TIMED_WAITING
                && java.util.Arrays.stream(poller.getStackTrace()).anyMatch(f -> f.getMethodName().equals("reconnect")));
        consumer.close();
        poller.join();
        assertTrue(ended.get() instanceof IllegalStateException, String.valueOf(ended.get()));
        assertEquals("the consumer is closed", ended.get().getMessage());
        assertEquals(0, consumer.reconnections());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> consumer.poll((buf, off, len, tag, redelivered) -> { }, 1, TimeUnit.SECONDS));
        assertEquals("the consumer is closed", e.getMessage());
    }
}
