package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.NoOpMetricsCollector;
import com.rabbitmq.client.observation.ObservationCollector;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an application sets on its factory for amqp-client's own instrumentation sees every message
 * the publisher publishes, as it would with {@code basicPublish}: a {@code MetricsCollector} counts
 * each one (and each one the socket could not write as failed), and an {@code ObservationCollector}
 * (tracing) observes each one and may add to its properties, which the broker then holds.
 */
@Timeout(30)
class CollectorsTest {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    private static final int MESSAGES = 1000;

    /** The metrics an application might keep: publishes, failed publishes and the broker's acks. */
    static final class CountingMetrics extends NoOpMetricsCollector {
        final AtomicLong published = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong acked = new AtomicLong();

        @Override
        public void basicPublish(Channel channel) {
            published.incrementAndGet();
        }

        @Override
        public void basicPublishFailure(Channel channel, Throwable cause) {
            failed.incrementAndGet();
        }

        @Override
        public void basicPublishAck(Channel channel, long deliveryTag, boolean multiple) {
            acked.incrementAndGet();
        }
    }

    /** An observation that, as a tracer does, adds a header to every message it sees published. */
    static final class TracingObservation implements ObservationCollector {
        final AtomicLong observed = new AtomicLong();

        @Override
        public void publish(PublishCall call, AMQP.Basic.Publish publish, AMQP.BasicProperties properties,
                            ByteBuffer body, ConnectionInfo connectionInfo) throws IOException {
            observed.incrementAndGet();
            Map<String, Object> headers = properties.getHeaders() == null
                    ? new HashMap<>() : new HashMap<>(properties.getHeaders());
            headers.put("trace", "span-of-" + publish.getRoutingKey());
            call.publish(properties.builder().headers(headers).build());
        }

        @Override
        public Consumer basicConsume(String queue, String consumerTag, Consumer consumer) {
            return consumer;
        }

        @Override
        public GetResponse basicGet(BasicGetCall call, String queue) {
            return call.get();
        }
    }

    /** Declares {@code queue} and publishes to it through a factory that {@code instrument} set up. */
    private static void publish(String queue, java.util.function.Consumer<ConnectionFactory> instrument)
            throws Exception {
        BROKER.declare(queue);
        ConnectionFactory factory = BROKER.factory().clone();
        instrument.accept(factory);
        try (AmqpPublisher publisher = AmqpPublisher.builder().open(factory)) {
            PublisherWriter w = publisher.newWriter();
            byte[] body = new byte[8];
            for (int i = 0; i < MESSAGES; i++) {
                w.publish("", queue, body);
            }
            assertTrue(w.awaitSettled(MESSAGES, 20, TimeUnit.SECONDS), "every message settled");
            assertEquals(MESSAGES, w.confirmed());
        }
    }

    @Test
    void aMetricsCollectorCountsEveryPublish() throws Exception {
        CountingMetrics metrics = new CountingMetrics();
        publish("metered", f -> f.setMetricsCollector(metrics));
        assertEquals(MESSAGES, metrics.published.get(), "publishes the metrics saw");
        assertTrue(metrics.acked.get() > 0, "the broker's acks reach the metrics too");
    }

    /**
     * A plain socket whose reads, once {@link #hold} is set, keep what they read until
     * {@link #release}: the connection's thread cannot see the broker react to a test's act on the
     * socket until the test lets it.
     */
    static final class HeldSocket extends Socket {
        private final CountDownLatch released = new CountDownLatch(1);
        private volatile boolean held;

        void hold() {
            held = true;
        }

        void release() {
            released.countDown();
        }

        @Override
        public InputStream getInputStream() throws IOException {
            return new FilterInputStream(super.getInputStream()) {
                @Override
                public int read() throws IOException {
                    return waited(super.read());
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    return waited(super.read(b, off, len));
                }
            };
        }

        private int waited(int n) throws IOException {
            if (held) {
                try {
                    released.await();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException("interrupted while held");
                }
            }
            return n;
        }
    }

    @Test
    void aPublishTheSocketCannotWriteIsCountedAsFailed() throws Exception {
        BROKER.declare("unwritable");
        CountingMetrics metrics = new CountingMetrics();
        HeldSocket socket = new HeldSocket();
        ConnectionFactory factory = BROKER.factory().clone();
        factory.setMetricsCollector(metrics);
        factory.setSocketFactory(new TestSockets(() -> socket)); // the publisher's one connection
        AmqpPublisher publisher = AmqpPublisher.builder().open(factory);
        try {
            PublisherWriter w = publisher.newWriter();
            byte[] body = new byte[8];
            for (int i = 0; i < MESSAGES; i++) {
                w.publish("", "unwritable", body);
            }
            assertTrue(w.awaitSettled(MESSAGES, 20, TimeUnit.SECONDS), "the first messages settled");
            assertEquals(MESSAGES, w.confirmed());
            socket.hold(); // the broker's answer to what follows waits: only the write can fail
            socket.shutdownOutput(); // every write from here on fails
            for (int i = 0; i < 64; i++) {
                w.publish("", "unwritable", body);
            }
            assertTrue(w.awaitSettled(w.accepted(), 20, TimeUnit.SECONDS), "every message settled");
            assertEquals(MESSAGES, w.confirmed(), "confirmed: the first messages only");
            assertEquals(64, w.lost(), "lost: the messages after the socket's output shut");
        } finally {
            socket.release();
            publisher.close(); // the publisher's thread has ended: it tells the metrics nothing more
        }
        // The publisher's thread took at least one of the 64 (its write failed) and perhaps all of
        // them; those it did not take were settled as lost in the writer's buffer, never published.
        long taken = publisher.published() - MESSAGES;
        assertTrue(taken >= 1 && taken <= 64, "taken after the socket's output shut: " + taken);
        assertEquals(MESSAGES, metrics.published.get(), "publishes the metrics saw succeed");
        assertEquals(taken, metrics.failed.get(), "failed publishes: those taken after the socket's output shut");
    }

    @Test
    void anObservationCollectorSeesAndTagsEveryPublish() throws Exception {
        TracingObservation tracing = new TracingObservation();
        publish("observed", f -> f.setObservationCollector(tracing));
        assertEquals(MESSAGES, tracing.observed.get(), "publishes the observation saw");
        try (Connection c = BROKER.factory().newConnection("check"); Channel channel = c.createChannel()) {
            for (int i = 0; i < MESSAGES; i++) {
                GetResponse got = channel.basicGet("observed", true);
                assertNotNull(got, "message " + i + " is in the queue");
                Map<String, Object> headers = got.getProps().getHeaders();
                assertNotNull(headers, "message " + i + " has the observation's header");
                assertEquals("span-of-observed", String.valueOf(headers.get("trace")), "message " + i);
            }
            assertNull(channel.basicGet("observed", true), "nothing more");
        }
    }
}
