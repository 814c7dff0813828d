package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.amqp.ReconnectContract.awaitState;

import com.rabbitmq.client.ConnectionFactory;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a loss says: a connection whose socket breaks (a broker killed, a network cut) names the
 * socket's failure, not only amqp-client's {@code "connection error"}, on the publisher and on the
 * consumer; a subscription the broker refuses names the queue and the broker's reply.
 */
@Timeout(30)
class LossCauseTest {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    private static final DeliveryHandler IGNORE = (body, offset, length, tag, redelivered) -> { };

    @Test
    void aBrokenSocketIsNamedAsTheCauseOfTheLoss() throws Exception {
        BROKER.declare("cut");
        List<Socket> sockets = new CopyOnWriteArrayList<>();
        ConnectionFactory factory = BROKER.factory().clone();
        factory.setSocketFactory(new TestSockets(() -> {
            Socket s = new Socket();
            sockets.add(s);
            return s;
        }));
        try (AmqpPublisher publisher = AmqpPublisher.builder().name("cut").open(factory);
             AmqpConsumer consumer = AmqpConsumer.open(factory, "cut", 10, 1 << 16)) {
            PublisherWriter w = publisher.newWriter();
            w.publish("", "cut", new byte[8]);
            assertTrue(w.awaitSettled(1, 20, TimeUnit.SECONDS), "the first message settled");
            assertEquals(1, w.confirmed());
            assertEquals(1, consumer.poll(IGNORE, 20, TimeUnit.SECONDS), "the first message consumed");
            assertEquals(2, sockets.size(), "the publisher's and the consumer's connection");
            for (Socket s : sockets) {
                s.close(); // under amqp-client's reading threads: as a broker killed or a cable cut
            }

            IllegalStateException down = assertThrows(IllegalStateException.class,
                    () -> consumer.poll(IGNORE, 20, TimeUnit.SECONDS));
            assertFalse(consumer.isConnected());
            assertBrokenSocket(consumer.lossCause());
            assertEquals("the consumer's channel is down: " + consumer.lossCause(), down.getMessage());

            awaitState("the publisher took the loss", () -> !publisher.isOpen());
            assertBrokenSocket(publisher.lossCause());
        }
    }

    /**
     * A broker that closes a connection (RabbitMQ's {@code stop_app}) sends {@code connection.close}
     * and closes the socket: the publisher's write can fail on the reset before amqp-client's
     * reading thread reports the close. Here in that order, made certain: the publisher's socket
     * refuses every write from a point on (as a reset socket does) while its reads go on, a
     * publish fails on it, and only then does the broker close the connection (320). The loss
     * names the broker's close, not the failed write.
     */
    @Test
    void aBrokersCloseAfterAFailedWriteIsTheCauseOfTheLoss() throws Exception {
        BROKER.declare("forced");
        List<WriteFailingSocket> sockets = new CopyOnWriteArrayList<>();
        ConnectionFactory factory = BROKER.factory().clone();
        factory.setSocketFactory(new TestSockets(() -> {
            WriteFailingSocket s = new WriteFailingSocket();
            sockets.add(s);
            return s;
        }));
        AmqpPublisherBuilder builder = AmqpPublisher.builder().name("forced");
        builder.shutdownSignalWaitNanos = TimeUnit.SECONDS.toNanos(60); // the test orders the events
        try (AmqpPublisher publisher = builder.open(factory)) {
            PublisherWriter w = publisher.newWriter();
            w.publish("", "forced", new byte[8]);
            assertTrue(w.awaitSettled(1, 20, TimeUnit.SECONDS), "the first message settled");
            assertEquals(1, sockets.size(), "the publisher's connection");
            sockets.get(0).failWrites = true;
            w.publish("", "forced", new byte[8]);
            PublisherLink link = publisher.link();
            awaitState("the publisher's write failed", () -> link.down);
            assertTrue(link.cause.startsWith("publishing failed: java.net.SocketException"), link.cause);

            assertTrue(BROKER.embedded().closeConnections() >= 1, "the publisher's connection at least");
            awaitState("the publisher took the loss", () -> !publisher.isOpen());
            String cause = publisher.lossCause();
            assertTrue(cause.contains("connection.close") && cause.contains("reply-code=320"), cause);
            assertTrue(w.awaitSettled(2, 20, TimeUnit.SECONDS), "the second message settled");
            assertEquals(1, w.lost());
        }
    }

    /** A socket whose writes fail once {@link #failWrites} is set, as a reset one's do; its reads go on. */
    private static final class WriteFailingSocket extends Socket {
        volatile boolean failWrites;
        private OutputStream out;

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                OutputStream real = super.getOutputStream();
                out = new FilterOutputStream(real) {
                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        check();
                        real.write(b, off, len);
                    }

                    @Override
                    public void write(int b) throws IOException {
                        check();
                        real.write(b);
                    }

                    @Override
                    public void flush() throws IOException {
                        check();
                        real.flush();
                    }
                };
            }
            return out;
        }

        private void check() throws SocketException {
            if (failWrites) {
                throw new SocketException("Connection reset by peer");
            }
        }
    }

    private static void assertBrokenSocket(String cause) {
        assertTrue(cause != null && cause.startsWith("connection error, caused by java.net.SocketException"),
                String.valueOf(cause));
    }

    @Test
    void aQueueNameOverAShortStringIsRefusedNamingTheArgument() {
        String name = "q".repeat(254) + "\u00e9"; // 256 UTF-8 bytes in 255 chars
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AmqpConsumer.open(BROKER.factory(), name, 10, 1 << 16));
        assertEquals("queue is 256 UTF-8 bytes: at most 255 (an AMQP short string)", e.getMessage());
    }

    @Test
    void aVirtualHostThatDoesNotExistIsNamedWithTheBrokersReply() {
        ConnectionFactory factory = BROKER.factory().clone();
        factory.setVirtualHost("no-such-vhost");
        IOException consumer = assertThrows(IOException.class,
                () -> AmqpConsumer.open(factory, "any", 10, 1 << 16));
        assertVirtualHostRefused(consumer);
        IOException publisher = assertThrows(IOException.class, () -> AmqpPublisher.builder().open(factory));
        assertVirtualHostRefused(publisher);
    }

    private static void assertVirtualHostRefused(IOException e) {
        String m = String.valueOf(e.getMessage());
        assertTrue(m.startsWith("cannot open virtual host 'no-such-vhost' on "), m);
        // the broker's reply code and text: RabbitMQ's 530 NOT_ALLOWED, Broker-J's 404 "Unknown virtual host"
        assertTrue(m.matches(".*: the broker answered \\d{3} \\S.*"), m);
    }

    @Test
    void aQueueThatDoesNotExistIsNamedWithTheBrokersReply() {
        IOException refused = assertThrows(IOException.class,
                () -> AmqpConsumer.open(BROKER.factory(), "no-such-queue", 10, 1 << 16));
        String m = String.valueOf(refused.getMessage());
        assertTrue(m.startsWith("cannot consume queue 'no-such-queue': "), m);
        assertTrue(m.contains("reply-code=404"), m);
    }
}
