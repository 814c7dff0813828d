package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.amqp.ReconnectContract.threadNamed;

import com.rabbitmq.client.ConnectionFactory;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code close(timeout)} of a publisher whose broker stops reading: its thread is held in a socket
 * write that no confirm and no deadline of its own can end (amqp-client's {@code abort()} would
 * wait for the same write), and {@code close} still returns, every accepted message settled and
 * no thread left; a consumer's {@code close()}, whose {@code connection.close} the broker never
 * reads and never answers, returns too. The broker is Broker-J behind a {@link PausingRelay}; no
 * heartbeat is asked for, so nothing but the close ends the wait.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a close that hangs ignores interrupts
class StuckConnectionCloseTest {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    private static final String NAME = "stuck";
    private static final DeliveryHandler IGNORE = (body, offset, length, tag, redelivered) -> { };

    @Test
    void closeReturnsWhileThePublishersThreadIsHeldInASocketWrite() throws Exception {
        ConnectionFactory direct = BROKER.factory();
        try (PausingRelay relay = new PausingRelay(direct.getHost(), direct.getPort(), 8192)) {
            ConnectionFactory factory = relayed(direct, relay);
            // The largest window: the publisher's thread goes on writing until the socket holds it.
            AmqpPublisher publisher = AmqpPublisher.builder().name(NAME).onFull(OnFull.FAIL)
                    .confirmWindow(AmqpPublisherBuilder.MAX_CONFIRM_WINDOW).writerBufferBytes(1 << 20).open(factory);
            try {
                PublisherWriter w = publisher.newWriter();
                byte[] body = new byte[16 * 1024];
                w.publish("", "nowhere", body);
                assertTrue(w.awaitSettled(1, 20, TimeUnit.SECONDS), "the relay carries the first message");
                assertEquals(1, w.confirmed());

                relay.pause();
                Thread thread = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals(NAME + "-publisher")).findFirst().orElseThrow();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!heldInSocketWrite(thread)) {
                    assertTrue(System.nanoTime() - deadline < 0, "the publisher's thread never blocked in a write");
                    try {
                        w.publish("", "nowhere", body);
                    } catch (BackPressureException full) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }

                publisher.close(0, TimeUnit.SECONDS);

                assertFalse(publisher.isOpen());
                assertFalse(threadNamed(NAME + "-publisher"), "the publisher's thread has ended");
                assertEquals(w.accepted(), w.settled(), "every accepted message settled");
                assertEquals(w.accepted(), w.confirmed() + w.lost());
                assertTrue(w.lost() > 0, "the messages the broker never read are lost");
                String cause = String.valueOf(publisher.lossCause());
                assertTrue(cause.startsWith("closed before the broker confirmed every message"), cause);
            } finally {
                publisher.close(0, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aConsumersCloseReturnsWhenTheBrokerStopsReading() throws Exception {
        BROKER.declare("stuck-consumer");
        ConnectionFactory direct = BROKER.factory();
        try (PausingRelay relay = new PausingRelay(direct.getHost(), direct.getPort(), 8192)) {
            ConnectionFactory factory = relayed(direct, relay);
            try (AmqpPublisher publisher = AmqpPublisher.builder().open(direct)) {
                PublisherWriter w = publisher.newWriter();
                w.publish("", "stuck-consumer", new byte[8]);
                assertTrue(w.awaitSettled(1, 20, TimeUnit.SECONDS));
            }
            AmqpConsumer consumer = AmqpConsumer.open(factory, "stuck-consumer", 10, 1 << 16);
            assertEquals(1, consumer.poll(IGNORE, 20, TimeUnit.SECONDS));
            relay.pause(); // the broker never gets connection.close: no close-ok comes

            consumer.close();

            assertFalse(consumer.isConnected());
            assertThrows(IllegalStateException.class, () -> consumer.poll(IGNORE, 1, TimeUnit.SECONDS));
        }
    }

    private static ConnectionFactory relayed(ConnectionFactory direct, PausingRelay relay) {
        ConnectionFactory factory = direct.clone();
        factory.setHost("127.0.0.1");
        factory.setPort(relay.port());
        factory.setRequestedHeartbeat(0);
        factory.setSocketFactory(new TestSockets(() -> {
            Socket s = new Socket();
            try {
                s.setSendBufferSize(8192); // the writes block sooner; any size would do
            } catch (SocketException e) {
                throw new IllegalStateException(e);
            }
            return s;
        }));
        return factory;
    }

    /** Blocked in a socket write: a socket stream's write on the stack, a native wait on top. */
    private static boolean heldInSocketWrite(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        if (stack.length == 0 || !stack[0].isNativeMethod()) {
            return false;
        }
        for (StackTraceElement e : stack) {
            if (e.getClassName().startsWith("java.net.Socket") && e.getMethodName().equals("write")) {
                return true;
            }
        }
        return false;
    }
}
