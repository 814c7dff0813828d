// Over 500 lines: the public API with its javadoc, and the publisher's thread, whose state (the
// awake writers, the recording side of the ledger, the close sequence) is private to it.
package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.ysuite.OffHeapYPipe;
import org.ysuite.YMailbox;

/**
 * Publishes to an AMQP 0-9-1 broker from any number of application threads without locks: each
 * thread has its own {@link PublisherWriter} (an {@link OffHeapYPipe}), and one thread of the
 * publisher's own owns the connection's {@link Channel}, drains every writer and publishes.
 *
 * <h2>Batching and confirms</h2>
 * The channel is in confirm mode. The publisher's thread publishes what the writers have flushed,
 * one message per writer in turn, until nothing more is waiting or {@code maxBatch} messages went
 * out (consumer-driven batching); then it looks for writers that woke it and goes on, or sleeps on
 * a {@link YMailbox} that a writer's flush wakes only when the thread found that writer's pipe
 * empty. Each published message is recorded by delivery tag in a ring as large as the
 * {@code confirmWindow}; the broker's {@code basic.ack}/{@code basic.nack} (with {@code multiple})
 * settle ranges of it, and each message's {@link Fate} goes to its writer in the writer's order
 * (counters, {@link PublisherWriter#awaitSettled}, a {@link FateListener}). Nothing of this
 * allocates per message on the application threads.
 *
 * <h2>Back-pressure</h2>
 * The publisher's thread stops draining the writers while the broker blocks the connection
 * ({@code connection.blocked}) or {@code confirmWindow} messages await their confirm; the writers'
 * buffers then fill and {@link PublisherWriter#publish} blocks or throws
 * {@link BackPressureException}, as {@link OnFull} says.
 *
 * <h2>Failure and close</h2>
 * When the channel or connection goes down, every outstanding message is settled (as the broker
 * answered, else {@link Fate#LOST}), so is every message still in a writer's buffer, and the
 * publisher stops: {@code publish} throws {@link IllegalStateException} naming the cause. There
 * is no reconnection: open a new publisher. {@link #close(long, TimeUnit)} stops accepting,
 * publishes what was accepted, waits for the confirms until the timeout, settles the rest as
 * {@link Fate#LOST}, closes the connection and returns once the publisher's thread has ended.
 */
public final class AmqpPublisher implements AutoCloseable {

    /** The header of a mandatory message: its delivery tag, which ties a {@code basic.return} to it. */
    public static final String TAG_HEADER = "x-ysuite-tag";

    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int DOWN = 2;
    private static final int CLOSED = 3;
    private static final Object CONTROL = new Object();
    /** How long closing the connection waits for the broker's close-ok before it aborts. */
    private static final int CLOSE_CONNECTION_MS = 5000;

    final OnFull onFull;
    private final int writerBufferBytes;
    private final int maxBatch;
    private final int confirmWindow;
    private final AMQP.BasicProperties properties;
    private final Connection connection;
    private final Channel channel;
    private final ConfirmLedger ledger;
    private final YMailbox<Object> mailbox = new YMailbox<>();
    /** The wake-ups of threads other than the writers (connection, closer); guarded by itself. */
    private final YMailbox.Writer<Object> control;
    private final Thread thread;

    /** OPEN, CLOSING, DOWN or CLOSED; written under {@code this}, read by any thread. */
    private volatile int state = OPEN;
    private volatile String downCause;
    private volatile boolean blocked;
    private volatile String blockedReason;
    /** Set by the channel's shutdown listener, or by the publisher's thread on a failed publish. */
    private volatile boolean channelDown;
    /** The publisher's thread waits for settles (Dekker with the confirm listener, see sleep()). */
    private volatile boolean wantsSettle;
    private volatile long closeDeadline;
    /** Set by close(), before the state leaves OPEN. */
    private volatile boolean closeRequested;
    /** Copy-on-write under {@code this}. */
    private volatile PublisherWriter[] writers = new PublisherWriter[0];

    // Publisher's thread only.
    private PublisherWriter[] awake = new PublisherWriter[4];
    private int awakeCount;
    private final byte[] scratch;
    private final Consumer<Object> onWake = this::woken;
    private volatile long published;
    private volatile long batches;

