package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
        } finally {
            broker.close(); // for good
        }
        awaitState("the publisher saw the loss", () -> !publisher.isConnected());
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
}
