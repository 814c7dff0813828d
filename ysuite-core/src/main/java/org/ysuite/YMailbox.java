package org.ysuite;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * Many writer threads to one reader thread: one {@link YPipe} per writer, every pipe wired to one
 * {@link Signaler}; the seed's ypollset arrangement.
 *
 * <p>Each writer thread takes its own {@link Writer} ({@link #newWriter()}), with its own pipe and
 * signal id ({@code writer index % signaler.capacity()}, so writers beyond the signaler's capacity
 * share ids). A writer's {@link Writer#flush()} fires its id only when the reader is asleep on its
 * pipe. The reader takes the fired ids and drains every signalled pipe, and every pipe still awake
 * from the last round, in one batch; pipes that are asleep and not signalled are not touched.
 *
 * <p>The writers' side uses only {@link Signaler#signal(int)}, so any signaler works. The reader
 * needs a {@link PollableSignaler} to block in {@link #poll(Consumer)}; over any other signaler
 * the reader waits by the signaler's own means (a native poller on a file descriptor, say) and then
 * calls {@link #check(Consumer)}, which visits every pipe since it cannot tell which fired.
 *
 * <p>Each writer is used by one thread at a time; the reader methods ({@code check}, {@code poll})
 * by one thread at a time. {@link #newWriter()} may be called from any thread at any time.
 *
 * <pre>{@code
 * YMailbox<Event> mailbox = new YMailbox<>();            // over a new YPollset
 * // each writer thread:
 * YMailbox.Writer<Event> out = mailbox.newWriter();
 * out.send(event);                                       // write + flush, signal only if needed
 * // the reader thread:
 * for (;;) mailbox.poll(this::handle);                   // blocks, then drains in one batch
 * }</pre>
 *
 * @param <T> the type of the messages; {@code null} is not a message
 */
public final class YMailbox<T> {

    private final Signaler signaler;
    private final PollableSignaler pollable; // the same object, or null if it cannot be polled

    /** Copy-on-write list of writers; the volatile read in the reader acquires each new one. */
    private volatile Writer<?>[] writers = new Writer<?>[0];

    // Reader-owned state.
    private final boolean[] fired;
    private boolean anyFired;
    private boolean[] awake = new boolean[0]; // awake[i]: writer i's pipe was not asleep last round
    private final IntConsumer markFired = this::markFired;
    private boolean draining; // true while a handler runs: check/poll from inside it are rejected

    /** Creates a mailbox over a new {@link YPollset} with the default spin. */
    public YMailbox() {
        this(new YPollset());
    }

    /**
     * Creates a mailbox over {@code signaler}. The mailbox fires ids {@code 0} to
     * {@code signaler.capacity() - 1}; it must be the signaler's only user.
     *
     * @param signaler the signaler the writers fire; a {@link PollableSignaler} lets the reader
     *     block in {@link #poll(Consumer)}
     * @throws NullPointerException if {@code signaler} is null
     * @throws IllegalArgumentException if {@code signaler.capacity()} is less than 1
     */
    public YMailbox(Signaler signaler) {
        this.signaler = Objects.requireNonNull(signaler, "signaler");
        int capacity = signaler.capacity();
        if (capacity < 1) {
            throw new IllegalArgumentException("signaler.capacity() must be >= 1: " + capacity);
        }
        this.pollable = signaler instanceof PollableSignaler ? (PollableSignaler) signaler : null;
        this.fired = new boolean[capacity];
    }

    /**
     * Adds a writer: a pipe of its own and a signal id. Any thread may call this at any time; the
     * returned writer must then be used by one thread at a time.
     *
     * @return the new writer
     */
    public Writer<T> newWriter() {
        synchronized (this) {
            Writer<?>[] old = writers;
            // The pipe starts with its reader asleep: the reader has never visited it, so the
            // first flush must signal.
            Writer<T> writer = new Writer<>(new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, true),
                    signaler, old.length % fired.length);
            Writer<?>[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = writer;
            writers = grown; // volatile store publishes the writer and its pipe to the reader
            return writer;
        }
    }

    /**
     * Returns how many writers have been added.
     *
     * @return the number of writers
     */
    public int writerCount() {
        return writers.length;
    }

    /**
     * Reader: drains, without blocking, every pipe that was signalled or still awake.
     *
     * @param handler called once per message, in order per writer, on the calling thread
     * @return how many messages were handed over; {@code 0} if none was waiting
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalStateException if called from inside a handler of this mailbox
     */
    public int check(Consumer<? super T> handler) {
        Objects.requireNonNull(handler, "handler");
        if (draining) {
            throw new IllegalStateException("YMailbox.check/poll called from inside its own handler:"
                    + " the reader is in use by that drain (re-entrant reads are not supported)");
        }
        if (pollable == null) {
            anyFired = true; // cannot tell which id fired: visit every pipe
            Arrays.fill(fired, true);
            return drainRound(handler);
        }
        int n;
        int ids;
        do {
            // An id can fire for a message a previous round already drained (ids shared by
            // several writers, or a writer whose signal came after the reader had visited its
            // pipe for another id). Return 0 only after a check that found no id at all: that
            // is the check that leaves the signaler armed (an fd-based signaler's descriptor
            // armed for a native poller), so sleeping after it cannot miss the next flush.
            ids = pollable.check(markFired);
            n = drainRound(handler);
        } while (n == 0 && ids > 0);
        return n;
    }

    /**
     * Reader: waits until some writer has flushed, then drains every signalled pipe in one batch.
     *
     * @param handler called once per message, in order per writer, on the calling thread
     * @return how many messages were handed over; at least {@code 1}
     * @throws InterruptedException if the reader is interrupted while waiting
     * @throws IllegalStateException if the signaler is not a {@link PollableSignaler}, or if
     *     called from inside a handler of this mailbox
     * @throws NullPointerException if {@code handler} is null
     */
    public int poll(Consumer<? super T> handler) throws InterruptedException {
        PollableSignaler waiter = requirePollable();
        for (;;) {
            int n = check(handler);
            if (n > 0) {
                return n;
            }
            // Every pipe is asleep now: each one's next flush fires its id, which poll takes.
            waiter.poll(markFired);
            n = drainRound(handler);
            if (n > 0) {
                return n;
            }
        }
    }

    /**
     * Reader: waits at most {@code timeout} until some writer has flushed, then drains every
     * signalled pipe in one batch.
     *
     * @param handler called once per message, in order per writer, on the calling thread
     * @param timeout how long to wait, {@code >= 0}; zero means do not wait
     * @param unit the unit of {@code timeout}
     * @return how many messages were handed over; {@code 0} if the time ran out
     * @throws InterruptedException if the reader is interrupted while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException if the signaler is not a {@link PollableSignaler}, or if
     *     called from inside a handler of this mailbox
     * @throws NullPointerException if {@code handler} or {@code unit} is null
     */
    public int poll(Consumer<? super T> handler, long timeout, TimeUnit unit)
            throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        PollableSignaler waiter = requirePollable();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (;;) {
            int n = check(handler);
            if (n > 0) {
                return n;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return 0;
            }
            if (waiter.poll(markFired, left, TimeUnit.NANOSECONDS) == 0) {
                return 0;
            }
            n = drainRound(handler);
            if (n > 0) {
                return n;
            }
        }
    }

    private PollableSignaler requirePollable() {
        if (pollable == null) {
            throw new IllegalStateException("poll needs a PollableSignaler, not a "
                    + signaler.getClass().getName()
                    + ": wait on it by its own means, then call check");
        }
        return pollable;
    }

    private void markFired(int id) {
        fired[id] = true;
        anyFired = true;
    }

    /** One round: one batch from each pipe that was signalled or is still awake. */
    @SuppressWarnings("unchecked")
    private int drainRound(Consumer<? super T> handler) {
        Writer<?>[] ws = writers;
        if (awake.length < ws.length) {
            awake = Arrays.copyOf(awake, ws.length); // new pipes start asleep: false
        }
        int n = 0;
        draining = true;
        try {
            for (int i = 0; i < ws.length; i++) {
                Writer<T> w = (Writer<T>) ws[i];
                if (awake[i] || (anyFired && fired[w.id])) {
                    int k = w.pipe.readBatch(handler);
                    // k == 0 left the pipe asleep, so its next flush fires w.id; k > 0 left it
                    // awake, so its writer will not signal and the next round must visit it anyway.
                    awake[i] = k > 0;
                    n += k;
                }
            }
        } finally {
            draining = false;
        }
        if (anyFired) {
            Arrays.fill(fired, false);
            anyFired = false;
        }
        return n;
    }

    /**
     * One writer of a {@link YMailbox}: its own pipe and signal id. Used by one thread at a time.
     *
     * @param <T> the type of the messages
     */
    public static final class Writer<T> {
        final YPipe<T> pipe;
        private final Signaler signaler;
        final int id;

        Writer(YPipe<T> pipe, Signaler signaler, int id) {
            this.pipe = pipe;
            this.signaler = signaler;
            this.id = id;
        }

        /**
         * Writes a complete message; the reader sees it at the next {@link #flush()}.
         *
         * @param message the message
         * @throws NullPointerException if {@code message} is null
         */
        public void write(T message) {
            pipe.write(Objects.requireNonNull(message, "message"), false);
        }

        /**
         * Writes a message part; see {@link YPipe#write(Object, boolean)}.
         *
         * @param message the message
         * @param incomplete {@code true} if more parts of the same message follow
         * @throws NullPointerException if {@code message} is null
         */
        public void write(T message, boolean incomplete) {
            pipe.write(Objects.requireNonNull(message, "message"), incomplete);
        }

        /**
         * Takes back the last written, unflushed message.
         *
         * @return the message taken back, or {@code null} if everything written was flushed
         */
        public T unwrite() {
            return pipe.unwrite();
        }

        /** Makes the written messages visible to the reader, waking it if it is asleep. */
        public void flush() {
            if (!pipe.flush()) {
                signaler.signal(id);
            }
        }

        /**
         * Writes a complete message and flushes it.
         *
         * @param message the message
         * @throws NullPointerException if {@code message} is null
         */
        public void send(T message) {
            pipe.write(Objects.requireNonNull(message, "message"), false);
            flush();
        }

        /**
         * Returns the signal id this writer fires.
         *
         * @return the id, {@code 0 <= id < capacity()} of the mailbox's signaler
         */
        public int signalId() {
            return id;
        }
    }
}