    AmqpPublisher(AmqpPublisherBuilder b, Connection connection) throws IOException {
        this.onFull = b.onFull;
        this.writerBufferBytes = b.writerBufferBytes;
        this.maxBatch = b.maxBatch;
        this.confirmWindow = b.confirmWindow;
        this.properties = b.properties;
        this.connection = connection;
        this.ledger = new ConfirmLedger(b.confirmWindow);
        this.scratch = new byte[OffHeapYPipe.maxMessageLength(b.writerBufferBytes)];
        this.control = mailbox.newWriter();
        try {
            this.channel = connection.createChannel();
            channel.confirmSelect();
        } catch (IOException | RuntimeException e) {
            connection.abort();
            throw e;
        }
        channel.addConfirmListener(new Confirms());
        channel.addReturnListener((ReturnListener) this::returned);
        channel.addShutdownListener(this::channelShutdown);
        connection.addBlockedListener(new Blocking());
        this.thread = new Thread(this::run, b.name + "-publisher");
        thread.start(); // happens-before: the thread sees everything set up above
    }

    /**
     * Returns a builder of a publisher.
     *
     * @return a builder with the defaults
     */
    public static AmqpPublisherBuilder builder() {
        return new AmqpPublisherBuilder();
    }

    /**
     * Adds a writer, without a fate listener. Any thread; the writer is then one thread's at a time.
     *
     * @return the new writer
     * @throws IllegalStateException if the publisher is not open
     */
    public PublisherWriter newWriter() {
        return newWriter(null);
    }

    /**
     * Adds a writer whose messages' fates also go to {@code listener}.
     *
     * @param listener told each message's fate, or {@code null}
     * @return the new writer
     * @throws IllegalStateException if the publisher is not open
     */
    public synchronized PublisherWriter newWriter(FateListener listener) {
        checkAccepting();
        OffHeapYPipe pipe = new OffHeapYPipe(writerBufferBytes);
        // A new pipe's reader counts as awake: put it to sleep before any write, so that the
        // writer's first flush wakes the publisher's thread. That thread reads the pipe only after
        // the wake-up, which happens-after this (the writer got the pipe from this thread).
        pipe.checkRead();
        PublisherWriter w = new PublisherWriter(this, pipe, mailbox.newWriter(), listener);
        PublisherWriter[] grown = Arrays.copyOf(writers, writers.length + 1);
        grown[grown.length - 1] = w;
        writers = grown;
        return w;
    }

    /**
     * Returns how many messages the publisher's thread has published.
     *
     * @return the count
     */
    public long published() {
        return published;
    }

    /**
     * Returns how many batches the publisher's thread has published (each at least one message).
     *
     * @return the count
     */
    public long batches() {
        return batches;
    }

    /**
     * Returns how many published messages await the broker's answer.
     *
     * @return the count, at most the confirm window
     */
    public long outstanding() {
        return ledger.outstanding();
    }

    /**
     * Tells whether the broker blocks the connection now ({@code connection.blocked}).
     *
     * @return {@code true} while blocked
     */
    public boolean isBlocked() {
        return blocked;
    }

    /**
     * Tells whether the publisher accepts messages.
     *
     * @return {@code true} until it is closed or its channel is down
     */
    public boolean isOpen() {
        return state == OPEN;
    }

    /**
     * Closes the publisher, waiting up to 10 seconds for the outstanding confirms; see
     * {@link #close(long, TimeUnit)}.
     */
    @Override
    public void close() {
        close(10, TimeUnit.SECONDS);
    }

