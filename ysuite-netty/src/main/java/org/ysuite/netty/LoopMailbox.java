// Over 500 lines: the public API only (the mailbox and its nested public Sender, with their
// javadoc); the settings are in LoopMailboxBuilder, the loop side in LoopDrain, LoopRegistration
// and SenderGate, the counts in SendCounts and HandOffStats.
package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.ysuite.NioSignaler;
import org.ysuite.YPipe;
import org.ysuite.YSocketPair;

/**
 * Hands messages from application threads to a Netty 4.2 {@link IoEventLoop}: each thread's
 * {@link Sender} writes into a ypipe of its own (no allocation per message), and the loop is woken
 * through Netty's own wake-up, only when it went to sleep on that pipe.
 *
 * <p>It replaces {@code eventLoop.execute(runnable)} for handing work to a loop: {@code execute}
 * allocates a task per message and puts it on a shared queue. A sender whose flush finds the loop
 * asleep on its pipe queues the pipe's own preallocated drain task ({@code execute}, so Netty
 * writes its eventfd only if the loop is blocked in {@code epoll_wait}); while the loop keeps up, a
 * send is the pipe's write and flush only.
 *
 * <h2>Transports</h2>
 * <ul>
 *   <li><b>epoll</b> (a loop of {@code MultiThreadIoEventLoopGroup(n, EpollIoHandler.newFactory())}):
 *       the mailbox registers a {@link YSocketPair}'s descriptor (an eventfd by default, or a
 *       socketpair, see {@link LoopMailboxBuilder#socketKind}) as an {@code EpollIoHandle}, with no interest:
 *       it ties the mailbox's life to the loop's. Needs {@code netty-transport-classes-epoll} and
 *       the native library on the class path.</li>
 *   <li><b>NIO</b> (a loop of {@code NioIoHandler.newFactory()}): the same with a
 *       {@link NioSignaler}'s pipe channel as a {@code NioIoHandle}.</li>
 * </ul>
 * Any other loop (io_uring, local) is refused with {@link IllegalArgumentException}.
 *
 * <h2>Draining</h2>
 * The handler runs on the loop thread only. A woken pipe's task delivers its messages in batches
 * until the pipe is empty. If it delivered fewer than 64, it looks once more in the loop's next
 * turn: a sender that answers a delivery meanwhile finds the pipe awake and queues nothing. Only a
 * look that finds nothing, or a turn that delivered 64 or more, puts the loop to sleep on the pipe
 * again (the next flush queues the task again). After
 * {@link LoopMailboxBuilder#batchLimit} messages in one go it stops, lets the loop finish its turn and serve
 * its sockets, and goes on in the loop's next turn; the pipe stays awake meanwhile, so its sender
 * queues nothing.
 *
 * <p>A handler that throws does not end the batch: the exception is passed to the failure handler
 * ({@link LoopMailboxBuilder#onHandlerFailure}; by default it is logged at {@code WARN} through Netty's
 * logger, as Netty logs a task of {@code execute} that throws) and the next message is delivered.
 *
 * <h2>Closing</h2>
 * The mailbox closes when {@link #close()} is called (from any thread, also from the handler),
 * when the loop's group shuts down, or when Netty closes the registration. In every case:
 * <ol>
 *   <li>senders are refused from then on: {@link Sender#send} throws
 *       {@link IllegalStateException} and the message is not accepted;</li>
 *   <li>Netty removes the descriptor from its poller ({@code epoll_ctl(EPOLL_CTL_DEL)} or key
 *       cancellation) and calls the handle's {@code unregistered()}; there, on the loop thread, the
 *       mailbox waits for every sender call in progress to return, delivers every message accepted
 *       until then (each exactly once), and only then closes the descriptor, once;</li>
 *   <li>{@link #closeFuture()} completes.</li>
 * </ol>
 * One exception to "on the loop thread": a group shut down with a zero quiet period can end its
 * loop without unregistering its handles (the shutdown request lands between the loop's check for
 * it and its last {@code confirmShutdown()}); the mailbox then runs the same sequence, once the
 * loop thread has ended, on the thread that completes the loop's termination future.
 * A message is <em>accepted</em> when {@link Sender#send} (or the {@link Sender#flush} after
 * {@link Sender#write}) returns normally: it is then delivered exactly once, before or during the
 * close. Messages written but not flushed when the mailbox closes are not accepted and are dropped.
 *
 * <h2>Counts</h2>
 * {@link #sent()}, {@link #delivered()}, {@link #depth()}, {@link #wakeups()} and the sampled
 * hand-off latency ({@link #handOffSamples()}, {@link #handOffTotalNanos()},
 * {@link #handOffMaxNanos()}) may be read from any thread at any time: the senders and the loop
 * each store their own counts for other threads, adding no lock and no atomic instruction to a
 * message's path. Read while the mailbox runs they are approximate (see each accessor); after
 * {@link #closeFuture()} completes they are final. ysuite-micrometer binds them to Micrometer.
 *
 * <pre>{@code
 * IoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
 * LoopMailbox<Order> orders = LoopMailbox.register(group.next(), order -> book.apply(order));
 * // each application thread:
 * LoopMailbox.Sender<Order> out = orders.newSender();
 * out.send(order);          // the handler runs on the loop thread
 * // at the end:
 * orders.close().get();     // or group.shutdownGracefully(): both close the descriptor once
 * }</pre>
 *
 * @param <T> the type of the messages; {@code null} is not a message
 */
