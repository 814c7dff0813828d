package org.ysuite.bench.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.ysuite.amqp.AmqpPublisher;
import org.ysuite.amqp.PublisherWriter;

/**
 * One application thread's way of publishing with confirms: the factory behind
 * {@link AmqpPublish}'s {@code way} parameter.
 *
 * <ul>
 *   <li>{@code ysuite}: a {@link PublisherWriter} per thread of one {@link AmqpPublisher}.
 *   <li>{@code ysuite_channels4}: the same publisher publishing over four channels of its
 *       connection ({@code channels(4)}): with four threads, a channel per writer.
 *   <li>{@code channel_per_thread_each} / {@code _batch}: a confirm-mode channel per thread on one
 *       connection; a wait for confirms after each message, or after every N.
 *   <li>{@code channel_per_thread_async}: a confirm-mode channel per thread on one connection, its
 *       confirms handled as they come by a {@code ConfirmListener} (the third strategy of RabbitMQ's
 *       publisher-confirms tutorial: each message kept in a {@code ConcurrentSkipListMap} by
 *       sequence number until its confirm), at most {@value #ASYNC_WINDOW} unconfirmed per thread
 *       (a {@code Semaphore}), as many as ysuite's default confirm window per channel.
 *   <li>{@code locked_channel_each} / {@code _batch}: one confirm-mode channel that every thread
 *       uses under a lock, with the same waits.
 * </ul>
 */
abstract class PublishWay {

    private static final long CONFIRM_TIMEOUT_MS = 30_000;
    /** Unconfirmed messages one thread of {@code channel_per_thread_async} may have. */
    static final int ASYNC_WINDOW = 1024;

    /** Publishes one message (waiting for confirms as the way does). */
    abstract void publish(byte[] body) throws Exception;

    /** Publishes one message and waits for its confirm (and any other still due). */
    void publishConfirmed(byte[] body) throws Exception {
        publish(body);
        settle();
    }

    /** Waits for every confirm still due. */
    abstract void settle() throws Exception;

    /** What the threads of one way share: a connection, a publisher, a locked channel. */
    interface Shared extends AutoCloseable {
        PublishWay forThread() throws Exception;
    }

