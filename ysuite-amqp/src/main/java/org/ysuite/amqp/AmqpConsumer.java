package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;

/**
 * Consumes a queue and hands the deliveries to one application thread through an
 * {@link OffHeapYPipe}: amqp-client's dispatch thread copies each delivery into the pipe (tag,
 * redelivered flag, body) and flushes, which wakes the application thread only if it sleeps in
 * {@link #poll}. {@link #poll} hands every delivery waiting to the handler (consumer-driven
 * batching) and then acknowledges them all with one {@code basicAck(lastTag, multiple=true)}.
 * At most {@code prefetch} deliveries are unacknowledged ({@code basic.qos}); a dispatch thread
 * that finds the pipe full waits for room.
 *
 * <p>{@link #poll} is one thread's at a time. The channel's dispatch thread is the pipe's only
 * writer (amqp-client dispatches one channel's deliveries one at a time, with a happens-before
 * edge between them); acknowledgements go out from the polling thread (amqp-client serialises a
 * channel's outgoing commands). When the channel goes down the pipe is closed: what was delivered
 * but not acknowledged is the broker's to deliver again, and {@link #poll} throws, unless the
 * consumer reconnects. The broker cancelling the subscription ({@code basic.cancel}, as when the
 * queue is deleted) is such a loss too. {@link #isConnected} and {@link #lossCause} tell the state.
 *
 * <p>Opened with a reconnection delay ({@link #open(ConnectionFactory, String, int, int, Duration,
 * Duration)}), the polling thread itself opens a new connection (same factory), channel and pipe
 * after a loss, with back-off, within its {@code poll}'s timeout, and consumes again. The
 * deliveries the lost channel had not acknowledged (those still in its pipe, and those whose
 * acknowledgement the loss kept from the broker) are the broker's to deliver again, marked
 * redelivered: delivery is at least once, and a handler may see a message twice. amqp-client's
 * automatic recovery is always off for the consumer's connection.
 */
public final class AmqpConsumer implements AutoCloseable {

    private static final int HEADER = 9;
    private static final String CONNECTION_NAME = "ysuite-amqp-consumer";
    /** The shortest wait between two tries to reconnect. */
    private static final long MIN_RECONNECT_DELAY = TimeUnit.MILLISECONDS.toNanos(1);

    private final ConnectionFactory factory;
    private final String queue;
    private final int prefetch;
    private final int bufferBytes;
    /** The first wait before reconnecting, in nanoseconds; {@code -1}: no reconnection. */
    private final long reconnectDelay;
    private final long maxReconnectDelay;
    /** Guards the back-off wait: close() wakes it. */
    private final Object backOff = new Object();
    /**
     * The current connection, channel and pipe; written by the polling thread (and the opener).
     * Dekker with close(): the poller writes a new link, then reads {@link #closed}; close() writes
     * closed, then reads the link; so one of them closes the new link.
     */
    private volatile Link link;
    private volatile boolean closed;
    private volatile long reconnections;

    // Polling thread.
    private DeliveryHandler handler;
    private long lastTag;
    private long nextDelay;
    /** Whether a loss is being mended: {@link #retryAt} holds the time of the next try. */
    private boolean retrying;
    private long retryAt;
    private final MessageHandler unpack = this::unpack;

    private AmqpConsumer(ConnectionFactory factory, String queue, int prefetch, int bufferBytes,
                         long reconnectDelay, long maxReconnectDelay) throws IOException, TimeoutException {
        this.factory = factory;
        this.queue = queue;
        this.prefetch = prefetch;
        this.bufferBytes = bufferBytes;
        this.reconnectDelay = reconnectDelay;
        this.maxReconnectDelay = maxReconnectDelay;
        this.nextDelay = reconnectDelay;
        this.link = new Link();
    }

    /** One connection, its channel consuming the queue, and the pipe its deliveries go into. */
    private final class Link {
        final Connection connection;
        final Channel channel;
        final OffHeapYPipe pipe = new OffHeapYPipe(bufferBytes);
        volatile String downCause;

        Link() throws IOException, TimeoutException {
            Connection c = Causes.connect(factory, CONNECTION_NAME);
            try {
                this.connection = c;
                this.channel = c.createChannel();
                channel.addShutdownListener(this::down);
                channel.basicQos(prefetch);
                channel.basicConsume(queue, false, new Dispatch(channel, this));
            } catch (IOException e) {
                c.abort();
                pipe.close();
                // amqp-client's IOException says nothing itself: the reply (NOT_FOUND, say) is in its cause
                throw new IOException("cannot consume queue '" + queue + "': " + Causes.reason(e), e);
            } catch (RuntimeException e) {
                c.abort();
                pipe.close();
                throw e;
            }
        }

        private void down(ShutdownSignalException cause) {
            if (downCause == null) {
                downCause = Causes.ofShutdown(cause);
            }
            pipe.close(); // wakes a poll asleep on it
        }