public final class LoopMailbox<T> {

    /** The default {@link LoopMailboxBuilder#batchLimit}: {@value} messages per turn of the loop. */
    public static final int DEFAULT_BATCH_LIMIT = 4096;

    /** The default {@link LoopMailboxBuilder#handOffSampleInterval}: one message in {@value} per sender. */
    public static final int DEFAULT_HAND_OFF_SAMPLE_INTERVAL = 1024;

    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(LoopMailbox.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IoEventLoop loop;
    private final String name;
    private final int handOffSampleInterval;
    private final LoopDrain<T> drain;
    private final LoopRegistration registration;

    /** OPEN, then CLOSING (senders refused) from the first close request, CLOSED when done. */
    private volatile int state;

    private final Object sendersLock = new Object();
    /** Copy-on-write, replaced under {@link #sendersLock}; read by the closer after CLOSING. */
    private volatile Sender<?>[] senders = new Sender<?>[0];

    private final CompletableFuture<Void> registered = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    LoopMailbox(LoopMailboxBuilder<T> b) {
        this.loop = b.loop;
        this.name = b.nameOrDefault();
        this.handOffSampleInterval = b.handOffSampleInterval;
        this.drain = new LoopDrain<>(loop, b.handler, b.onHandlerFailure, b.batchLimit, handOffSampleInterval,
                this::stopped);
        this.registration = new LoopRegistration(loop, b.kind, false, new Lifecycle());
    }

    /** The mailbox's answers to its registration's steps. */
    private final class Lifecycle implements LoopRegistration.Owner {
        @Override
        public void registered() {
            registered.complete(null);
            drain.registered(pipes()); // what was sent before the registration was done
        }

        @Override
        public void ready() {
            // registered with no interest: never called
        }

        @Override
        public void closeRequested() {
            close();
        }

        @Override
        public boolean isClosing() {
            return state != OPEN;
        }

        @Override
        public boolean busy() {
            return drain.draining();
        }

        @Override
        public void closing() {
            STATE.compareAndSet(LoopMailbox.this, OPEN, CLOSING); // group shutdown: nobody called close()
            SenderGate.awaitCalls(sendersNow()); // the closer's half of the handshake (see SenderGate)
            drain.drainAll(pipes());
        }

        @Override
        public void closed() {
            state = CLOSED;
            registered.completeExceptionally(new IllegalStateException("closed before it was registered"));
            closed.complete(null);
        }
    }

    /**
     * Registers a new mailbox with {@code loop}, with the default settings (an eventfd on epoll,
     * {@link #DEFAULT_BATCH_LIMIT}, failures logged).
     *
     * @param loop an epoll or NIO event loop, e.g. {@code group.next()}
     * @param handler called on the loop thread once per message, in order per sender
     * @param <T> the type of the messages
     * @return the mailbox; senders may send at once (messages wait until the registration is done)
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code loop} is neither an epoll nor a NIO loop
     * @throws IllegalStateException if the loop refuses the registration (it is shut down)
     */
    public static <T> LoopMailbox<T> register(IoEventLoop loop, Consumer<? super T> handler) {
        return LoopMailbox.<T>builder(loop, handler).register();
    }

    /**
     * Starts the settings of a mailbox for {@code loop}.
     *
     * @param loop an epoll or NIO event loop, e.g. {@code group.next()}
     * @param handler called on the loop thread once per message, in order per sender
     * @param <T> the type of the messages
     * @return a builder; {@link LoopMailboxBuilder#register()} registers the mailbox
     * @throws NullPointerException if an argument is null
     */
    public static <T> LoopMailboxBuilder<T> builder(IoEventLoop loop, Consumer<? super T> handler) {
        return new LoopMailboxBuilder<>(loop, handler);
    }

    /** Registers with the loop ({@link LoopMailboxBuilder#register()}). */
    void start() {
        registration.start();
    }

    /** True once the close sequence has begun: drain tasks leave the pipes to it. */
    private boolean stopped() {
        return registration.isFinishing();
    }

    /**
     * The senders, read under the lock that {@link #newSender()} holds while it reads the state:
     * after CLOSING, either a new sender is in this list or it saw CLOSING and was refused.
     */
    private Sender<?>[] sendersNow() {
        synchronized (sendersLock) {
            return senders;
        }
    }

    /** The senders' pipes, as of now (at the registration and in the close sequence only). */
    @SuppressWarnings("unchecked")
    private LoopDrain<T>.Pipe[] pipes() {
        Sender<?>[] all = sendersNow();
        LoopDrain<T>.Pipe[] p = (LoopDrain<T>.Pipe[]) new LoopDrain<?>.Pipe[all.length];
        for (int i = 0; i < all.length; i++) {
            p[i] = ((Sender<T>) all[i]).pipe;
        }
        return p;
    }

    /**
     * Adds a sender: a pipe of its own into the mailbox. Any thread may call this at any time; the
     * returned sender must then be used by one thread at a time.
     *
     * @return the new sender
     * @throws IllegalStateException if the mailbox is closed or closing
     */
    public Sender<T> newSender() {
        synchronized (sendersLock) {
            // The state is read under the lock that the closer takes (after it stored CLOSING)
            // to read the list: either this sender is in the closer's list, or this read sees
            // CLOSING.
            if (state != OPEN) {
                throw closedException();
            }
            Sender<T> s = new Sender<>(this, drain.newPipe());
            Sender<?>[] old = senders;
            Sender<?>[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = s;
            senders = grown;
            return s;
        }
    }

    /**
     * Closes the mailbox: senders are refused from now on, and the loop delivers every message
     * accepted until now, deregisters the descriptor and closes it. This is also the way to
     * deregister: a mailbox is registered with one loop for its whole life. Any thread may call
     * this, the handler too; it does not wait. Idempotent.
     *
     * @return {@link #closeFuture()}
     */
    public CompletableFuture<Void> close() {
        if (STATE.compareAndSet(this, OPEN, CLOSING)) {
            registration.cancel();
        }
        return closeFuture();
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("LoopMailbox is closed: the message is not accepted");
    }

    /**
     * Returns the event loop the mailbox is registered with; the handler runs on its thread.
     *
     * @return the loop
     */
    public IoEventLoop eventLoop() {
        return loop;
    }

    /**
     * Tells whether closing has begun (by {@link #close()} or by the loop): senders are refused.
     *
     * @return {@code true} once the mailbox is closing or closed
     */
    public boolean isClosed() {
        return state != OPEN;
    }

    /**
     * Returns a future completed when the mailbox is registered with the loop and armed, or
     * completed exceptionally if it was closed first or the registration failed.
     *
     * @return a new dependent future; completing it does not affect the mailbox
     */
    public CompletableFuture<Void> registrationFuture() {
        return registered.copy();
    }

    /**
     * Returns a future completed once the mailbox is closed: every accepted message delivered and
     * the descriptors closed.
     *
     * @return a new dependent future; completing it does not affect the mailbox
     */
    public CompletableFuture<Void> closeFuture() {
        return closed.copy();
    }

    /**
     * Returns how many times the loop was woken for this mailbox: the number of drain tasks a
     * sender queued because its flush found the loop asleep on its pipe. Continuations (after
     * {@link LoopMailboxBuilder#batchLimit}) and the drain at the registration do not count.
     *
     * @return the number of wake-ups so far
     */
    public long wakeups() {
        return drain.wakeups();
    }

    /**
     * Returns how many messages have been handed to the handler (including those whose handler
     * threw), as of the end of the loop's last drain.
     *
     * <p>The count lags: the loop counts in a field of its own and publishes the total once per
     * drain (a drain runs until a look finds nothing or {@link LoopMailboxBuilder#batchLimit} messages are
     * delivered), when that drain ends. So the messages of the drain in progress are not counted
     * yet: read from a handler, or from another thread right after a handler call, it can be
     * lower by up to a drain's worth. After {@link #closeFuture()} completes it is exact. For an
     * exact count at a given message, count in the handler.
     *
     * @return the number of messages delivered by the drains that have ended
     */
    public long delivered() {
        return drain.delivered();
    }

    /**
     * Returns how many messages the senders have accepted ({@link Sender#send} or
     * {@link Sender#flush} returned normally), summed over all senders.
     *
     * <p>Each sender counts in a field only its own thread writes and stores it after each flush
     * (no lock, no atomic instruction); this sum reads them racily: each count untorn, possibly
     * a send behind. Read by a sender's own thread it includes that sender's last send. After
     * {@link #closeFuture()} completes it is exact and equals {@link #delivered()}.
     *
     * @return the messages accepted so far
     */
    public long sent() {
        return SendCounts.sent(senders);
    }

    /**
     * Returns about how many accepted messages wait to be delivered: {@link #sent()} minus
     * {@link #delivered()}, never negative.
     *
     * <p>Approximate: both counts are read racily, and {@code delivered()} is published at the end
     * of each drain, so the messages of a drain in progress still count as waiting (and a message
     * delivered before its sender stored its count would make the difference negative: it is
     * clamped at 0). Exact when nothing moves; 0 after {@link #closeFuture()} completes.
     *
     * @return the approximate number of messages waiting, {@code >= 0}
     */
    public long depth() {
        long delivered = delivered(); // first: a volatile read, so the sums below are not older
        return Math.max(0, sent() - delivered);
    }

    /**
     * Returns how many hand-off latencies have been sampled: messages stamped by their sender
     * (one in {@link LoopMailboxBuilder#handOffSampleInterval} per sender, a point skipped while the
     * sender's previous sample waits) whose delivery the loop timed.
     *
     * <p>A hand-off latency is the time from the stamp, taken just before the message is
     * written, to its delivery, just before the handler is called: the wait in the pipe, the
     * wake-up and the drain before it. The loop stores the statistics without a lock or an
     * atomic instruction; {@code handOffSamples()}, {@link #handOffTotalNanos()} and
     * {@link #handOffMaxNanos()} are each read untorn but separately, so together they may be a
     * sample apart while the mailbox runs. Final once {@link #closeFuture()} completes.
     *
     * @return the number of samples so far
     */
    public long handOffSamples() {
        return drain.handOff().samples();
    }

    /**
     * Returns the sum of the sampled hand-off latencies (see {@link #handOffSamples()}); divided
     * by the number of samples it is their mean.
     *
     * @return the total of the samples, in nanoseconds
     */
    public long handOffTotalNanos() {
        return drain.handOff().totalNanos();
    }

    /**
     * Returns the largest sampled hand-off latency (see {@link #handOffSamples()}) since the
     * mailbox was registered; 0 before the first sample.
     *
     * @return the largest sample, in nanoseconds
     */
    public long handOffMaxNanos() {
        return drain.handOff().maxNanos();
    }

    /**
     * Returns the sample interval set by {@link LoopMailboxBuilder#handOffSampleInterval}.
     *
     * @return one message in this many per sender is a sample point
     */
    public int handOffSampleInterval() {
        return handOffSampleInterval;
    }

    /**
     * Returns the mailbox's name, set by {@link LoopMailboxBuilder#name} or given by default.
     *
     * @return the name, never blank
     */
    public String name() {
        return name;
    }

    /**
     * Returns the number of senders made by {@link #newSender()}.
     *
     * @return the sender count
     */
    public int senderCount() {
        return senders.length;
    }

    /**
     * Describes the mailbox.
     *
     * @return name, transport, state and counters
     */
    @Override
    public String toString() {
        int s = state;
        return "LoopMailbox[" + name + ", " + registration.transport() + ", "
                + (s == OPEN ? "open" : s == CLOSING ? "closing" : "closed") + ", senders=" + senders.length
                + ", sent=" + sent() + ", delivered=" + delivered() + ", wakeups=" + wakeups() + "]";
    }

    /**
     * One application thread's way into a {@link LoopMailbox}: a pipe of its own. Used by one
     * thread at a time; any number of senders may send concurrently.
     *
     * @param <T> the type of the messages
     */
    public static final class Sender<T> extends SenderGate {

        private final LoopMailbox<T> box;
        private final LoopDrain<T>.Pipe pipe;
        private final YPipe<T> writer;
        final SendCounts counts;

        Sender(LoopMailbox<T> box, LoopDrain<T>.Pipe pipe) {
            this.box = box;
            this.pipe = pipe;
            this.writer = pipe.pipe;
            this.counts = pipe.counts;
        }

        /**
         * Sends one message: writes it and makes it visible to the loop, waking the loop only if
         * it found the mailbox empty. Accepted once this returns normally.
         *
         * @param message the message
         * @throws NullPointerException if {@code message} is null
         * @throws IllegalStateException if the mailbox is closed or closing (the message is not
         *     accepted)
         */
        public void send(T message) {
            Objects.requireNonNull(message, "message");
            enter();
            try {
                counts.writing();
                writer.write(message, false);
                boolean awake = writer.flush();
                counts.flushed();
                if (!awake) {
                    pipe.wake(); // the loop went to sleep on this pipe: queue its drain task
                }
            } finally {
                exit();
            }
        }

        /**
         * Writes a message without making it visible; {@link #flush()} accepts everything written
         * since the last flush at once (one wake-up at most for the lot).
         *
         * @param message the message
         * @throws NullPointerException if {@code message} is null
         * @throws IllegalStateException if the mailbox is closed or closing
         */
        public void write(T message) {
            Objects.requireNonNull(message, "message");
            enter();
            try {
                counts.writing();
                writer.write(message, false);
            } finally {
                exit();
            }
        }

        /**
         * Makes every message written since the last flush visible to the loop; they are
         * accepted once this returns normally.
         *
         * @throws IllegalStateException if the mailbox is closed or closing (the written messages
         *     are not accepted and will not be delivered)
         */
        public void flush() {
            enter();
            try {
                boolean awake = writer.flush();
                counts.flushed();
                if (!awake) {
                    pipe.wake();
                }
            } finally {
                exit();
            }
        }

        /**
         * Returns the mailbox this sender writes to.
         *
         * @return the mailbox
         */
        public LoopMailbox<T> mailbox() {
            return box;
        }

        @Override
        boolean open() {
            return box.state == OPEN; // volatile read
        }

        @Override
        IllegalStateException closed() {
            return box.closedException();
        }

    }
}
