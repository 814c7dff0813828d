package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.ysuite.OffHeapYPipe;

/**
 * The settings of an {@link AmqpPublisher}; {@link #open(ConnectionFactory)} connects and starts
 * it. Each setter checks its argument and names it and its limit in the exception.
 */
public final class AmqpPublisherBuilder {

    /** The smallest {@link #confirmWindow}: {@value}. */
    public static final int MIN_CONFIRM_WINDOW = 1;
    /** The largest {@link #confirmWindow}: {@value}. */
    public static final int MAX_CONFIRM_WINDOW = 1 << 20;
    /** The largest {@link #maxBatch}: {@value}. */
    public static final int MAX_BATCH = 1 << 16;
    /** The most {@link #channels}: {@value}. */
    public static final int MAX_CHANNELS = 256;
    /** The longest {@link #reconnect} delay: one hour. */
    public static final Duration MAX_RECONNECT_DELAY = Duration.ofHours(1);
    /** The shortest {@code maxDelay} of {@link #reconnect}: one millisecond. */
    public static final Duration MIN_RECONNECT_MAX_DELAY = Duration.ofMillis(1);

    int writerBufferBytes = 64 * 1024;
    int confirmWindow = 1024;
    int maxBatch = 256;
    int channels = 1;
    OnFull onFull = OnFull.BLOCK;
    AMQP.BasicProperties properties = MessageProperties.MINIMAL_BASIC;
    String name = "ysuite-amqp";
    long reconnectDelayNanos = -1;
    long maxReconnectDelayNanos = -1;
    /** How long a failed write waits for the shutdown signal; a test that orders the events sets it longer. */
    long shutdownSignalWaitNanos = PublisherRecovery.SHUTDOWN_SIGNAL_WAIT_NANOS;

    AmqpPublisherBuilder() {
    }

    /**
     * Sets each writer's buffer (its pipe's capacity); a record (3 bytes, exchange, routing key and
     * body) must fit in {@code OffHeapYPipe.maxMessageLength(bytes)}, about half of it: with the
     * default 64 KiB, a body of up to 32,764 bytes less the exchange's and routing key's lengths
     * and 3. A larger body makes {@link PublisherWriter#publish} throw
     * {@link IllegalArgumentException} naming the limit. Default 64 KiB.
     *
     * @param bytes {@link OffHeapYPipe#MIN_CAPACITY_BYTES} to {@link OffHeapYPipe#MAX_CAPACITY_BYTES}
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is out of range
     */
    public AmqpPublisherBuilder writerBufferBytes(int bytes) {
        if (bytes < OffHeapYPipe.MIN_CAPACITY_BYTES || bytes > OffHeapYPipe.MAX_CAPACITY_BYTES) {
            throw new IllegalArgumentException("writerBufferBytes must be in " + OffHeapYPipe.MIN_CAPACITY_BYTES
                    + ".." + OffHeapYPipe.MAX_CAPACITY_BYTES + ": " + bytes);
        }
        this.writerBufferBytes = bytes;
        return this;
    }

    /**
     * Sets how many published messages may await the broker's confirm at once on each channel
     * ({@link #channels}); beyond it the publisher's thread stops draining the writers of that
     * channel, whose buffers then fill, until a sixteenth of the window (at most {@link #maxBatch})
     * is free again: one wake-up of that thread and one socket write per many messages, rather
     * than per confirm the broker sends. Default 1024: with four writers of small messages on one
     * channel, both Broker-J and RabbitMQ spent less CPU per message with 1024 than with 4096 (a
     * broker's cost per message grows with the confirms it owes); see docs/amqp-results.md.
     *
     * @param messages a power of two, {@link #MIN_CONFIRM_WINDOW} to {@link #MAX_CONFIRM_WINDOW}
     * @return this builder
     * @throws IllegalArgumentException if {@code messages} is out of range or not a power of two
     */
    public AmqpPublisherBuilder confirmWindow(int messages) {
        if (messages < MIN_CONFIRM_WINDOW || messages > MAX_CONFIRM_WINDOW || Integer.bitCount(messages) != 1) {
            throw new IllegalArgumentException("confirmWindow must be a power of two in " + MIN_CONFIRM_WINDOW
                    + ".." + MAX_CONFIRM_WINDOW + ": " + messages);
        }
        this.confirmWindow = messages;
        return this;
    }

    /**
     * Sets the most messages the publisher's thread publishes in one batch before it looks for new
     * writers and answers again; a batch also ends when nothing more is waiting. Default 256.
     *
     * @param messages {@code 1} to {@link #MAX_BATCH}
     * @return this builder
     * @throws IllegalArgumentException if {@code messages} is out of range
     */
    public AmqpPublisherBuilder maxBatch(int messages) {
        if (messages < 1 || messages > MAX_BATCH) {
            throw new IllegalArgumentException("maxBatch must be in 1.." + MAX_BATCH + ": " + messages);
        }
        this.maxBatch = messages;
        return this;
    }