    /**
     * Stops accepting messages, publishes those accepted, waits at most {@code timeout} for their
     * confirms, settles the rest as {@link Fate#LOST}, closes the connection and waits for the
     * publisher's thread to end. Idempotent; any thread but the publisher's.
     *
     * @param timeout how long to wait for the broker, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     */
    public void close(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        synchronized (this) {
            if (state == OPEN) {
                closeRequested = true;
                closeDeadline = System.nanoTime() + unit.toNanos(timeout);
                state = CLOSING; // volatile: the deadline is visible with it
            }
        }
        wake();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- the writers' side ---------------------------------------------------------------

    void checkAccepting() {
        int s = state;
        if (s != OPEN) {
            throw new IllegalStateException(closeRequested ? "the publisher is closed"
                    : "the publisher's channel is down: " + downCause);
        }
    }

    String heldBackReason() {
        if (blocked) {
            return "the broker blocks the connection (" + blockedReason + ")";
        }
        long out = ledger.outstanding();
        if (out >= confirmWindow) {
            return out + " messages await their confirm (confirmWindow " + confirmWindow + ")";
        }
        return "the publisher's thread is behind";
    }

    // ---- other threads' wake-ups ----------------------------------------------------------

    private void wake() {
        synchronized (control) {
            try {
                control.send(CONTROL);
            } catch (IllegalStateException closedAlready) {
                // the publisher's thread has ended: nothing to wake
            }
        }
    }

    private final class Confirms implements ConfirmListener {
        @Override
        public void handleAck(long deliveryTag, boolean multiple) {
            settled(deliveryTag, multiple, true);
        }

        @Override
        public void handleNack(long deliveryTag, boolean multiple) {
            settled(deliveryTag, multiple, false);
        }

        private void settled(long tag, boolean multiple, boolean ack) {
            ledger.answer(tag, multiple, ack);
            if (wantsSettle) { // volatile read after the ledger's volatile write of settled
                wake();
            }
        }
    }

    /** A {@code basic.return}: its tag header ties it to the message, whose ack follows it. */
    private void returned(int replyCode, String replyText, String exchange, String routingKey,
                          AMQP.BasicProperties props, byte[] body) {
        Map<String, Object> headers = props.getHeaders();
        Object tag = headers == null ? null : headers.get(TAG_HEADER);
        if (tag instanceof Number) {
            ledger.returned(((Number) tag).longValue());
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
            wake();
        }
    }

    private void channelShutdown(ShutdownSignalException cause) {
        if (downCause == null) {
            downCause = String.valueOf(cause.getMessage());
        }
        channelDown = true;
        wake();
    }

    // ---- the publisher's thread -----------------------------------------------------------

    private void woken(Object o) {
        if (o instanceof PublisherWriter) {
            PublisherWriter w = (PublisherWriter) o;
            if (!w.onActiveList) {
                w.onActiveList = true;
                if (awakeCount == awake.length) {
                    awake = Arrays.copyOf(awake, awakeCount * 2);
                }
                awake[awakeCount++] = w;
            }
        }
    }

    private void run() {
        try {
            loop();
        } catch (Throwable t) {
            // A bug or an interrupt: settle everything as lost rather than leave writers waiting.
            if (downCause == null) {
                downCause = "the publisher's thread failed: " + t;
            }
            ledger.settleAll();
        } finally {
            finish();
        }
    }

    private void loop() throws InterruptedException {
        boolean settledDown = false;
        for (;;) {
            mailbox.check(onWake);
            if (state != OPEN) {
                // Closing or down: visit every writer, woken or not, so that the end depends on
                // no wake-up (a writer blocked for room is let go by the drain, then refused).
                for (PublisherWriter w : writers) {
                    woken(w);
                }
            }
            if (channelDown && !settledDown) {
                synchronized (this) {
                    if (state == OPEN) {
                        state = DOWN;
                    }
                }
                ledger.settleAll(); // under the ledger's lock: no confirm settles at the same time
                settledDown = true;
            }
            int n;
            if (settledDown) {
                n = drainLost();
            } else if (state == CLOSING && System.nanoTime() - closeDeadline > 0) {
                downCause = "closed before the broker confirmed every message";
                channelDown = true; // the rest is settled as lost; the connection is closed in finish()
                continue;
            } else {
                n = blocked ? 0 : publishBatch();
            }
            if (n > 0) {
                continue;
            }
            if (state != OPEN && quiet()) {
                if (settledDown) {
                    return;
                }
                if (ledger.outstanding() == 0) {
                    return;
                }
            }
            sleep(settledDown);
        }
    }

    /** No writer is inside publish, and every pipe that woke the thread has been read empty. */
    private boolean quiet() {
        for (PublisherWriter w : writers) {
            if (w.isActive()) {
                return false;
            }
        }
        mailbox.check(onWake); // after the writers' volatile exits: their last wake-ups are here
        return awakeCount == 0;
    }

    private void sleep(boolean settledDown) throws InterruptedException {
        boolean open = state == OPEN;
        // Writers with messages wait while publishBatch stopped at a full window: a confirm ends
        // that wait (a block or a failure ends theirs with their own listener's wake-up).
        boolean waitsForRoom = awakeCount > 0 && !settledDown && !blocked && !channelDown;
        if (waitsForRoom || !open) {
            wantsSettle = true;
            // Dekker with Confirms.settled: this wrote wantsSettle (volatile), now reads the
            // ledger; the confirm listener wrote the ledger (volatile settled), then reads
            // wantsSettle. So a confirm that made room after publishBatch looked is seen here,
            // or it wakes this thread.
            boolean changed = waitsForRoom ? ledger.room() > 0 : !settledDown && ledger.outstanding() == 0;
            if (changed) {
                wantsSettle = false;
                return;
            }
        }
        if (open) {
            mailbox.poll(onWake);
        } else {
            // Closing or down: a writer leaving publish without a record wakes no one; look again soon.
            mailbox.poll(onWake, 1, TimeUnit.MILLISECONDS);
        }
        wantsSettle = false;
    }

    private int publishBatch() {
        int n = 0;
        while (n < maxBatch) {
            int before = n;
            for (int i = 0; i < awakeCount && n < maxBatch; ) {
                if (ledger.room() == 0 || blocked || channelDown) {
                    return counted(n);
                }
                PublisherWriter w = awake[i];
                int length = w.pipe.read(scratch);
                if (length < 0) {
                    dropAwake(i); // empty: its reader is asleep, its next flush wakes this thread
                    continue;
                }
                publishOne(w, length);
                n++;
                i++;
            }
            if (n == before) {
                break;
            }
        }
        return counted(n);
    }

    private int counted(int n) {
        if (n > 0) {
            batches++;
            published += n;
        }
        return n;
    }

    private void dropAwake(int i) {
        awake[i].onActiveList = false;
        awake[i] = awake[--awakeCount];
        awake[awakeCount] = null;
    }

    private void publishOne(PublisherWriter w, int length) {
        boolean mandatory = scratch[0] != 0;
        int exchangeLength = scratch[1] & 0xFF;
        String exchange = w.exchange(scratch, 2, exchangeLength);
        int keyAt = 2 + exchangeLength;
        int keyLength = scratch[keyAt] & 0xFF;
        String routingKey = w.routingKey(scratch, keyAt + 1, keyLength);
        int bodyAt = keyAt + 1 + keyLength;
        byte[] body = Arrays.copyOfRange(scratch, bodyAt, length);
        long tag = ledger.record(w); // before the publish: a confirm may come at once
        AMQP.BasicProperties props = mandatory ? tagged(tag) : properties;
        try {
            channel.basicPublish(exchange, routingKey, mandatory, props, body);
        } catch (IOException | RuntimeException e) {
            if (downCause == null) {
                downCause = "publishing failed: " + e;
            }
            channelDown = true; // settled as lost from the next round on
        }
    }

    private AMQP.BasicProperties tagged(long tag) {
        Map<String, Object> headers = properties.getHeaders() == null
                ? new HashMap<>() : new HashMap<>(properties.getHeaders());
        headers.put(TAG_HEADER, tag);
        return properties.builder().headers(headers).build();
    }

    /** After the channel is down: every record still in a writer's buffer is settled as lost. */
    private int drainLost() {
        int n = 0;
        for (int i = 0; i < awakeCount; ) {
            PublisherWriter w = awake[i];
            if (w.pipe.read(scratch) < 0) {
                dropAwake(i);
                continue;
            }
            w.settle(Fate.LOST);
            n++;
        }
        return n;
    }

    private void finish() {
        synchronized (this) {
            state = CLOSED;
        }
        try {
            if (connection.isOpen()) {
                // bounded: a connection thread held by a listener must not hold the close forever
                connection.close(CLOSE_CONNECTION_MS);
            }
        } catch (IOException | RuntimeException e) {
            connection.abort();
        }
        synchronized (control) {
            mailbox.close();
        }
        for (PublisherWriter w : writers) {
            w.pipe.close(); // no writer is inside publish (quiet), and none can enter (CLOSED)
        }
    }
}
