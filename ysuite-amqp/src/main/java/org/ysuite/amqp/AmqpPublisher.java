// Over 500 lines: the public API with its javadoc, and the publisher's thread, whose state (the
// awake writers, the recording side of the ledger, the close sequence) is private to it. Opening
// the links, and what follows a loss (the wait for its cause, reconnecting), are PublisherRecovery's.
package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.ysuite.OffHeapYPipe;
import org.ysuite.YMailbox;

/**
 * Publishes to an AMQP 0-9-1 broker from any number of application threads without locks: each
 * thread has its own {@link PublisherWriter} (an {@link OffHeapYPipe}), and one thread of the
 * publisher's own owns the connection's {@link Channel}, drains every writer and publishes.
 * With {@link AmqpPublisherBuilder#channels channels(n)} that thread publishes on {@code n}
 * confirm-mode channels of the one connection, each writer on one of them (round robin by
 * creation), each channel with its own delivery tags, ledger and confirm window.
 *
 * <h2>Batching and confirms</h2>
 * The channel is in confirm mode. The publisher's thread publishes what the writers have flushed,
 * one message per writer in turn, until nothing more is waiting or {@code maxBatch} messages went
 * out (consumer-driven batching); then it looks for writers that woke it and goes on, or sleeps on
 * a {@link YMailbox} that a writer's flush wakes only when the thread found that writer's pipe
 * empty. Each published message is recorded by delivery tag in its channel's ring, as large as the
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
 * <h2>Failure, reconnection and close</h2>
 * When the channel or connection goes down, every outstanding message (published, not answered) is
 * settled at once, as the broker answered, else {@link Fate#LOST}: each writer learns, in its
 * order, exactly which of its messages were confirmed. Then, by default, so is every message still
 * in a writer's buffer, and the publisher stops: {@code publish} throws
 * {@link IllegalStateException} naming the cause. With
 * {@link AmqpPublisherBuilder#reconnect reconnection}, the publisher's thread instead opens a new
 * connection through the same factory, with back-off, and publishes what the writers' buffers
 * still hold once it is up; meanwhile the writers meet back-pressure as for a full window
 * ({@link #isConnected()}, {@link #reconnections()}). amqp-client's own automatic recovery is
 * always off for the publisher's connection (a recovered channel restarts its delivery tags).
 * {@link #close(long, TimeUnit)} stops accepting,
 * publishes what was accepted, waits for the confirms until the timeout, settles the rest as
 * {@link Fate#LOST}, closes the connection and returns once the publisher's thread has ended; while
 * disconnected it gives up reconnecting and settles what the buffers hold as {@link Fate#LOST}.
 */
public final class AmqpPublisher implements AutoCloseable {

    /** The header of a mandatory message: its delivery tag, which ties a {@code basic.return} to it. */
    public static final String TAG_HEADER = "x-ysuite-tag";

    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int DOWN = 2;
    private static final int CLOSED = 3;
    private static final Object CONTROL = new Object();
    /** How long closing a connection waits for the broker's close-ok before it aborts (publisher and consumer). */
    static final int CLOSE_CONNECTION_MS = 5000;
    /** The loss cause of a close whose timeout ended before every confirm came. */
    private static final String CLOSED_EARLY = "closed before the broker confirmed every message";
    /** The loss cause of a close that had to break the connection under the publisher's thread. */
    private static final String HELD = CLOSED_EARLY
            + "; the connection took no more frames, and close broke it";

    final OnFull onFull;
    private final int writerBufferBytes;
    private final int maxBatch;
    private final int confirmWindow;
    private final AMQP.BasicProperties properties;
    /** One per channel, for the publisher's life: lane i of every link records in ledger i. */
    private final ConfirmLedger[] ledgers;
    private final YMailbox<Object> mailbox = new YMailbox<>();
    /** The wake-ups of threads other than the writers (connection, closer); guarded by itself. */
    private final YMailbox.Writer<Object> control;
    /** Opens the links, and after a loss waits for the cause and reconnects (this thread's). */
    private final PublisherRecovery recovery;
    private final Thread thread;

    /** OPEN, CLOSING, DOWN or CLOSED; written under {@code this}, read by any thread. */
    private volatile int state = OPEN;
    private volatile String downCause;
    /**
     * The current connection and channel; written by the publisher's thread only (the volatile
     * write publishes the new link to the writers' {@link #heldBackReason} and {@link #isBlocked}).
     */
    private volatile PublisherLink link;
    /** False from a loss until the next link is up (or for good); written by the publisher's thread. */
    private volatile boolean connected = true;
    private volatile long reconnections;
    /** The publisher's thread waiting for confirms, and the confirms that wake it. */
    private final ConfirmWake confirmWake;
    private volatile long closeDeadline;
    /** Set by close(), before the state leaves OPEN. */
    private volatile boolean closeRequested;
    /** Copy-on-write under {@code this}. */
    private volatile PublisherWriter[] writers = new PublisherWriter[0];

    // Publisher's thread only.
    private final AwakeWriters awake;
    private final Consumer<Object> onWake = this::woken;
    private volatile long published;
    private volatile long batches;