        void close() {
            if (downCause == null) {
                downCause = "closed";
            }
            try {
                if (connection.isOpen()) {
                    // bounded: a broker that reads nothing more never answers with close-ok
                    connection.close(AmqpPublisher.CLOSE_CONNECTION_MS);
                }
            } catch (IOException | RuntimeException e) {
                connection.abort();
            }
            pipe.close();
        }
    }

    /**
     * Opens a connection of its own and starts consuming {@code queue}; the consumer ends with
     * its connection.
     *
     * @param factory the connection's settings
     * @param queue the queue's name, at most 255 UTF-8 bytes (an AMQP short string)
     * @param prefetch the most unacknowledged deliveries, {@code 1} to {@code 65535}
     * @param bufferBytes the pipe's capacity; a delivery takes 9 bytes and its body, and must fit
     *     {@code OffHeapYPipe.maxMessageLength(bufferBytes)}
     * @return the consumer
     * @throws IOException if the connection, channel or subscription fails (a virtual host that
     *     does not exist or is not allowed: {@code "cannot open virtual host ..."} with the broker's
     *     reply)
     * @throws TimeoutException if the connection times out
     * @throws IllegalArgumentException if {@code prefetch} or {@code bufferBytes} is out of range, or
     *     {@code queue} is longer than 255 UTF-8 bytes
     * @throws NullPointerException if {@code factory} or {@code queue} is null
     */
    public static AmqpConsumer open(ConnectionFactory factory, String queue, int prefetch, int bufferBytes)
            throws IOException, TimeoutException {
        return open(factory, queue, prefetch, bufferBytes, -1, -1);
    }

    /**
     * Opens a connection of its own and starts consuming {@code queue}; after a lost connection or
     * channel, {@link #poll} reconnects: the first try {@code initialDelay} after it saw the loss,
     * then after twice the last wait (at least 1 ms), up to {@code maxDelay}, each within its
     * timeout; a wait longer than a poll's timeout goes on over the next polls. What was not
     * acknowledged is delivered again (at least once).
     *
     * @param factory the connection's settings
     * @param queue the queue's name, at most 255 UTF-8 bytes (an AMQP short string)
     * @param prefetch the most unacknowledged deliveries, {@code 1} to {@code 65535}
     * @param bufferBytes the pipe's capacity; a delivery takes 9 bytes and its body, and must fit
     *     {@code OffHeapYPipe.maxMessageLength(bufferBytes)}
     * @param initialDelay the wait before the first try, {@code 0} to {@code maxDelay}
     * @param maxDelay the longest wait between two tries, 1 ms to 1 hour
     * @return the consumer
     * @throws IOException if the first connection, channel or subscription fails
     * @throws TimeoutException if the first connection times out
     * @throws IllegalArgumentException if an argument is out of range ({@code queue}: longer than 255
     *     UTF-8 bytes)
     * @throws NullPointerException if an argument is null
     */
    public static AmqpConsumer open(ConnectionFactory factory, String queue, int prefetch, int bufferBytes,
                                    Duration initialDelay, Duration maxDelay) throws IOException, TimeoutException {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (maxDelay.compareTo(AmqpPublisherBuilder.MIN_RECONNECT_MAX_DELAY) < 0
                || maxDelay.compareTo(AmqpPublisherBuilder.MAX_RECONNECT_DELAY) > 0) {
            throw new IllegalArgumentException("maxDelay must be in " + AmqpPublisherBuilder.MIN_RECONNECT_MAX_DELAY
                    + ".." + AmqpPublisherBuilder.MAX_RECONNECT_DELAY + ": " + maxDelay);
        }
        if (initialDelay.isNegative() || initialDelay.compareTo(maxDelay) > 0) {
            throw new IllegalArgumentException("initialDelay must be in PT0S..maxDelay (" + maxDelay + "): "
                    + initialDelay);
        }
        return open(factory, queue, prefetch, bufferBytes, initialDelay.toNanos(), maxDelay.toNanos());
    }

    private static AmqpConsumer open(ConnectionFactory factory, String queue, int prefetch, int bufferBytes,
                                     long initialDelay, long maxDelay) throws IOException, TimeoutException {
        Objects.requireNonNull(factory, "factory");
        Objects.requireNonNull(queue, "queue");
        Utf8.shortString("queue", queue); // before amqp-client's own, which names no argument
        if (prefetch < 1 || prefetch > 65535) {
            throw new IllegalArgumentException("prefetch must be in 1..65535: " + prefetch);
        }
        if (bufferBytes < OffHeapYPipe.MIN_CAPACITY_BYTES || bufferBytes > OffHeapYPipe.MAX_CAPACITY_BYTES) {
            throw new IllegalArgumentException("bufferBytes must be in " + OffHeapYPipe.MIN_CAPACITY_BYTES
                    + ".." + OffHeapYPipe.MAX_CAPACITY_BYTES + ": " + bufferBytes);
        }
        ConnectionFactory own = factory.clone();
        own.setAutomaticRecoveryEnabled(false); // a recovered channel restarts its delivery tags
        own.setTopologyRecoveryEnabled(false);
        return new AmqpConsumer(own, queue, prefetch, bufferBytes, initialDelay, maxDelay);
    }

