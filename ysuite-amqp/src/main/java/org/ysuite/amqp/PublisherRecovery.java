package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.ysuite.YMailbox;

/**
 * The publisher's thread's links: opens the first one, and after a loss waits for the connection's
 * shutdown signal of a failed write ({@link #awaitShutdownSignal}) and opens the next one with
 * back-off ({@link #reconnect}). Each wait polls the publisher's mailbox, so that writers' wake-ups
 * are kept and a close() ends it. Used by the publisher's thread only (the first link: by the
 * constructor, before that thread starts).
 */
final class PublisherRecovery {

    /**
     * How long the publisher's thread waits, after a failed write, for the connection's shutdown
     * signal ({@link PublisherLink#awaitsShutdownSignal}): a broker that closes a connection sends
     * its {@code connection.close} and then closes the socket, so a write can fail on the reset
     * before amqp-client's reading thread reports the close (RabbitMQ's {@code stop_app}: 4 to 80 ms).
     */
    static final long SHUTDOWN_SIGNAL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The shortest wait between two tries to reconnect, whatever the first one was. */
    private static final long MIN_RECONNECT_DELAY = TimeUnit.MILLISECONDS.toNanos(1);

    private final AmqpPublisher publisher;
    private final ConnectionFactory factory;
    private final String name;
    private final AMQP.BasicProperties properties;
    private final ConfirmLedger[] ledgers;
    private final YMailbox<Object> mailbox;
    private final Consumer<Object> onWake;
    /** The first wait before reconnecting, in nanoseconds; {@code -1}: no reconnection. */
    private final long reconnectDelay;
    private final long maxReconnectDelay;
    /** {@link #SHUTDOWN_SIGNAL_WAIT_NANOS}, or a test's longer wait (the builder's). */
    private final long shutdownSignalWait;

    PublisherRecovery(AmqpPublisherBuilder b, ConnectionFactory factory, ConfirmLedger[] ledgers,
                      AmqpPublisher publisher, YMailbox<Object> mailbox, Consumer<Object> onWake) {
        this.publisher = publisher;
        this.factory = factory;
        this.name = b.name;
        this.properties = b.properties;
        this.ledgers = ledgers;
        this.mailbox = mailbox;
        this.onWake = onWake;
        this.reconnectDelay = b.reconnectDelayNanos;
        this.maxReconnectDelay = b.maxReconnectDelayNanos;
        this.shutdownSignalWait = b.shutdownSignalWaitNanos;
    }

    /** Opens a link through the factory: every channel in confirm mode, lane i recording in ledger i. */
    PublisherLink open() throws IOException, TimeoutException {
        return PublisherLink.open(factory, name, properties, ledgers, publisher);
    }

    /** Whether the publisher reconnects after a loss. */
    boolean reconnects() {
        return reconnectDelay >= 0;
    }

    /**
     * After a failed write, waits for the connection's shutdown signal while the publisher is
     * open, at most {@link #SHUTDOWN_SIGNAL_WAIT_NANOS}: a broker's close that comes after the reset
     * it caused is then the loss's cause. The signal's listener, and a close(), wake this thread.
     */
    void awaitShutdownSignal(PublisherLink l) throws InterruptedException {
        // Before settling, not after: the LOST fates, isOpen() and publish's refusal are read as
        // they happen, so the cause must be final then; the signal ends the wait (ms), and a down
        // link leaves this thread nothing else to do.
        long until = System.nanoTime() + shutdownSignalWait;
        for (long left = shutdownSignalWait; publisher.isOpen() && l.awaitsShutdownSignal() && left > 0;
                left = until - System.nanoTime()) {
            mailbox.poll(onWake, left, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * After a loss, every published message settled: opens a new link through the same factory,
     * waiting {@code reconnectDelay} before the first try and doubling the wait after each failed
     * one, up to {@code maxReconnectDelay}. Meanwhile nothing drains the writers' buffers: they
     * fill, and the writers meet back-pressure. A close() ends the wait (its wake-up); a try under
     * way runs to its end (at most the factory's connection timeout). Each failed try's cause is
     * {@code lost}'s cause.
     *
     * @return the new link; {@code null} if the publisher is closing
     */
    PublisherLink reconnect(PublisherLink lost) throws InterruptedException {
        lost.close(0); // whatever is left of it: no wait for the broker
        long delay = reconnectDelay;
        for (;;) {
            long until = System.nanoTime() + delay;
            for (long left = delay; publisher.isOpen() && left > 0; left = until - System.nanoTime()) {
                mailbox.poll(onWake, left, TimeUnit.NANOSECONDS); // writers' wake-ups are kept
            }
            if (!publisher.isOpen()) {
                return null;
            }
            try {
                // Every earlier tag is settled: each new channel's tag t is its ledger's base + t.
                return open();
            } catch (IOException | TimeoutException | RuntimeException e) {
                lost.cause = "reconnecting failed: " + Causes.describe(e);
                delay = Math.min(maxReconnectDelay, Math.max(2 * delay, MIN_RECONNECT_DELAY));
            }
        }
    }
}