    AmqpPublisher(AmqpPublisherBuilder b, ConnectionFactory factory) throws IOException, TimeoutException {
        this.onFull = b.onFull;
        this.writerBufferBytes = b.writerBufferBytes;
        this.maxBatch = b.maxBatch;
        this.confirmWindow = b.confirmWindow;
        this.confirmWake = new ConfirmWake(b.confirmWindow, b.maxBatch);
        this.properties = b.properties;
        this.ledgers = new ConfirmLedger[b.channels];
        Arrays.setAll(ledgers, i -> new ConfirmLedger(b.confirmWindow));
        this.awake = new AwakeWriters(OffHeapYPipe.maxMessageLength(b.writerBufferBytes));
        this.control = mailbox.newWriter();
        this.recovery = new PublisherRecovery(b, factory, ledgers, this, mailbox, onWake);
        this.link = recovery.open();
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
        // Pinned to one channel for good (round robin): its fates settle in its ledger's tag order.
        PublisherWriter w = new PublisherWriter(this, pipe, mailbox.newWriter(), listener,
                writers.length % ledgers.length);
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
     * @return the count, at most the confirm window times the channels
     */
    public long outstanding() {
        long n = 0;
        for (ConfirmLedger l : ledgers) {
            n += l.outstanding();
        }
        return n;
    }

    /**
     * Tells whether the broker blocks the connection now ({@code connection.blocked}).
     *
     * @return {@code true} while blocked
     */
    public boolean isBlocked() {
        return link.blocked;
    }

    /**
     * Tells whether the publisher accepts messages. With reconnection it stays open while
     * disconnected (the messages wait in the writers' buffers).
     *
     * @return {@code true} until it is closed or (without reconnection) its channel is down
     */
    public boolean isOpen() {
        return state == OPEN;
    }

    /**
     * Tells whether the publisher's thread has a connection it publishes on: {@code false} from the
     * moment it took a loss in hand until a new connection is up, and for good once it stopped.
     *
     * @return {@code true} while connected
     */
    public boolean isConnected() {
        return connected;
    }

    /**
     * Tells why the publisher is not connected: the loss, or, while tries to reconnect fail, the
     * last try's failure ({@code "reconnecting failed: ..."}).
     *
     * @return {@code null} while connected; once stopped, why (a loss, or {@code "closed"} once
     *     closed with every message answered)
     */
    public String lossCause() {
        PublisherLink l = link; // before connected: reconnect() writes a new link before connected
        if (connected) {
            return null;
        }
        String down = downCause; // why it stopped, written before the state that ends it
        if (down != null) {
            return down;
        }
        if (state == CLOSED) {
            return "closed"; // finish() writes the state before it clears connected
        }
        return l.cause; // reconnecting: the loss or the last try's failure; null: a new link is up
    }

    /**
     * Returns how many times the publisher reconnected after a loss (each a new connection and
     * channel); always {@code 0} without {@link AmqpPublisherBuilder#reconnect reconnection}.
     *
     * @return the count
     */
    public long reconnections() {
        return reconnections;
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
     * <p>Returns within about {@code timeout} and 5 seconds (the wait for the broker's
     * {@code close-ok}) whatever the broker does: where a socket write that the broker no longer
     * reads, or a {@code channel.flow}, holds the publisher's thread past that, {@code close}
     * breaks the connection, which ends the write or the wait, and the unconfirmed messages are
     * {@link Fate#LOST} with a {@link #lossCause()} that says so. Only a reconnection's try under
     * way runs to its end first (at most the factory's connection and handshake timeouts).
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
        // The publisher's thread ends by itself within the timeout and CLOSE_CONNECTION_MS, unless a
        // socket write that the broker does not read holds it, or basicPublish waits out a
        // channel.flow: then this thread breaks the connection (again after each CLOSE_CONNECTION_MS,
        // for a link a reconnection opened meanwhile), which fails the write or ends the wait.
        long waitNanos = Math.min(unit.toNanos(timeout), Long.MAX_VALUE / 4);
        long abortAt = System.nanoTime() + waitNanos + TimeUnit.MILLISECONDS.toNanos(CLOSE_CONNECTION_MS);
        boolean interrupted = false;
        while (thread.isAlive()) {
            long left = abortAt - System.nanoTime();
            if (left <= 0) {
                link.abort(HELD);
                left = TimeUnit.MILLISECONDS.toNanos(CLOSE_CONNECTION_MS);
                abortAt = System.nanoTime() + left;
            }
            try {
                TimeUnit.NANOSECONDS.timedJoin(thread, left);
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

    String heldBackReason(PublisherWriter w) {
        PublisherLink l = link;
        if (!connected) {
            return "the connection is down (" + l.cause + "), reconnecting";
        }
        if (l.blocked) {
            return "the broker blocks the connection (" + l.blockedReason + ")";
        }
        long out = ledgers[w.lane].outstanding();
        if (out >= confirmWindow) {
            return out + " messages await their confirm" + (ledgers.length > 1 ? " on the writer's channel" : "")
                    + " (confirmWindow " + confirmWindow + ")";
        }
        return "the publisher's thread is behind";
    }

    // ---- other threads' wake-ups ----------------------------------------------------------

    void wake() {
        synchronized (control) {
            try {
                control.send(CONTROL);
            } catch (IllegalStateException closedAlready) {
                // the publisher's thread has ended: nothing to wake
            }
        }
    }

    /** The connection's thread: the broker's basic.ack or basic.nack of {@code ledger}'s {@code tag}. */
    void answered(ConfirmLedger ledger, long tag, boolean multiple, boolean ack) {
        ledger.answer(tag, multiple, ack); // then the Dekker's read (ConfirmWake)
        if (confirmWake.wakes(ledger, state != OPEN)) {
            wake();
        }
    }

    // ---- the publisher's thread -----------------------------------------------------------

    private void woken(Object o) {
        if (o instanceof PublisherWriter) {
            awake.add((PublisherWriter) o);
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
            settleAll();
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
            if (link.down && !settledDown) {
                recovery.awaitShutdownSignal(link);
                connected = false;
                // Under each ledger's lock: no confirm settles at the same time, and a late one
                // finds its tag settled. Every published message has its fate from here on.
                settleAll();
                PublisherLink next = recovery.reconnects() && state == OPEN ? recovery.reconnect(link) : null;
                if (next != null) {
                    link = next; // the volatile write publishes the new link's fields to the writers
                    reconnections++; // this thread's only: no lost update
                    connected = true; // after the link: lossCause() reads the link first
                    continue;
                }
                if (downCause == null) {
                    downCause = link.cause; // before the volatile state: a refused writer reads it
                }
                synchronized (this) {
                    if (state == OPEN) {
                        state = DOWN;
                    }
                }
                settledDown = true;
            }
            int n;
            if (settledDown) {
                n = awake.drainLost();
            } else if (state == CLOSING && System.nanoTime() - closeDeadline > 0) {
                downCause = CLOSED_EARLY;
                link.failed(downCause); // the rest is settled as lost; the connection is closed in finish()
                continue;
            } else {
                n = link.blocked ? 0 : publishBatch();
            }
            if (n > 0) {
                continue;
            }
            if (state != OPEN && quiet()) {
                if (settledDown) {
                    return;
                }
                if (outstanding() == 0) {
                    return;
                }
            }
            sleep(settledDown);
        }
    }

    /** The current link (tests: its state after a failure). */
    PublisherLink link() {
        return link;
    }

    /** No writer is inside publish, and every pipe that woke the thread has been read empty. */
    private boolean quiet() {
        for (PublisherWriter w : writers) {
            if (w.isActive()) {
                return false;
            }
        }
        mailbox.check(onWake); // after the writers' volatile exits: their last wake-ups are here
        return awake.count == 0;
    }

    private void sleep(boolean settledDown) throws InterruptedException {
        boolean open = state == OPEN;
        // Writers with messages wait while publishBatch stopped at a full window: a confirm ends
        // that wait (a block or a failure ends theirs with their own listener's wake-up).
        PublisherLink l = link;
        boolean waitsForRoom = awake.count > 0 && !settledDown && !l.blocked && !l.down;
        if (waitsForRoom || !open) {
            confirmWake.want();
            // Dekker with answered() (ConfirmWake): a confirm that made resumeRoom of room on any
            // channel after publishBatch looked is seen here, or it wakes this thread.
            boolean changed = waitsForRoom ? awake.roomForAny(ledgers, confirmWake.resumeRoom)
                    : !settledDown && outstanding() == 0;
            if (changed) {
                confirmWake.done();
                return;
            }
        }
        if (open) {
            mailbox.poll(onWake);
        } else {
            // Closing or down: a writer leaving publish without a record wakes no one; look again soon.
            mailbox.poll(onWake, 1, TimeUnit.MILLISECONDS);
        }
        confirmWake.done();
    }

    /**
     * Publishes a batch, its frames written to the socket at its end in one write whichever
     * channels its messages went to ({@link FrameBatch}). One thread drives every channel:
     * amqp-client serialises the frames of all a connection's channels onto its one socket anyway,
     * so more publishing threads would contend for that socket's lock and split the batch into
     * more writes; the broker's side, which serves each channel serially, is where several
     * channels run in parallel.
     */
    private int publishBatch() {
        PublisherLink l = link; // this thread's own write: no other thread changes it
        try {
            return counted(awake.publish(l, maxBatch, properties));
        } finally {
            l.endBatch();
        }
    }

    /** Settles every outstanding tag of every channel, as the broker answered or lost (each under its lock). */
    private void settleAll() {
        for (ConfirmLedger l : ledgers) {
            l.settleAll();
        }
    }

    private int counted(int n) {
        if (n > 0) {
            batches++;
            published += n;
        }
        return n;
    }

    private void finish() {
        synchronized (this) {
            state = CLOSED;
        }
        connected = false;
        // bounded: a connection thread held by a listener must not hold the close forever
        link.close(CLOSE_CONNECTION_MS);
        synchronized (control) {
            mailbox.close();
        }
        for (PublisherWriter w : writers) {
            w.pipe.close(); // no writer is inside publish (quiet), and none can enter (CLOSED)
        }
    }
}