    /** amqp-client's dispatch thread: each delivery into its link's pipe. */
    private static final class Dispatch extends DefaultConsumer {
        private final Link link;
        private final OffHeapYPipe pipe;

        Dispatch(Channel channel, Link link) {
            super(channel);
            this.link = link;
            this.pipe = link.pipe;
        }

        /**
         * The broker ended the subscription ({@code basic.cancel}: its queue was deleted, say). The
         * channel stays open but nothing more comes on it: a loss like a closed channel's, which a
         * reconnecting consumer mends by subscribing again.
         */
        @Override
        public void handleCancel(String consumerTag) {
            if (link.downCause == null) {
                link.downCause = "the broker cancelled the subscription (basic.cancel): was the queue deleted?";
            }
            pipe.close(); // wakes a poll asleep on it
        }

        @Override
        public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                                   byte[] body) {
            int length = HEADER + body.length;
            try {
                if (length > pipe.maxMessageLength()) {
                    throw new IllegalStateException("a delivery of " + body.length + " bytes does not fit"
                            + " the consumer's buffer (largest body " + (pipe.maxMessageLength() - HEADER) + ")");
                }
                int at = pipe.claim(length);
                while (at < 0) {
                    pipe.awaitSpace(length);
                    at = pipe.claim(length);
                }
                ByteBuffer buf = pipe.claimBuffer().order(ByteOrder.BIG_ENDIAN); // as unpack reads it
                buf.putLong(at, envelope.getDeliveryTag());
                buf.put(at + 8, (byte) (envelope.isRedeliver() ? 1 : 0));
                buf.put(at + HEADER, body);
                pipe.commit(false);
                pipe.flush(); // wakes a poll asleep in awaitMessage by itself
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IllegalStateException e) {
                // the pipe is closed (the consumer is closing) or the body is too large: the
                // delivery stays unacknowledged, the broker's to deliver again
                if (link.downCause == null) {
                    link.downCause = e.getMessage();
                }
                pipe.close();
            }
        }
    }

    /**
     * Waits until deliveries are there, hands every waiting one to {@code handler} and
     * acknowledges them together.
     *
     * @param handler called once per delivery, in order, on this thread
     * @return how many deliveries were handed over, at least {@code 1}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the consumer is closed, or (without reconnection) its channel is down
     * @throws IOException if the acknowledgement cannot be sent
     * @throws NullPointerException if {@code handler} is null
     */
    public int poll(DeliveryHandler handler) throws InterruptedException, IOException {
        return poll(handler, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
    }

    /**
     * Waits at most {@code timeout} for deliveries, hands every waiting one to {@code handler} and
     * acknowledges them together. An exception from the handler propagates at once, with nothing
     * acknowledged; the next successful poll's {@code multiple} acknowledgement covers the
     * deliveries before it, the failed one included. With reconnection, a loss found here is
     * mended here, within the timeout: the deliveries of the lost channel not yet acknowledged
     * (those handed over by a poll whose acknowledgement failed included) come again.
     *
     * @param handler called once per delivery, in order, on this thread
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return how many deliveries were handed over; {@code 0} if the time ran out (reconnecting, perhaps)
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the consumer is closed, or (without reconnection) its channel is down
     * @throws IOException if the acknowledgement cannot be sent (without reconnection)
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code handler} or {@code unit} is null
     */
    public int poll(DeliveryHandler handler, long timeout, TimeUnit unit) throws InterruptedException, IOException {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        long deadline = System.nanoTime() + Math.min(unit.toNanos(timeout), Long.MAX_VALUE / 4);
        for (;;) {
            Link l = link;
            if (l.pipe.isClosed() && reconnects()) {
                l = reconnect(deadline);
                if (l == null) {
                    return 0; // the time ran out before a new connection was up
                }
            }
            int n = 0;
            try {
                n = drain(l, handler);
                if (n == 0 && l.pipe.awaitMessage(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    n = drain(l, handler);
                }
                if (n > 0) {
                    l.channel.basicAck(lastTag, true);
                }
                return n;
            } catch (IllegalStateException e) {
                if (!l.pipe.isClosed()) {
                    throw e; // the handler's own
                }
                if (!reconnects()) {
                    throw new IllegalStateException(closed ? "the consumer is closed"
                            : "the consumer's channel is down: " + l.downCause, e);
                }
                // the pipe closed under this poll: its deliveries come again, on the next link
            } catch (IOException | RuntimeException e) {
                if (!reconnects() || n == 0) {
                    throw e;
                }
                // The acknowledgement was lost with the channel: these n deliveries come again.
                l.pipe.close();
                return n;
            }
        }
    }

    private boolean reconnects() {
        return reconnectDelay >= 0 && !closed;
    }

    /**
     * Polling thread, after a loss: opens a new link, trying at {@link #retryAt} and, after each
     * failed try, {@code nextDelay} later (close() ends the wait), until one succeeds, the consumer
     * is closed (throws) or the deadline passes ({@code null}). The time of the next try outlives
     * the poll: a back-off longer than a poll's timeout is waited out over several polls, not
     * started again by each.
     */
    private Link reconnect(long deadline) throws InterruptedException {
        Link lost = link;
        lost.close(); // whatever is left of it
        if (!retrying) {
            retrying = true;
            retryAt = System.nanoTime() + nextDelay; // the first try, nextDelay after the loss was seen
        }
        for (;;) {
            synchronized (backOff) {
                for (long left = retryAt - System.nanoTime(); !closed && left > 0; left = retryAt - System.nanoTime()) {
                    long toDeadline = deadline - System.nanoTime();
                    if (toDeadline <= 0) {
                        return null; // the next poll waits on, until retryAt
                    }
                    TimeUnit.NANOSECONDS.timedWait(backOff, Math.min(left, toDeadline));
                }
            }
            if (closed) {
                throw new IllegalStateException("the consumer is closed");
            }
            try {
                Link next = new Link();
                link = next; // volatile write, then the volatile read of closed: Dekker with close()
                if (closed) {
                    next.close();
                    throw new IllegalStateException("the consumer is closed");
                }
                reconnections++; // the polling thread's only (one at a time)
                retrying = false;
                nextDelay = reconnectDelay;
                return next;
            } catch (IOException | TimeoutException | RuntimeException e) {
                if (e instanceof IllegalStateException && closed) {
                    throw (IllegalStateException) e;
                }
                lost.downCause = "reconnecting failed: " + Causes.describe(e);
                nextDelay = Math.min(maxReconnectDelay, Math.max(2 * nextDelay, MIN_RECONNECT_DELAY));
                retryAt = System.nanoTime() + nextDelay;
                if (deadline - System.nanoTime() <= 0) {
                    return null;
                }
            }
        }
    }

    /**
     * Returns how many times {@link #poll} reconnected after a loss; always {@code 0} without
     * reconnection.
     *
     * @return the count
     */
    public long reconnections() {
        return reconnections;
    }

    /**
     * Tells whether the consumer's channel is subscribed to its queue now: {@code false} from a loss
     * (a lost connection or channel, or the broker cancelling the subscription) until a poll has
     * reconnected, and for good once closed or (without reconnection) lost.
     *
     * @return {@code true} while connected
     */
    public boolean isConnected() {
        return !closed && !link.pipe.isClosed();
    }

    /**
     * Tells why the consumer is not connected: the loss, or, while tries to reconnect fail, the
     * last try's failure (a queue that no longer exists, say: {@code "reconnecting failed: ...
     * NOT_FOUND ..."}).
     *
     * @return {@code null} while connected; {@code "closed"} once closed
     */
    public String lossCause() {
        if (closed) {
            return "closed";
        }
        Link l = link;
        // downCause (volatile) is written before the pipe's close, whose closed state is read first
        return l.pipe.isClosed() ? l.downCause : null;
    }

    private int drain(Link l, DeliveryHandler h) {
        handler = h;
        try {
            return l.pipe.readBatch(unpack);
        } finally {
            handler = null;
        }
    }

    /**
     * One record of the pipe to the handler: the view made the body's (position at its start,
     * limit at its end) and big-endian, as AMQP and {@code ByteBuffer.wrap} are. The pipe gives its
     * next call the whole ring in native order again, so this costs three field writes.
     */
    private void unpack(ByteBuffer buf, int offset, int length) {
        buf.order(ByteOrder.BIG_ENDIAN);
        long tag = buf.getLong(offset);
        boolean redelivered = buf.get(offset + 8) != 0;
        buf.limit(offset + length).position(offset + HEADER);
        lastTag = tag;
        handler.onDelivery(buf, offset + HEADER, length - HEADER, tag, redelivered);
    }

    /**
     * Closes the connection (what was delivered but not acknowledged goes back to the queue) and
     * the pipe, and ends a reconnection's wait: waits at most 5 seconds for the broker's
     * {@code close-ok}, then drops the connection. Idempotent.
     */
    @Override
    public void close() {
        synchronized (backOff) {
            closed = true;
            backOff.notifyAll();
        }
        link.close(); // after the volatile write of closed: Dekker with reconnect()
    }
}
