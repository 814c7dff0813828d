package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import java.io.IOException;
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

    int writerBufferBytes = 64 * 1024;
    int confirmWindow = 4096;
    int maxBatch = 256;
    OnFull onFull = OnFull.BLOCK;
    AMQP.BasicProperties properties = MessageProperties.MINIMAL_BASIC;
    String name = "ysuite-amqp";

    AmqpPublisherBuilder() {
    }

    /**
     * Sets each writer's buffer (its pipe's capacity); a record (3 bytes, exchange, routing key and
     * body) must fit in {@code OffHeapYPipe.maxMessageLength(bytes)}. Default 64 KiB.
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
     * Sets how many published messages may await the broker's confirm at once; beyond it the
     * publisher's thread stops draining the writers, whose buffers then fill. Default 4096.
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
     * Opens a connection of its own with {@code factory}, a channel in confirm mode on it, and
     * starts the publisher's thread.
     *
     * @param factory the connection's settings
     * @return the running publisher
     * @throws IOException if the connection or channel cannot be opened
     * @throws TimeoutException if the connection times out
     * @throws NullPointerException if {@code factory} is null
     */
    public AmqpPublisher open(ConnectionFactory factory) throws IOException, TimeoutException {
        Objects.requireNonNull(factory, "factory");
        return new AmqpPublisher(this, factory.newConnection(name));
    }
}
