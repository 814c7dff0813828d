// Over 500 lines: the public API with its javadoc, and the nested public Writer that cannot move
// without changing the API; the reader's rounds are in MailboxRounds.
package org.ysuite;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.ysuite.internal.SpinWait;

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
 * <h2>Misuse</h2>
 * On the reader side, a {@code check} or {@code poll} from inside a handler, or while another
 * thread runs a handler, throws {@link IllegalStateException}, and so does a second thread that
 * goes to sleep in {@code poll} while the reader sleeps there (a {@link YPollset} or
 * {@link YSemaphore} admits one waiting thread); other overlaps of two reader threads are not
 * detected. A {@link Writer} is checked where it costs nothing, as its pipe is (see
 * {@link YPipe}'s Misuse): a second thread is refused with {@link IllegalStateException} ("a pipe
 * has one writer thread at a time") when it flushes while the other signals the sleeping reader,
 * moves to the pipe's next chunk while the other signals, or finds the pipe flushed by the other
 * (where the flush's atomic instruction fails anyway). That catches two threads sharing a writer
 * eventually, not at once: until then messages may be lost, duplicated or delivered as
 * {@code null}. A check of every send would cost an atomic instruction, as much again as the
 * send itself; for tests, {@code -Dysuite.checkThreads=true} turns that checked mode on (every
 * overlap refused before it touches the pipe). Give each thread its own writer
 * ({@link #newWriter()} is cheap: a pipe of 256 slots), or hand one over with a happens-before
 * edge (a lock, a queue) between its users.
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
    final PollableSignaler pollable; // the same object, or null if it cannot be polled

    /** Copy-on-write list of writers; the volatile read in the reader acquires each new one. */
    private volatile Writer<?>[] writers = new Writer<?>[0];

    /** Set by {@link #close()} after every pipe is closed (a reader that sees it sees that). */
    private volatile boolean closed;

    final WaitPolicy readerPolicy;
    /** Reader: pauses before its first look over the awake pipes ({@link BatchDelay}). */
    private int batchPauses;

    /** The user's name in events, or null (see {@link #named}); guarded by {@code this} for writes. */
    private volatile String name;

    /**
     * The signaler's count of its owner's parks, if it is one of ysuite's (the mailbox is its only
     * user), and its counts when the mailbox was made; else null, and the mailbox counts the
     * reader's waits in the signaler's poll itself (read racily by stats()).
     */
    private final ParkClock parkClock;
    private final long parksBefore;
    private final long parkNanosBefore;
    private long sleeps;
    private long sleepNanos;

    /** The reader's side: which pipes the next round visits. Owned by the reader thread. */
    private final MailboxRounds rounds;
    /** The spin phase of the reader's wait, over its awake pipes (see {@link SpinWait}). */
    private final AwakeSpin awakeSpin = new AwakeSpin();

    /**
     * Creates a mailbox over a new {@link YPollset}: the reader spins over its awake pipes as
     * {@link WaitPolicy#defaultPolicy()} says, then parks on the pollset at once (its default).
     */
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
        this(signaler, WaitPolicy.defaultPolicy());
    }

    /**
     * Creates a mailbox over {@code signaler} whose reader, finding every awake pipe empty in
     * {@link #poll(Consumer)}, spins over them as {@code readerPolicy} says before it puts them
     * to sleep and waits on the signaler. While it spins, the writers of those pipes flush without
     * signalling.
     *
     * <p>The reader's spin is this policy's alone: give the signaler a policy that does not
     * spin (every signaler's default, {@link WaitPolicy#purePark()}), or the reader spins
     * again in the signaler's {@code poll} before it parks.
     *
     * @param signaler the signaler the writers fire; a {@link PollableSignaler} lets the reader
     *     block in {@link #poll(Consumer)}
     * @param readerPolicy how long the reader spins over its awake pipes before it sleeps
     * @throws NullPointerException if {@code signaler} or {@code readerPolicy} is null
     * @throws IllegalArgumentException if {@code signaler.capacity()} is less than 1
     */
    public YMailbox(Signaler signaler, WaitPolicy readerPolicy) {
        this.signaler = Objects.requireNonNull(signaler, "signaler");
        this.readerPolicy = Objects.requireNonNull(readerPolicy, "readerPolicy");
        int capacity = signaler.capacity();
        if (capacity < 1) {
            throw new IllegalArgumentException("signaler.capacity() must be >= 1: " + capacity);
        }
        this.pollable = signaler instanceof PollableSignaler ? (PollableSignaler) signaler : null;
        this.rounds = new MailboxRounds(capacity);
        this.parkClock = ParkClock.of(signaler);
        this.parksBefore = parkClock == null ? 0 : parkClock.parks();
        this.parkNanosBefore = parkClock == null ? 0 : parkClock.parkNanos();
        label(signaler, "YMailbox reader", null);
    }

    /**
     * Names this mailbox: the name appears in the Flight Recorder events of its writers' pipes
     * and, if the signaler is one of ysuite's (the mailbox is its only user), of the reader's
     * sleep on it (see docs/observability.md). Name it before handing it to other threads, or
     * their events may still carry the old name for a while.
     *
     * @param name the name
     * @return this mailbox
     * @throws NullPointerException if {@code name} is null
     */
    public synchronized YMailbox<T> named(String name) {
        this.name = Objects.requireNonNull(name, "name");
        for (Writer<?> w : writers) {
            w.pipe.named(name);
        }
        label(signaler, "YMailbox reader", name);
        return this;
    }

    /**
     * Returns the name given by {@link #named(String)}.
     *
     * @return the name, or {@code null} if it has none
     */
    public String name() {
        return name;
    }

    /**
     * Returns a snapshot of this mailbox's counters (see {@link PipeStats}), over all its
     * writers: messages flushed, wake-ups (flushes that found the reader asleep on their pipe and
     * fired its signal), the reader's sleeps on the signaler in {@link #poll(Consumer)} and their
     * time, and the depth, messages flushed and not yet handed over. Writer waits are 0 (the
     * pipes are unbounded). Any thread may call it; it allocates the snapshot and nothing else.
     *
     * <p>A sleep is a park: over one of ysuite's signalers ({@link YPollset}, {@link YSemaphore},
     * {@link YSocketPair}, {@link NioSignaler}) the signaler counts its owner's parks and their
     * time, and neither a spin that found a signal (the signaler's {@link WaitPolicy}, or the
     * mailbox's own spin over its awake pipes) nor a poll that found a signal at once counts.
     * Over any other signaler the mailbox cannot see the park: it counts each wait in the
     * signaler's {@code poll}, whatever that does inside.
     *
     * @return the counters
     */
    public PipeStats stats() {
        long flushed = 0;
        long wakeups = 0;
        long depth = 0;
        for (Writer<?> w : writers) {
            flushed += w.pipe.flushedCount();
            wakeups += w.pipe.wakeupsSent;
            depth += w.pipe.unreadCount();
        }
        ParkClock clock = parkClock;
        if (clock != null) {
            return new PipeStats(flushed, wakeups, clock.parks() - parksBefore,
                    clock.parkNanos() - parkNanosBefore, 0, depth);
        }
        return new PipeStats(flushed, wakeups, sleeps, sleepNanos, 0, depth);
    }

    /** Tells one of ysuite's signalers that a mailbox's reader waits on it, and its name. */
    private static void label(Signaler signaler, String waiter, String name) {
        // Package-private fields of each of ysuite's signalers (no common type without making a
        // label setter public API).
        if (signaler instanceof YPollset) {
            ((YPollset) signaler).waiterLabel = waiter;
            if (name != null) {
                ((YPollset) signaler).named(name);
            }
        } else if (signaler instanceof YSemaphore) {
            ((YSemaphore) signaler).waiterLabel = waiter;
            if (name != null) {
                ((YSemaphore) signaler).named(name);
            }
        } else if (signaler instanceof WakeupSignaler) {
            ((WakeupSignaler) signaler).waiterLabel = waiter;
            if (name != null) {
                ((WakeupSignaler) signaler).name = name;
            }
        }
    }

    /**
     * Adds a writer: a pipe of its own and a signal id. Any thread may call this at any time; the
     * returned writer must then be used by one thread at a time.
     *
     * @return the new writer
     */
    public Writer<T> newWriter() {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("mailbox closed: no new writers");
            }
            Writer<?>[] old = writers;
            // The pipe starts with its reader asleep: the reader has never visited it, so the
            // first flush must signal.
            // Its reader never spins on it alone: the mailbox spins over all awake pipes.
            YPipe<T> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, true, WaitPolicy.purePark());
            String n = name;
            if (n != null) {
                pipe.named(n);
            }
            Writer<T> writer = new Writer<>(pipe, signaler, old.length % signaler.capacity());
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
     * Closes the mailbox and wakes its reader. From now on {@link #newWriter()} and a writer's
     * {@link Writer#flush()} (and {@link Writer#send}) throw {@link IllegalStateException}; a
     * message not flushed before the close is not accepted. Every message flushed before the
     * close is still handed to the reader, each exactly once: the reader's {@link #poll(Consumer)}
     * returns them, then returns {@code 0}, which an untimed poll never does otherwise. The
     * signaler is not closed. Any thread may call this; calling it again does nothing.
     *
     * <p>The reader's usual loop therefore ends by itself:
     * <pre>{@code
     * while (mailbox.poll(handler) > 0) {
     *     // handled a batch
     * }
     * // closed, and everything sent before the close was handled
     * }</pre>
     */
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            // Each pipe's c becomes CLOSED atomically against its writer's flush: a flush lands
            // before (the reader will get it) or fails (the writer is told). Then the flag, so a
            // reader that sees it sees every pipe closed and can drain them for the last time.
            for (Writer<?> w : writers) {
                w.pipe.closePositions();
            }
            closed = true;
        }
        try {
            signaler.signal(0); // wakes a sleeping reader; its next round finds the flag
        } catch (IllegalStateException signalerClosed) {
            // A closed signaler has woken its owner already and will not block it again.
        }
    }

    /**
     * Tells whether {@link #close()} was called.
     *
     * @return {@code true} once the mailbox is closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Reader: drains, without blocking, every pipe that was signalled or still awake.
     *
     * @param handler called once per message, in order per writer, on the calling thread
     * @return how many messages were handed over; {@code 0} if none was waiting
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalStateException if called from inside a handler of this mailbox, or while
     *     another thread runs one
     */
    public int check(Consumer<? super T> handler) {
        Objects.requireNonNull(handler, "handler");
        rounds.requireNotDraining();
        if (pollable == null || closed) {
            // Cannot tell which id fired, or closed (every pipe is read to its end): visit all.
            rounds.visitAllNext(writers);
            return rounds.drain(writers, handler, true);
        }
        int n;
        int ids;
        do {
            // An id can fire for a message a previous round already drained (ids shared by
            // several writers, or a writer whose signal came after the reader had visited its
            // pipe for another id). Return 0 only after a check that found no id at all: that
            // is the check that leaves the signaler armed (an fd-based signaler's descriptor
            // armed for a native poller), so sleeping after it cannot miss the next flush.
            ids = pollable.check(rounds);
            n = rounds.drain(writers, handler, true);
        } while (n == 0 && ids > 0);
        return n;
    }

    /**
     * Reader: looks at the pipes left awake, spinning over them as the reader's policy allows,
     * without putting any to sleep; their writers do not signal meanwhile.
     *
     * @return messages handed over, or 0 when the spin ended with nothing
     */
    private int spinOverAwake(Consumer<? super T> handler) {
        if (rounds.noneAwake()) {
            return 0; // every pipe is asleep: only a signal can bring news
        }
        int delay = batchPauses;
        BatchDelay.pause(delay); // lets a dense stream arrive as one batch (see BatchDelay)
        int n = rounds.drain(writers, handler, false);
        if (n > 0) {
            // No delay where the policy allows no spin (purePark, a virtual thread). neverSpins(),
            // not spins(): a look that found messages starts no wait (an adaptive policy would
            // count it, and spend its probe on it), as in the pipe's checkReadPositions.
            batchPauses = readerPolicy.neverSpins() ? 0 : BatchDelay.afterLook(delay, n);
            return n;
        }
        AwakeSpin spin = awakeSpin;
        spin.handler = handler;
        try {
            if (spin.spin(readerPolicy)) {
                batchPauses = BatchDelay.afterSpin(delay);
                return spin.found;
            }
        } finally {
            spin.handler = null; // keeps no reference to the caller's handler between polls
        }
        batchPauses = 0;
        return 0;
    }

    /** One look of the reader's spin phase: one round over the awake pipes, none put to sleep. */
    private final class AwakeSpin extends SpinWait {
        /** The handler of the poll that spins; set around the spin, on the reader thread. */
        Consumer<? super T> handler;
        /** Messages the successful round handed over. */
        int found;

        @Override
        protected boolean ready() {
            found = rounds.drain(writers, handler, false);
            return found > 0;
        }
    }

    /**
     * Reader: waits until some writer has flushed, then drains every signalled pipe in one batch.
     *
     * @param handler called once per message, in order per writer, on the calling thread
     * @return how many messages were handed over: at least {@code 1}, or {@code 0} once the
     *     mailbox is {@link #close() closed} and every message accepted before has been handed
     *     over
     * @throws InterruptedException if the reader is interrupted while waiting
     * @throws IllegalStateException if the signaler is not a {@link PollableSignaler}, if
     *     called from inside a handler of this mailbox or while another thread runs one, or if
     *     another thread is asleep in {@code poll}
     * @throws NullPointerException if {@code handler} is null
     */
    public int poll(Consumer<? super T> handler) throws InterruptedException {
        Objects.requireNonNull(handler, "handler");
        PollableSignaler waiter = requirePollable();
        for (;;) {
            int n = spinOverAwake(handler);
            if (n > 0) {
                return n;
            }
            boolean wasClosed = closed; // read before check: then check visits every pipe
            n = check(handler);
            if (n > 0 || wasClosed) {
                return n; // closed: check read every pipe to its end; 0 means all handed over
            }
            if (closed) {
                continue; // closed during check, which may have taken the close's signal
            }
            // Every pipe is asleep now: each one's next flush fires its id, which poll takes.
            // A close from now on signals after setting the flag, and that signal ends the poll.
            long asleepFrom = parkClock == null ? System.nanoTime() : 0L;
            try {
                waiter.poll(rounds);
            } finally {
                countWait(asleepFrom);
            }
            n = rounds.drain(writers, handler, true);
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
     * @return how many messages were handed over; {@code 0} if the time ran out, or once the
     *     mailbox is closed and drained
     * @throws InterruptedException if the reader is interrupted while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException if the signaler is not a {@link PollableSignaler}, if
     *     called from inside a handler of this mailbox or while another thread runs one, or if
     *     another thread is asleep in {@code poll}
     * @throws NullPointerException if {@code handler} or {@code unit} is null
     */
    public int poll(Consumer<? super T> handler, long timeout, TimeUnit unit)
            throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        PollableSignaler waiter = requirePollable();
        Objects.requireNonNull(handler, "handler");
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (;;) {
            int n = timeout == 0 ? 0 : spinOverAwake(handler);
            if (n > 0) {
                return n;
            }
            boolean wasClosed = closed;
            n = check(handler);
            if (n > 0 || wasClosed) {
                return n;
            }
            if (closed) {
                continue; // as in the untimed poll: the check may have taken the close's signal
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return 0;
            }
            long asleepFrom = parkClock == null ? System.nanoTime() : 0L;
            int got;
            try {
                got = waiter.poll(rounds, left, TimeUnit.NANOSECONDS);
            } finally {
                countWait(asleepFrom);
            }
            if (got == 0) {
                return 0;
            }
            n = rounds.drain(writers, handler, true);
            if (n > 0) {
                return n;
            }
        }
    }

    /** Reader, back from the signaler's poll: counts it, unless the signaler counts its parks. */
    private void countWait(long asleepFrom) {
        if (parkClock == null) {
            sleeps++;
            sleepNanos += System.nanoTime() - asleepFrom;
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

    /**
     * One writer of a {@link YMailbox}: its own pipe and signal id. Used by one thread at a time;
     * this is checked only where it costs nothing (see the mailbox's Misuse section for what
     * concurrent use does).
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

        /**
         * Makes the written messages visible to the reader, waking it if it is asleep.
         *
         * @throws IllegalStateException if the mailbox is closed: nothing was made visible (the
         *     unflushed messages can be taken back with {@link #unwrite()}); or if another thread
         *     is found using this writer (see the mailbox's Misuse section)
         */
        public void flush() {
            if (!pipe.flush()) {
                pipe.signalReader(signaler, id); // the slow path, where a second thread is seen
            }
        }

        /**
         * Writes a complete message and flushes it.
         *
         * @param message the message
         * @throws NullPointerException if {@code message} is null
         * @throws IllegalStateException if the mailbox is closed: the message was not accepted;
         *     or if another thread is found using this writer (see the mailbox's Misuse section)
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
