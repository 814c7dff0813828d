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
 * but not acknowledged is the broker's to deliver again, and {@link #poll} throws.
 */
public final class AmqpConsumer implements AutoCloseable {

    private static final int HEADER = 9;

    private final Connection connection;
    private final Channel channel;
    private final OffHeapYPipe pipe;
    private volatile String downCause;

    // Polling thread.
    private DeliveryHandler handler;
    private long lastTag;
    private final MessageHandler unpack = this::unpack;

    private AmqpConsumer(Connection connection, String queue, int prefetch, int bufferBytes) throws IOException {
        this.connection = connection;
        this.pipe = new OffHeapYPipe(bufferBytes);
        this.channel = connection.createChannel();
        channel.addShutdownListener(this::down);
        channel.basicQos(prefetch);
        channel.basicConsume(queue, false, new Dispatch(channel));
    }

    /**
     * Opens a connection of its own and starts consuming {@code queue}.
     *
     * @param factory the connection's settings
     * @param queue the queue's name
     * @param prefetch the most unacknowledged deliveries, {@code 1} to {@code 65535}
     * @param bufferBytes the pipe's capacity; a delivery takes 9 bytes and its body, and must fit
     *     {@code OffHeapYPipe.maxMessageLength(bufferBytes)}
     * @return the consumer
     * @throws IOException if the connection, channel or subscription fails
     * @throws TimeoutException if the connection times out
     * @throws IllegalArgumentException if {@code prefetch} or {@code bufferBytes} is out of range
     * @throws NullPointerException if {@code factory} or {@code queue} is null
     */
    public static AmqpConsumer open(ConnectionFactory factory, String queue, int prefetch, int bufferBytes)
            throws IOException, TimeoutException {
        Objects.requireNonNull(factory, "factory");
        Objects.requireNonNull(queue, "queue");
        if (prefetch < 1 || prefetch > 65535) {
            throw new IllegalArgumentException("prefetch must be in 1..65535: " + prefetch);
        }
        if (bufferBytes < OffHeapYPipe.MIN_CAPACITY_BYTES || bufferBytes > OffHeapYPipe.MAX_CAPACITY_BYTES) {
            throw new IllegalArgumentException("bufferBytes must be in " + OffHeapYPipe.MIN_CAPACITY_BYTES
                    + ".." + OffHeapYPipe.MAX_CAPACITY_BYTES + ": " + bufferBytes);
        }
        Connection c = factory.newConnection("ysuite-amqp-consumer");
        try {
            return new AmqpConsumer(c, queue, prefetch, bufferBytes);
        } catch (IOException | RuntimeException e) {
            c.abort();
            throw e;
        }
    }

    /** amqp-client's dispatch thread: each delivery into the pipe. */
    private final class Dispatch extends DefaultConsumer {
        Dispatch(Channel channel) {
            super(channel);
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
                ByteBuffer buf = pipe.claimBuffer();
                long tag = envelope.getDeliveryTag();
                for (int i = 0; i < 8; i++) {
                    buf.put(at + i, (byte) (tag >>> (56 - 8 * i)));
                }
                buf.put(at + 8, (byte) (envelope.isRedeliver() ? 1 : 0));
                buf.put(at + HEADER, body);
                pipe.commit(false);
                pipe.flush(); // wakes a poll asleep in awaitMessage by itself
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IllegalStateException e) {
                // the pipe is closed (the consumer is closing) or the body is too large: the
                // delivery stays unacknowledged, the broker's to deliver again
                if (downCause == null) {
                    downCause = e.getMessage();
                }
                pipe.close();
            }
        }
    }

    private void down(ShutdownSignalException cause) {
        if (downCause == null) {
            downCause = String.valueOf(cause.getMessage());
        }
        pipe.close(); // wakes a poll asleep on it
    }

    /**
     * Waits until deliveries are there, hands every waiting one to {@code handler} and
     * acknowledges them together.
     *
     * @param handler called once per delivery, in order, on this thread
     * @return how many deliveries were handed over, at least {@code 1}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the consumer is closed or its channel is down
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
     * deliveries before it, the failed one included.
     *
     * @param handler called once per delivery, in order, on this thread
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return how many deliveries were handed over; {@code 0} if the time ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the consumer is closed or its channel is down
     * @throws IOException if the acknowledgement cannot be sent
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code handler} or {@code unit} is null
     */
    public int poll(DeliveryHandler handler, long timeout, TimeUnit unit) throws InterruptedException, IOException {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        try {
            int n = drain(handler);
            if (n == 0 && pipe.awaitMessage(timeout, unit)) {
                n = drain(handler);
            }
            if (n > 0) {
                channel.basicAck(lastTag, true);
            }
            return n;
        } catch (IllegalStateException e) {
            String cause = downCause;
            throw new IllegalStateException(cause == null ? "the consumer is closed" : "the consumer's channel is down: "
                    + cause, e);
        }
    }

    private int drain(DeliveryHandler h) {
        handler = h;
        try {
            return pipe.readBatch(unpack);
        } finally {
            handler = null;
        }
    }

    private void unpack(ByteBuffer buf, int offset, int length) {
        long tag = 0;
        for (int i = 0; i < 8; i++) {
            tag = (tag << 8) | (buf.get(offset + i) & 0xFF);
        }
        lastTag = tag;
        handler.onDelivery(buf, offset + HEADER, length - HEADER, tag, buf.get(offset + 8) != 0);
    }

    /**
     * Closes the connection (what was delivered but not acknowledged goes back to the queue) and
     * the pipe. Idempotent.
     */
    @Override
    public void close() {
        if (downCause == null) {
            downCause = "closed";
        }
        try {
            if (connection.isOpen()) {
                connection.close();
            }
        } catch (IOException | RuntimeException e) {
            connection.abort();
        }
        pipe.close();
    }
}
