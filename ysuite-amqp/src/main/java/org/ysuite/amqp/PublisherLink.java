package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * One connection of an {@link AmqpPublisher} and its channel in confirm mode, with the listeners
 * bound to them. The publisher's thread opens a link at the start and, with reconnection, a new one
 * after each loss; a link's state (down, blocked) is its own, so that a late event of an earlier
 * link cannot touch the current one.
 *
 * <p>Delivery tags restart at 1 on each channel, the ledger's tags do not: this channel's tag
 * {@code t} is the ledger's {@code base + t}, {@code base} being the ledger's last tag when the
 * link opened (every earlier tag settled then). A late confirm of an earlier link maps to a tag at
 * most its own link's last, which is settled already: the ledger ignores it.
 *
 * <p>Threads: the fields are final or volatile. The publisher's thread creates the link and is the
 * only one to publish on its channel; the listeners run on the connection's thread and see the
 * final fields (final-field semantics), the volatile ones by their volatile reads.
 */
final class PublisherLink {

    final Connection connection;
    final Channel channel;
    /** Holds the publisher thread's flushes back for a batch ({@link CorkedSockets}). */
    final CorkedSockets.Cork cork;
    /** The ledger's tag before this channel's first delivery tag. */
    final long base;
    private final AmqpPublisher publisher;

    /** Set by the channel's shutdown listener, or by the publisher's thread on a failed publish. */
    volatile boolean down;
    /** Why the link went down, or {@code null}; written before {@link #down}. */
    volatile String cause;
    volatile boolean blocked;
    volatile String blockedReason;

    private PublisherLink(Connection connection, CorkedSockets.Cork cork, long base, AmqpPublisher publisher)
            throws IOException {
        this.connection = connection;
        this.cork = cork;
        this.base = base;
        this.publisher = publisher;
        this.channel = connection.createChannel();
        channel.confirmSelect();
        channel.addConfirmListener(new Confirms());
        channel.addReturnListener((ReturnListener) this::returned);
        channel.addShutdownListener(this::channelShutdown); // called at once if it is shut already
        connection.addBlockedListener(new Blocking());
    }

    /**
     * Opens a connection with {@code factory} and a confirm-mode channel on it.
     *
     * @throws IOException if the connection or the channel cannot be opened
     * @throws TimeoutException if the connection times out
     */
    static PublisherLink open(ConnectionFactory factory, String name, long base, AmqpPublisher publisher)
            throws IOException, TimeoutException {
        Connection c = factory.newConnection(name);
        CorkedSockets.Cork cork = factory.getSocketFactory() instanceof CorkedSockets
                ? ((CorkedSockets) factory.getSocketFactory()).takeLast() : CorkedSockets.NONE;
        try {
            return new PublisherLink(c, cork, base, publisher);
        } catch (IOException | RuntimeException e) {
            c.abort();
            throw e;
        }
    }

    /** Publisher's thread: the link is down from now on (a failed publish). */
    void failed(String why) {
        if (cause == null) {
            cause = why;
        }
        down = true;
    }

    /** Closes the connection, waiting at most {@code timeoutMs} for the broker; aborts it if that fails. */
    void close(int timeoutMs) {
        try {
            if (connection.isOpen()) {
                connection.close(timeoutMs);
            }
        } catch (IOException | RuntimeException e) {
            connection.abort();
        }
    }

    private final class Confirms implements ConfirmListener {
        @Override
        public void handleAck(long deliveryTag, boolean multiple) {
            publisher.answered(base + deliveryTag, multiple, true);
        }

        @Override
        public void handleNack(long deliveryTag, boolean multiple) {
            publisher.answered(base + deliveryTag, multiple, false);
        }
    }

    /** A {@code basic.return}: its tag header (the ledger's tag) ties it to the message, whose ack follows it. */
    private void returned(int replyCode, String replyText, String exchange, String routingKey,
                          AMQP.BasicProperties props, byte[] body) {
        Map<String, Object> headers = props.getHeaders();
        Object tag = headers == null ? null : headers.get(AmqpPublisher.TAG_HEADER);
        if (tag instanceof Number) {
            publisher.returnedTag(((Number) tag).longValue());
        }
    }

    private final class Blocking implements BlockedListener {
        @Override
        public void handleBlocked(String reason) {
            blockedReason = reason;
            blocked = true;
        }

        @Override
        public void handleUnblocked() {
            blocked = false;
            publisher.wake();
        }
    }

    private void channelShutdown(ShutdownSignalException signal) {
        failed(String.valueOf(signal.getMessage()));
        publisher.wake(); // after the volatile write of down: the woken thread sees it
    }
}