    /**
     * Sets over how many confirm-mode channels of its one connection the publisher spreads its
     * messages. The broker serves each channel serially (RabbitMQ: an Erlang process per channel),
     * so several channels let it work on several writers' messages at once. Each writer is pinned
     * to one channel (the {@code i}-th writer made to channel {@code i mod channels}), so its
     * messages reach the broker, and its fates come back, in its own order; each channel has its
     * own delivery tags and its own confirm window ({@link #confirmWindow} is per channel). One
     * thread still publishes on every channel, and a batch is still one socket write. Fewer writers
     * than channels leave channels idle. Default 1.
     *
     * @param n {@code 1} to {@link #MAX_CHANNELS}, and no more than the broker's {@code channel_max}
     *     (else {@link #open} fails)
     * @return this builder
     * @throws IllegalArgumentException if {@code n} is out of range
     */
    public AmqpPublisherBuilder channels(int n) {
        if (n < 1 || n > MAX_CHANNELS) {
            throw new IllegalArgumentException("channels must be in 1.." + MAX_CHANNELS + ": " + n);
        }
        this.channels = n;
        return this;
    }

    /**
     * Sets what a writer does when its buffer is full. Default {@link OnFull#BLOCK}.
     *
     * @param policy block or fail
     * @return this builder
     * @throws NullPointerException if {@code policy} is null
     */
    public AmqpPublisherBuilder onFull(OnFull policy) {
        this.onFull = Objects.requireNonNull(policy, "onFull");
        return this;
    }

    /**
     * Sets the properties every message is published with (a mandatory message also carries the
     * header {@value AmqpPublisher#TAG_HEADER}). Default: none.
     *
     * @param properties the properties
     * @return this builder
     * @throws NullPointerException if {@code properties} is null
     */
    public AmqpPublisherBuilder properties(AMQP.BasicProperties properties) {
        this.properties = Objects.requireNonNull(properties, "properties");
        return this;
    }

    /**
     * Names the publisher: its thread and its connection carry the name. Default {@code ysuite-amqp}.
     *
     * @param name the name
     * @return this builder
     * @throws NullPointerException if {@code name} is null
     */
    public AmqpPublisherBuilder name(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * Makes the publisher reconnect after a lost connection or channel, instead of stopping. The
     * messages published and not yet answered are settled at once (as the broker answered, else
     * {@link Fate#LOST}); those still in the writers' buffers wait there, and are published on the
     * new connection, opened with the same factory: the first try {@code initialDelay} after the
     * loss, then after twice the last wait (at least 1 ms), up to {@code maxDelay}, until one
     * succeeds or the publisher is closed. While disconnected the writers meet back-pressure as
     * for a full confirm window ({@link OnFull}); closing then settles what the buffers hold as
     * {@link Fate#LOST}.
     *
     * <p>Off by default: a publisher then stops at the first loss, and {@code publish} throws at
     * once instead of the writers waiting (or failing with {@link BackPressureException}) for a
     * broker that may not come back; an application that can wait asks for it.
     *
     * @param initialDelay the wait before the first try, {@code 0} to {@code maxDelay}
     * @param maxDelay the longest wait between two tries, {@link #MIN_RECONNECT_MAX_DELAY} to
     *     {@link #MAX_RECONNECT_DELAY}
     * @return this builder
     * @throws IllegalArgumentException if a delay is out of range
     * @throws NullPointerException if a delay is null
     */
    public AmqpPublisherBuilder reconnect(Duration initialDelay, Duration maxDelay) {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (maxDelay.compareTo(MIN_RECONNECT_MAX_DELAY) < 0 || maxDelay.compareTo(MAX_RECONNECT_DELAY) > 0) {
            throw new IllegalArgumentException("maxDelay must be in " + MIN_RECONNECT_MAX_DELAY + ".."
                    + MAX_RECONNECT_DELAY + ": " + maxDelay);
        }
        if (initialDelay.isNegative() || initialDelay.compareTo(maxDelay) > 0) {
            throw new IllegalArgumentException("initialDelay must be in PT0S..maxDelay (" + maxDelay + "): "
                    + initialDelay);
        }
        this.reconnectDelayNanos = initialDelay.toNanos();
        this.maxReconnectDelayNanos = maxDelay.toNanos();
        return this;
    }

    /**
     * Opens a connection of its own with {@code factory}, {@link #channels} channels in confirm mode on it, and
     * starts the publisher's thread. The publisher connects with a copy of {@code factory} whose
     * automatic recovery is off: it reconnects by itself, if asked ({@link #reconnect}).
     *
     * @param factory the connection's settings
     * @return the running publisher
     * @throws IOException if the connection or channel cannot be opened (a virtual host that does not
     *     exist or is not allowed: {@code "cannot open virtual host ..."} with the broker's reply)
     * @throws TimeoutException if the connection times out
     * @throws NullPointerException if {@code factory} is null
     */
    public AmqpPublisher open(ConnectionFactory factory) throws IOException, TimeoutException {
        Objects.requireNonNull(factory, "factory");
        ConnectionFactory own = factory.clone();
        own.setAutomaticRecoveryEnabled(false); // a recovered channel restarts its delivery tags
        own.setTopologyRecoveryEnabled(false);
        return new AmqpPublisher(this, own);
    }
}
