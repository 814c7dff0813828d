package org.ysuite.amqp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.OffHeapYPipe;
import org.ysuite.YMailbox;

/**
 * One application thread's way into an {@link AmqpPublisher}: its own {@link OffHeapYPipe} (the
 * writer's buffer) read by the publisher's thread. Used by one thread at a time, without locks;
 * {@link #publish} copies the message into the pipe and allocates nothing.
 *
 * <p>Each accepted message gets a sequence number ({@code 1, 2, 3, ...} per writer) and, later,
 * exactly one {@link Fate}, in sequence order: {@link #settled()} is the sequence up to which the
 * fates are known, {@link #awaitSettled} waits for it, the counters say how many of each fate, and
 * the writer's {@link FateListener} (if any) is told each one.
 *
 * <p>Record in the pipe: flags (1 byte: mandatory), the exchange's length (1 byte) and UTF-8 bytes,
 * the routing key's length and bytes, then the body.
 */
public final class PublisherWriter {

    static final int HEADER = 3;

    private final AmqpPublisher publisher;
    final OffHeapYPipe pipe;
    private final YMailbox.Writer<Object> wake;
    private final FateListener listener;
    /** The publisher's channel (lane and ledger) this writer's messages all go through. */
    final int lane;

    private static final VarHandle ACCEPTED;
    private static final VarHandle ACTIVE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ACCEPTED = l.findVarHandle(PublisherWriter.class, "accepted", long.class);
            ACTIVE = l.findVarHandle(PublisherWriter.class, "active", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Writer thread.
    /**
     * Messages accepted; written by the writer thread only (a release store: no later load of
     * the writer's depends on it), read by any (volatile read: acquire).
     */
    private volatile long accepted;
    /**
     * True while the writer thread is inside {@link #publish}: the close and failure paths wait
     * for it to be false before they trust that no more records come. Dekker with the publisher's
     * state: the writer writes true (volatile: a StoreLoad before its read of the state), then
     * reads the state; the closer writes the state, then reads this; one of them sees the other.
     * The writer's false is a release store: it orders the publish's pipe writes and flush before
     * it, for the publisher that reads false (volatile read: acquire), and the writer loads
     * nothing after it.
     */
    private volatile boolean active;

    // Settling thread (one at a time: its lane's ledger's, see ConfirmLedger).
    private volatile long settled;
    private volatile long confirmed;
    private volatile long nacked;
    private volatile long returned;
    private volatile long lost;
    /** A thread parked in awaitSettled, or null; unparked after each settle. */
    private volatile Thread waiter;

    // Publisher's thread.
    boolean onActiveList;
    private byte[] lastExchangeBytes = new byte[0];
    private String lastExchange = "";
    private byte[] lastKeyBytes = new byte[0];
    private String lastKey = "";

    PublisherWriter(AmqpPublisher publisher, OffHeapYPipe pipe, YMailbox.Writer<Object> wake,
                    FateListener listener, int lane) {
        this.publisher = publisher;
        this.pipe = pipe;
        this.wake = wake;
        this.listener = listener;
        this.lane = lane;
    }

    /**
     * Publishes {@code body} (not mandatory).
     *
     * @param exchange the exchange's name ({@code ""}: the default exchange), at most 255 UTF-8 bytes
     * @param routingKey the routing key, at most 255 UTF-8 bytes
     * @param body the message's body, copied
     * @return the message's sequence number in this writer
     * @throws InterruptedException if interrupted while waiting for room ({@link OnFull#BLOCK}); not accepted
     * @throws BackPressureException with {@link OnFull#FAIL}, if the buffer is full; not accepted
     * @throws IllegalStateException if the publisher is closed, closing or its channel is down; not accepted
     * @throws IllegalArgumentException if an argument exceeds its limit (named in the message)
     * @throws NullPointerException if an argument is null
     */
    public long publish(String exchange, String routingKey, byte[] body) throws InterruptedException {
        Objects.requireNonNull(body, "body");
        return publish(exchange, routingKey, false, body, 0, body.length);
    }

    /**
     * Publishes {@code length} bytes of {@code body} from {@code offset}. A mandatory message that
     * no queue takes comes back as {@link Fate#RETURNED}.
     *
     * @param exchange the exchange's name ({@code ""}: the default exchange), at most 255 UTF-8 bytes
     * @param routingKey the routing key, at most 255 UTF-8 bytes
     * @param mandatory whether the broker must return the message if no queue takes it
     * @param body the message's body, copied
     * @param offset where the body starts in {@code body}
     * @param length the body's length; with the exchange and routing key it must fit
     *     {@link #maxRecordLength()}
     * @return the message's sequence number in this writer
     * @throws InterruptedException if interrupted while waiting for room ({@link OnFull#BLOCK}); not accepted
     * @throws BackPressureException with {@link OnFull#FAIL}, if the buffer is full; not accepted
     * @throws IllegalStateException if the publisher is closed, closing or its channel is down; not accepted
     * @throws IllegalArgumentException if an argument exceeds its limit (named in the message)
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} are not within {@code body}
     * @throws NullPointerException if an argument is null
     */
    public long publish(String exchange, String routingKey, boolean mandatory, byte[] body, int offset,
                        int length) throws InterruptedException {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        Objects.requireNonNull(body, "body");
        Objects.checkFromIndexSize(offset, length, body.length);
        int exchangeLength = Utf8.shortString("exchange", exchange);
        int keyLength = Utf8.shortString("routingKey", routingKey);
        int record = HEADER + exchangeLength + keyLength + length;
        if (record > pipe.maxMessageLength()) {
            throw new IllegalArgumentException("body is " + length + " bytes: at most "
                    + (pipe.maxMessageLength() - HEADER - exchangeLength - keyLength)
                    + " fit with this exchange and routing key (writerBufferBytes "
                    + pipe.capacity() + ", largest record " + pipe.maxMessageLength() + " bytes)");
        }
        active = true;
        try {
            publisher.checkAccepting();
            int at = pipe.claim(record);
            while (at < 0) {
                if (publisher.onFull == OnFull.FAIL) {
                    throw new BackPressureException(record, pipe.capacity(), publisher.heldBackReason(this));
                }
                pipe.awaitSpace(record);
                publisher.checkAccepting();
                at = pipe.claim(record);
            }
            ByteBuffer buf = pipe.claimBuffer();
            buf.put(at, (byte) (mandatory ? 1 : 0));
            buf.put(at + 1, (byte) exchangeLength);
            int next = Utf8.put(buf, at + 2, exchange);
            buf.put(next, (byte) keyLength);
            next = Utf8.put(buf, next + 1, routingKey);
            buf.put(next, body, offset, length);
            pipe.commit(false);
            long seq = accepted + 1;
            ACCEPTED.setRelease(this, seq);
            if (!pipe.flush()) {
                wake.send(this); // the publisher's thread was asleep on this pipe
            }
            return seq;
        } finally {
            ACTIVE.setRelease(this, false);
        }
    }


    /**
     * Returns the longest record this writer's buffer takes: 3 bytes, the exchange's and routing
     * key's UTF-8 bytes and the body.
     *
     * @return the largest record, in bytes
     */
    public int maxRecordLength() {
        return pipe.maxMessageLength();
    }

    /**
     * Returns how many messages this writer has had accepted (the last sequence number).
     *
     * @return the count
     */
    public long accepted() {
        return accepted;
    }

    /**
     * Returns the sequence up to which every message's fate is known.
     *
     * @return the last settled sequence number, {@code 0} if none
     */
    public long settled() {
        return settled;
    }

    /**
     * Returns how many of this writer's messages were confirmed.
     *
     * @return the count
     */
    public long confirmed() {
        return confirmed;
    }

    /**
     * Returns how many of this writer's messages were nacked.
     *
     * @return the count
     */
    public long nacked() {
        return nacked;
    }

    /**
     * Returns how many of this writer's messages were returned (mandatory, unroutable).
     *
     * @return the count
     */
    public long returned() {
        return returned;
    }

    /**
     * Returns how many of this writer's messages were {@link Fate#LOST lost}: the channel or
     * connection went down, or {@code close} timed out, before the broker answered, or they were
     * still in the writer's buffer then (nacked and returned messages are counted apart).
     *
     * @return the count
     */
    public long lost() {
        return lost;
    }

    /**
     * Waits until the fate of message {@code sequence} (and of every earlier one) is known.
     *
     * @param sequence a sequence number this writer returned
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code sequence} is not one this writer returned
     */
    public void awaitSettled(long sequence) throws InterruptedException {
        awaitSettled(sequence, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
    }

    /**
     * Waits at most {@code timeout} until the fate of message {@code sequence} is known.
     *
     * @param sequence a sequence number this writer returned
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return {@code true} if it is known; {@code false} if the time ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code sequence} is not one this writer returned, or
     *     {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     */
    public boolean awaitSettled(long sequence, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        long last = accepted;
        if (sequence < 1 || sequence > last) {
            throw new IllegalArgumentException("sequence must be in 1.." + last + " (accepted so far): " + sequence);
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        try {
            // Dekker with settle(): this writes waiter, then reads settled; the settler writes
            // settled, then reads waiter; one of them sees the other.
            waiter = Thread.currentThread();
            while (settled < sequence) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return true;
        } finally {
            waiter = null;
        }
    }

    // ---- the publisher's side -------------------------------------------------------------

    boolean isActive() {
        return active;
    }

    /** Settler: the next message's fate (see ConfirmLedger for which thread). */
    void settle(Fate fate) {
        long seq = settled + 1;
        switch (fate) {
            case CONFIRMED -> confirmed++;
            case NACKED -> nacked++;
            case RETURNED -> returned++;
            default -> lost++;
        }
        if (listener != null) {
            try {
                listener.onFate(seq, fate);
            } catch (RuntimeException e) {
                // The listener's own fault must not stop the settling of the other writers.
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
        settled = seq;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /** Publisher's thread: the exchange of the record in {@code scratch}, reusing the last String if equal. */
    String exchange(byte[] scratch, int from, int length) {
        if (!same(lastExchangeBytes, scratch, from, length)) {
            lastExchangeBytes = Arrays.copyOfRange(scratch, from, from + length);
            lastExchange = new String(lastExchangeBytes, StandardCharsets.UTF_8);
        }
        return lastExchange;
    }

    /** Publisher's thread: the routing key, as {@link #exchange}. */
    String routingKey(byte[] scratch, int from, int length) {
        if (!same(lastKeyBytes, scratch, from, length)) {
            lastKeyBytes = Arrays.copyOfRange(scratch, from, from + length);
            lastKey = new String(lastKeyBytes, StandardCharsets.UTF_8);
        }
        return lastKey;
    }

    private static boolean same(byte[] last, byte[] scratch, int from, int length) {
        return Arrays.equals(last, 0, last.length, scratch, from, from + length);
    }
}
