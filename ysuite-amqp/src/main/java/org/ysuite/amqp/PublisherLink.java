package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MetricsCollector;
import com.rabbitmq.client.NoOpMetricsCollector;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.TimeoutException;

/**
 * One connection of an {@link AmqpPublisher} and its {@link PublisherLane lanes}: as many
 * confirm-mode channels as the publisher's {@code channels}, each with its own delivery tags and
 * ledger. The publisher's thread opens a link at the start and, with reconnection, a new one (every
 * channel reopened) after each loss; a link's state (down, blocked) is its own, so that a late event
 * of an earlier link cannot touch the current one. Any of its channels shutting down takes the whole
 * link down: the publisher then settles every ledger, as after a lost connection.
 *
 * <p>Threads: the fields are final or volatile. The publisher's thread creates the link and is the
 * only one to publish on its channels; the listeners run on the connection's thread and see the
 * final fields (final-field semantics), the volatile ones by their volatile reads.
 */
final class PublisherLink {

    final Connection connection;
    /** Lane {@code i} records in the publisher's ledger {@code i}. */
    final PublisherLane[] lanes;
    /**
     * The publisher thread's frames of a batch, written to the socket at once; {@code null} where
     * the connection does not allow it ({@link FrameBatch#of}): each message is then published by
     * {@code basicPublish}.
     */
    final FrameBatch frames;
    /**
     * The application's {@code MetricsCollector} (set on its factory), told of each message that
     * {@link #frames} carries as {@code basicPublish} would tell it, at the end of its batch
     * ({@link #endBatch}); {@code null} if none is set.
     */
    final MetricsCollector metrics;
    private final AmqpPublisher publisher;

    /** Set by a channel's shutdown listener, or by the publisher's thread on a failed publish. */
    volatile boolean down;
    /**
     * Why the link went down, or {@code null}; written before {@link #down}. The first cause
     * wins, except that a broker's close replaces a failed write's ({@link #channelShutdown}).
     * Written under {@code this}.
     */
    volatile String cause;
    /** {@link #cause} is a failed write's, which the broker's close may follow; under {@code this}. */
    private boolean causeIsWrite;
    /** A channel's shutdown signal has come (the connection's, or the channel's own); under {@code this}. */
    private boolean signalled;
    volatile boolean blocked;
    volatile String blockedReason;

    private PublisherLink(Connection connection, MetricsCollector metrics, AMQP.BasicProperties properties,
                          ConfirmLedger[] ledgers, AmqpPublisher publisher) throws IOException {
        this.connection = connection;
        this.frames = FrameBatch.of(connection, properties);
        this.metrics = metrics == null || metrics.getClass() == NoOpMetricsCollector.class ? null : metrics;
        this.publisher = publisher;
        this.lanes = new PublisherLane[ledgers.length];
        for (int i = 0; i < ledgers.length; i++) {
            Channel channel = connection.createChannel();
            if (channel == null) {
                throw new IOException("the connection has no channel left for channel " + (i + 1) + " of "
                        + ledgers.length + " (the connection's channel_max is " + connection.getChannelMax() + ")");
            }
            lanes[i] = new PublisherLane(this, channel, ledgers[i], publisher);
            channel.addShutdownListener(this::channelShutdown); // called at once if it is shut already
        }
        connection.addBlockedListener(new Blocking());
    }

    /**
     * Opens a connection with {@code factory} and a confirm-mode channel on it per ledger; each
     * channel's tags continue its ledger's (every tag of it settled). Every message is published
     * with {@code properties} (a mandatory one with its tag header added).
     *
     * @throws IOException if the connection or a channel cannot be opened
     * @throws TimeoutException if the connection times out
     */
    static PublisherLink open(ConnectionFactory factory, String name, AMQP.BasicProperties properties,
                              ConfirmLedger[] ledgers, AmqpPublisher publisher) throws IOException, TimeoutException {
        Connection c = Causes.connect(factory, name);
        try {
            return new PublisherLink(c, factory.getMetricsCollector(), properties, ledgers, publisher);
        } catch (IOException | RuntimeException e) {
            c.abort();
            throw e;
        }
    }