    static Shared shared(String way, ConnectionFactory factory, int batch) throws IOException, TimeoutException {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be >= 1, was " + batch);
        }
        switch (way) {
            case "ysuite":
            case "ysuite_channels4": {
                AmqpPublisher publisher = AmqpPublisher.builder().name("ysuite-bench")
                        .channels(way.equals("ysuite") ? 1 : 4).open(factory);
                return new Shared() {
                    @Override
                    public PublishWay forThread() {
                        return new Ysuite(publisher.newWriter());
                    }

                    @Override
                    public void close() {
                        publisher.close();
                    }
                };
            }
            case "channel_per_thread_each":
            case "channel_per_thread_batch": {
                Connection connection = factory.newConnection("channel-per-thread");
                int every = way.endsWith("_each") ? 1 : batch;
                return new Shared() {
                    @Override
                    public PublishWay forThread() throws IOException {
                        Channel c = connection.createChannel();
                        c.confirmSelect();
                        return new OwnChannel(c, every);
                    }

                    @Override
                    public void close() throws IOException {
                        connection.close();
                    }
                };
            }
            case "channel_per_thread_async": {
                Connection connection = factory.newConnection("channel-per-thread-async");
                return new Shared() {
                    @Override
                    public PublishWay forThread() throws IOException {
                        return new AsyncChannel(connection.createChannel());
                    }

                    @Override
                    public void close() throws IOException {
                        connection.close();
                    }
                };
            }
            case "locked_channel_each":
            case "locked_channel_batch": {
                Connection connection = factory.newConnection("locked-channel");
                Channel c = connection.createChannel();
                c.confirmSelect();
                LockedChannel locked = new LockedChannel(c, way.endsWith("_each") ? 1 : batch);
                return new Shared() {
                    @Override
                    public PublishWay forThread() {
                        return locked;
                    }

                    @Override
                    public void close() throws IOException {
                        connection.close();
                    }
                };
            }
            default:
                throw new IllegalArgumentException("way must be ysuite, ysuite_channels4, channel_per_thread_each, "
                        + "channel_per_thread_batch, channel_per_thread_async, locked_channel_each or "
                        + "locked_channel_batch, was " + way);
        }
    }

    /** ysuite: the writer copies the message into its pipe; the publisher's thread owns the channel. */
    private static final class Ysuite extends PublishWay {
        private final PublisherWriter writer;
        private long last;

        Ysuite(PublisherWriter writer) {
            this.writer = writer;
        }

        @Override
        void publish(byte[] body) throws InterruptedException {
            last = writer.publish(AmqpPublish.EXCHANGE, "", body);
        }

        @Override
        void settle() throws Exception {
            if (!writer.awaitSettled(last, CONFIRM_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                throw new TimeoutException("message " + last + " not settled in " + CONFIRM_TIMEOUT_MS + " ms");
            }
            if (writer.confirmed() != writer.settled()) {
                throw new IOException("not every message was confirmed: " + writer);
            }
        }
    }

    /** A confirm-mode channel of the thread's own, a wait after every {@code every} messages. */
    private static final class OwnChannel extends PublishWay {
        private final Channel channel;
        private final int every;
        private int unconfirmed;

        OwnChannel(Channel channel, int every) {
            this.channel = channel;
            this.every = every;
        }

        @Override
        void publish(byte[] body) throws Exception {
            channel.basicPublish(AmqpPublish.EXCHANGE, "", null, body);
            if (++unconfirmed >= every) {
                settle();
            }
        }

        @Override
        void publishConfirmed(byte[] body) throws Exception {
            channel.basicPublish(AmqpPublish.EXCHANGE, "", null, body);
            unconfirmed++;
            settle();
        }

        @Override
        void settle() throws Exception {
            if (unconfirmed > 0) {
                channel.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MS);
                unconfirmed = 0;
            }
        }
    }

    /**
     * A confirm-mode channel of the thread's own whose confirms a listener handles as they come: each
     * message waits in {@link #outstanding} (by sequence number, for a retry) until its ack; a nack
     * is counted and fails the next {@link #settle}. The thread waits only when
     * {@value #ASYNC_WINDOW} messages are unconfirmed.
     */
    private static final class AsyncChannel extends PublishWay implements ConfirmListener {
        private final Channel channel;
        private final ConcurrentNavigableMap<Long, byte[]> outstanding = new ConcurrentSkipListMap<>();
        private final Semaphore window = new Semaphore(ASYNC_WINDOW);
        private volatile long nacked;

        AsyncChannel(Channel channel) throws IOException {
            this.channel = channel;
            channel.confirmSelect();
            channel.addConfirmListener(this);
        }

        @Override
        void publish(byte[] body) throws Exception {
            if (!window.tryAcquire(CONFIRM_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                throw new TimeoutException(ASYNC_WINDOW + " messages unconfirmed for " + CONFIRM_TIMEOUT_MS + " ms");
            }
            outstanding.put(channel.getNextPublishSeqNo(), body); // before the publish: its ack may come at once
            channel.basicPublish(AmqpPublish.EXCHANGE, "", null, body);
        }

        @Override
        void settle() throws Exception {
            if (!window.tryAcquire(ASYNC_WINDOW, CONFIRM_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                throw new TimeoutException(outstanding.size() + " messages not confirmed in " + CONFIRM_TIMEOUT_MS + " ms");
            }
            window.release(ASYNC_WINDOW);
            if (nacked > 0) {
                throw new IOException(nacked + " messages nacked");
            }
        }

        @Override
        public void handleAck(long tag, boolean multiple) {
            window.release(forget(tag, multiple));
        }

        @Override
        public void handleNack(long tag, boolean multiple) {
            int n = forget(tag, multiple);
            nacked += n; // the connection's thread only; before the release, which settle()'s acquire follows
            window.release(n);
        }

        /** The connection's thread: forgets the answered messages; returns how many. */
        private int forget(long tag, boolean multiple) {
            if (multiple) {
                ConcurrentNavigableMap<Long, byte[]> upTo = outstanding.headMap(tag, true);
                int n = upTo.size();
                upTo.clear();
                return n;
            }
            return outstanding.remove(tag) == null ? 0 : 1;
        }
    }

    /** One confirm-mode channel for every thread, behind a lock; a wait after every {@code every}. */
    private static final class LockedChannel extends PublishWay {
        private final Channel channel;
        private final int every;
        private int unconfirmed; // guarded by this

        LockedChannel(Channel channel, int every) {
            this.channel = channel;
            this.every = every;
        }

        @Override
        synchronized void publish(byte[] body) throws Exception {
            channel.basicPublish(AmqpPublish.EXCHANGE, "", null, body);
            if (++unconfirmed >= every) {
                settle();
            }
        }

        @Override
        synchronized void publishConfirmed(byte[] body) throws Exception {
            channel.basicPublish(AmqpPublish.EXCHANGE, "", null, body);
            unconfirmed++;
            settle();
        }

        @Override
        synchronized void settle() throws Exception {
            if (unconfirmed > 0) {
                channel.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MS);
                unconfirmed = 0;
            }
        }
    }
}