    /**
     * Publisher's thread, at the end of a batch: writes the batch's frames to the socket in one
     * write, or drops them if the link went down meanwhile (their messages are recorded, and the
     * loss settles them as lost). Then tells the {@link #metrics} of each of the batch's messages:
     * {@code basicPublish} if its frames reached the socket, {@code basicPublishFailure} if the
     * batch was dropped or its write failed, as amqp-client's {@code basicPublish} tells them.
     */
    void endBatch() {
        if (frames == null) {
            return; // basicPublish flushed (and told the metrics of) each message
        }
        Exception failure = null;
        if (down) {
            frames.discard();
            failure = new IOException("the connection is down: " + cause); // once per loss, not per message
        } else {
            try {
                frames.flush();
            } catch (IOException | RuntimeException e) {
                failedWriting(e);
                failure = e;
            }
        }
        if (metrics != null) {
            tellMetrics(failure);
        }
    }

    private void tellMetrics(Exception failure) {
        for (PublisherLane lane : lanes) {
            for (int n = lane.unreported; n > 0; n--) {
                if (failure == null) {
                    metrics.basicPublish(lane.channel);
                } else {
                    metrics.basicPublishFailure(lane.channel, failure);
                }
            }
            lane.unreported = 0;
        }
    }

    /** The link is down from now on: a failed publish, a channel's shutdown, an abort ({@code why} kept if first). */
    synchronized void failed(String why) {
        if (cause == null) {
            cause = why;
        }
        down = true;
    }

    /**
     * Publisher's thread: a publish's write to the connection failed with {@code e}. The link is
     * down; the cause is {@code "publishing failed: " + e} unless one came first, and a broker's
     * close that arrives later replaces it ({@link #channelShutdown}).
     */
    synchronized void failedWriting(Exception e) {
        if (cause == null) {
            cause = "publishing failed: " + e;
            causeIsWrite = true;
        }
        down = true;
    }

    /**
     * Whether the link's cause is a failed write and no shutdown signal has come yet: the
     * publisher's thread then waits for it (at most
     * {@link PublisherRecovery#SHUTDOWN_SIGNAL_WAIT_NANOS}, woken by {@link #channelShutdown}), so
     * that a broker's close that follows the reset names the loss.
     */
    synchronized boolean awaitsShutdownSignal() {
        return causeIsWrite && !signalled;
    }

    /**
     * Any thread: takes the link down with {@code why} and breaks its connection at once, for a
     * publisher's thread that a socket write holds (a broker that reads nothing more) or that
     * {@code basicPublish} holds through a {@code channel.flow}: the write fails, or the wait ends
     * with the connection's shutdown, and the thread goes on to settle and end. The socket is
     * closed directly ({@link FrameBatch#socketOf}), not through amqp-client's {@code abort()},
     * which would wait for the frame lock that the held write keeps; other transports (NIO, whose
     * writes amqp-client's own thread makes, each queued with a timeout) are aborted.
     */
    void abort(String why) {
        failed(why); // cause and down before the socket fails: the publisher's thread reads them after
        Socket socket = FrameBatch.socketOf(connection);
        if (socket == null) {
            connection.abort();
            return;
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closed already
        }
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

    /**
     * A channel's shutdown listener (amqp-client's connection thread, or the thread that closes):
     * the link is down. A close that the broker initiated ({@code connection.close} or
     * {@code channel.close} with its reply) replaces a failed write's cause: the write failed on
     * the socket that the broker closed after sending it.
     */
    private void channelShutdown(ShutdownSignalException signal) {
        String why = Causes.ofShutdown(signal);
        synchronized (this) {
            if (causeIsWrite && byBroker(signal)) {
                cause = why;
                causeIsWrite = false;
            }
            failed(why);
            signalled = true;
        }
        publisher.wake(); // after the volatile write of down: the woken thread sees it
    }

    /** Whether the broker closed the connection or channel, with a reply code and text. */
    static boolean byBroker(ShutdownSignalException signal) {
        Object reason = signal.getReason();
        return !signal.isInitiatedByApplication()
                && (reason instanceof AMQP.Connection.Close || reason instanceof AMQP.Channel.Close);
    }
}
