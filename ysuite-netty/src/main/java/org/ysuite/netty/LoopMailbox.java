// Over 500 lines: the public mailbox, its nested Sender and the loop-side drain share private
// state that a split would have to widen to package access.
package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.channel.nio.NioIoHandle;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.ysuite.NioSignaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YSocketPair;

/**
 * A {@link YMailbox} drained on a Netty 4.2 {@link IoEventLoop}: application threads hand
 * messages to the loop through {@link Sender}s (one ypipe each, no allocation per message), and the
 * loop is woken through the mailbox's own descriptor, written only when the loop may be asleep.
 *
 * <p>It replaces {@code eventLoop.execute(runnable)} for handing work to a loop: {@code execute}
 * allocates a task per message and puts it on a shared queue; a mailbox writes each message into
 * the sender's own pipe and costs the sender one system call only for the first message after the
 * loop found its mailbox empty.
 *
 * <h2>Transports</h2>
 * <ul>
 *   <li><b>epoll</b> (a loop of {@code MultiThreadIoEventLoopGroup(n, EpollIoHandler.newFactory())}):
 *       the mailbox is over a {@link YSocketPair} (an eventfd by default, or a socketpair, see
 *       {@link Builder#socketKind}), whose descriptor is registered as an {@code EpollIoHandle} for
 *       level-triggered {@code EPOLLIN}. Needs {@code netty-transport-classes-epoll} and the native
 *       library on the class path.</li>
 *   <li><b>NIO</b> (a loop of {@code NioIoHandler.newFactory()}): the mailbox is over a
 *       {@link NioSignaler}, whose pipe channel is registered as a {@code NioIoHandle} for
 *       {@code OP_READ}.</li>
 * </ul>
 * Any other loop (io_uring, local) is refused with {@link IllegalArgumentException}.
 *
 * <h2>Draining</h2>
 * The handler runs on the loop thread only. When the descriptor fires, the loop drains the mailbox
 * in batches (one batch per signalled pipe per round) and goes on until a check finds nothing: that
 * check re-arms the descriptor, so the loop returns to {@code epoll_wait}/{@code select} with the
 * descriptor quiet, and a level-triggered poller cannot spin on it. After
 * {@link Builder#batchLimit} messages in one go it stops, lets the loop finish its turn and serve
 * its sockets, and goes on in a task in the loop's next turn, leaving the descriptor unarmed
 * meanwhile: the descriptor is re-armed only when nothing is left.
 *
 * <p>A handler that throws does not end the batch: the exception is passed to the failure handler
 * ({@link Builder#onHandlerFailure}; by default it is logged at {@code WARN} through Netty's
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
 *       until then (each exactly once), and only then closes the signaler's descriptors, once;</li>
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
 * <pre>{@code
 * IoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
 * LoopMailbox<Order> orders = LoopMailbox.register(group.next(), order -> book.apply(order));
 * // each application thread:
 * LoopMailbox.Sender<Order> out = orders.newSender();
 * out.send(order);          // the handler runs on the loop thread
 * // at the end:
 * orders.close().get();     // or group.shutdownGracefully(): both close the descriptors once
 * }</pre>
 *
 * @param <T> the type of the messages; {@code null} is not a message
 */
public final class LoopMailbox<T> {

    /** The default {@link Builder#batchLimit}: {@value} messages per turn of the loop. */
    public static final int DEFAULT_BATCH_LIMIT = 4096;

    private static final InternalLogger LOGGER = InternalLoggerFactory.getInstance(LoopMailbox.class);

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
    /**
     * The registered descriptor: it ties the mailbox's life to the loop's (Netty unregisters it
     * when the loop shuts down). It is registered without read interest and never written: the
     * loop is woken by {@link #wake}.
     */
    private final Closeable signaler;
    private final LoopWakeSignaler wake;
    private final YMailbox<T> mailbox;
    private final IoHandle handle;
    private final String transport;
    private final Consumer<? super T> handler;
    private final BiConsumer<? super T, ? super Throwable> onHandlerFailure;
    private final int batchLimit;

    /** Calls the handler for one message; never throws, so a failure cannot cut a batch short. */
    private final Consumer<T> deliver = this::deliver;
    private final Runnable drainTask = this::runDrainTask;
    private final Runnable wakeTask = this::onWake;
    private final Runnable requeueTask = this::requeue;
    private final Runnable cancelTask = this::cancelOnLoop;
    /** Runs the close sequence if the loop terminates without unregistering the handle. */
    private final GenericFutureListener<Future<Object>> onLoopTerminated = f -> finish();

    /** OPEN, then CLOSING (senders refused) from the first close request, CLOSED when done. */
    private volatile int state;

    private final Object sendersLock = new Object();
    /** Copy-on-write, replaced under {@link #sendersLock}; read by the closer after CLOSING. */
    private volatile Sender<?>[] senders = new Sender<?>[0];

    /** Set once: whoever wins runs the close sequence (normally the loop thread). */
    private final AtomicBoolean finishing = new AtomicBoolean();

    // Loop-thread state: written and read on the loop thread only.
    private IoRegistration registration;
    private boolean draining;
    private boolean drainScheduled;
    private long deliveredOnLoop;
    private long wakeupsOnLoop;

    // Copies of the loop-thread counters for other threads: written by the loop thread only
    // (single writer, so a plain increment of the loop's own copy and a volatile store suffice).
    private volatile long delivered;
    private volatile long wakeups;

    private final CompletableFuture<Void> registered = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private LoopMailbox(Builder<T> b) {
        this.loop = b.loop;
        this.handler = b.handler;
        this.onHandlerFailure = b.onHandlerFailure;
        this.batchLimit = b.batchLimit;
        this.wake = new LoopWakeSignaler(loop, wakeTask);
        this.mailbox = new YMailbox<>(wake, WaitPolicy.purePark());
        if (loop.isCompatible(NioIoHandle.class)) {
            NioSignaler s = new NioSignaler(WaitPolicy.purePark());
            this.signaler = s;
            this.handle = new NioMailboxHandle(owner(), s.channel());
            this.transport = "nio";
        } else if (EpollMailboxHandle.isCompatible(loop)) {
            YSocketPair s = new YSocketPair(b.kind, WaitPolicy.purePark());
            this.signaler = s;
            this.handle = new EpollMailboxHandle(owner(), s.fd());
            this.transport = "epoll/" + b.kind.name().toLowerCase(java.util.Locale.ROOT);
        } else {
            throw new IllegalArgumentException("loop must be an epoll or NIO IoEventLoop, not "
                    + loop.getClass().getName() + " (io_uring is not supported)");
        }
    }

    private MailboxHandle.Owner owner() {
        return new MailboxHandle.Owner(this::onEvent, this::onUnregistered, this::close);
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
     * @return a builder; {@link Builder#register()} registers the mailbox
     * @throws NullPointerException if an argument is null
     */
    public static <T> Builder<T> builder(IoEventLoop loop, Consumer<? super T> handler) {
        return new Builder<>(loop, handler);
    }

    /**
     * Settings of a {@link LoopMailbox}. Not thread-safe; each {@link #register()} makes a new
     * mailbox.
     *
     * @param <T> the type of the messages
     */
    public static final class Builder<T> {
        private final IoEventLoop loop;
        private final Consumer<? super T> handler;
        private YSocketPair.Kind kind = YSocketPair.Kind.EVENTFD;
        private int batchLimit = DEFAULT_BATCH_LIMIT;
        private BiConsumer<? super T, ? super Throwable> onHandlerFailure = LoopMailbox::logFailure;

        private Builder(IoEventLoop loop, Consumer<? super T> handler) {
            this.loop = Objects.requireNonNull(loop, "loop");
            this.handler = Objects.requireNonNull(handler, "handler");
        }

        /**
         * Chooses the descriptor of the {@link YSocketPair} on an epoll loop (ignored on NIO,
         * whose signaler is a {@link NioSignaler}). Default: {@link YSocketPair.Kind#EVENTFD}.
         *
         * @param kind eventfd or socketpair
         * @return this builder
         * @throws NullPointerException if {@code kind} is null
         */
        public Builder<T> socketKind(YSocketPair.Kind kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * Sets how many messages the loop delivers in one go before it lets its other work (its
         * sockets, its tasks) run; it then goes on in its next turn. The limit is checked after
         * each round of {@link YMailbox#check}, which takes every signalled pipe's whole batch,
         * so one go can exceed it by up to one round. Default {@link #DEFAULT_BATCH_LIMIT}.
         *
         * @param batchLimit messages per turn of the loop, {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if {@code batchLimit} is less than 1
         */
        public Builder<T> batchLimit(int batchLimit) {
            if (batchLimit < 1) {
                throw new IllegalArgumentException("batchLimit must be >= 1: " + batchLimit);
            }
            this.batchLimit = batchLimit;
            return this;
        }

        /**
         * Sets what is done, on the loop thread, with a message whose handler threw; the next
         * message is delivered afterwards either way. Default: logged at {@code WARN} through
         * Netty's {@code InternalLogger}, as Netty logs a failed task.
         *
         * @param onHandlerFailure receives the message and what the handler threw; if it throws
         *     in turn, that is logged and ignored
         * @return this builder
         * @throws NullPointerException if {@code onHandlerFailure} is null
         */
        public Builder<T> onHandlerFailure(BiConsumer<? super T, ? super Throwable> onHandlerFailure) {
            this.onHandlerFailure = Objects.requireNonNull(onHandlerFailure, "onHandlerFailure");
            return this;
        }

        /**
         * Opens the signaler and registers the mailbox with the loop. The registration itself
         * runs on the loop thread; {@link LoopMailbox#registrationFuture()} tells when it is done.
         *
         * @return the new mailbox; senders may send at once
         * @throws IllegalArgumentException if the loop is neither an epoll nor a NIO loop
         * @throws IllegalStateException if the loop refuses the registration (it is shut down)
         *     or the descriptors cannot be created
         */
        public LoopMailbox<T> register() {
            LoopMailbox<T> box = new LoopMailbox<>(this);
            box.start();
            return box;
        }
    }

    private static void logFailure(Object message, Throwable failure) {
        LOGGER.warn("A LoopMailbox handler raised an exception. Message: {}", message, failure);
    }

    private void start() {
        Future<IoRegistration> future;
        try {
            future = loop.register(handle);
        } catch (RuntimeException e) {
            finishing.set(true);
            finishClosed(); // nothing can have been sent yet: close the descriptors now
            if (e instanceof RejectedExecutionException) {
                throw new IllegalStateException("the event loop refused the mailbox (is it shut down?)", e);
            }
            throw e;
        }
        // Netty unregisters every handle when its loop shuts down (prepareToDestroy), except
        // when a shutdown with a zero quiet period lands between the loop's check for it and
        // its last confirmShutdown(): then the loop ends with the handle still registered. This
        // listener (run by Netty's global executor once the loop thread is gone) closes the
        // mailbox in that case; finish() runs once whoever calls it first.
        loop.terminationFuture().addListener(onLoopTerminated);
        // The promise belongs to the loop, so the listener runs on the loop thread.
        future.addListener(f -> onRegistration(future));
    }

    /** Loop thread: the registration is done (or failed). */
    private void onRegistration(Future<IoRegistration> future) {
        if (!future.isSuccess()) {
            registered.completeExceptionally(future.cause());
            finish();
            return;
        }
        IoRegistration r = future.getNow();
        registration = r;
        if (state != OPEN || loop.isShuttingDown()) {
            // Closed while the registration was pending, or the loop is on its way out (it may
            // not call prepareToDestroy again): undo it; unregistered() runs the close sequence.
            r.cancel();
            return;
        }
        registered.complete(null);
        // The first check arms the signaler (it starts unarmed) and delivers whatever was sent
        // before the registration was done.
        drain();
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
            Sender<T> s = new Sender<>(this, mailbox.newWriter());
            Sender<?>[] old = senders;
            Sender<?>[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = s;
            senders = grown;
            return s;
        }
    }

    /** Loop thread: the descriptor fired (it is registered without interest: never expected). */
    void onEvent() {
        if (state != CLOSED) {
            drain();
        }
    }

    /** Loop thread: the wake task queued by the first signal after a check found nothing. */
    private void onWake() {
        wake.woken(); // before the drain: its check may arm again
        if (state == CLOSED) {
            return;
        }
        wakeups = ++wakeupsOnLoop;
        drain();
    }

    /** Loop thread: delivers until a check finds nothing (and so re-arms), or the budget is spent. */
    private void drain() {
        if (draining || finishing.get()) {
            return;
        }
        draining = true;
        long before = deliveredOnLoop;
        try {
            int budget = batchLimit;
            for (;;) {
                // check() drains one round; a round that finds nothing and no fired id leaves
                // the signaler armed, so the next flush of any sender writes the descriptor.
                int n = mailbox.check(deliver);
                if (n == 0) {
                    return;
                }
                budget -= n;
                if (budget <= 0) {
                    // Not armed (this check found work), so the descriptor stays quiet: go on
                    // in a task after the loop's other work.
                    scheduleDrain();
                    return;
                }
            }
        } finally {
            draining = false;
            if (deliveredOnLoop != before) {
                delivered = deliveredOnLoop;
            }
        }
    }

    private void scheduleDrain() {
        if (drainScheduled) {
            return;
        }
        drainScheduled = true;
        try {
            if (loop instanceof SingleThreadEventLoop) {
                // After this turn's tasks, queue the drain for the next turn: it then runs after
                // the loop's next I/O pass. (A task that queued itself again directly would run
                // within the same runAllTasks, which checks its time budget only every 64 tasks
                // and, during a shutdown, runs until the queue is empty: it would starve the
                // sockets, or never let the shutdown finish while senders keep sending.)
                ((SingleThreadEventLoop) loop).executeAfterEventLoopIteration(requeueTask);
            } else {
                loop.execute(drainTask);
            }
        } catch (RejectedExecutionException e) {
            // The loop is shut down: the close sequence (unregistered(), or the loop's
            // termination) delivers what is left.
            drainScheduled = false;
        }
    }

    private void requeue() {
        try {
            loop.execute(drainTask); // from the loop thread: a queue offer, no wake-up
        } catch (RejectedExecutionException e) {
            drainScheduled = false; // shut down: the close sequence delivers what is left
        }
    }

    private void runDrainTask() {
        drainScheduled = false;
        drain();
    }

    private void deliver(T message) {
        deliveredOnLoop++;
        try {
            handler.accept(message);
        } catch (Throwable t) {
            try {
                onHandlerFailure.accept(message, t);
            } catch (Throwable u) {
                u.addSuppressed(t);
                LOGGER.warn("A LoopMailbox failure handler raised an exception.", u);
            }
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
            requestCancel();
        }
        return closeFuture();
    }

    private void requestCancel() {
        if (loop.inEventLoop() && !draining) {
            cancelOnLoop();
            return;
        }
        try {
            loop.execute(cancelTask);
        } catch (RejectedExecutionException e) {
            // The loop is shutting down or down. While it runs, its prepareToDestroy cancels every
            // registration; once it has terminated nothing else can touch the mailbox.
            if (loop.isTerminated()) {
                finish();
            }
        }
    }

    /** Loop thread. */
    private void cancelOnLoop() {
        IoRegistration r = registration;
        if (r == null) {
            return; // the registration is pending: onRegistration sees CLOSING and cancels it
        }
        // epoll: epoll_ctl(DEL), then handle.unregistered() -> finish(), on this thread.
        // NIO: key.cancel(), then handle.unregistered() -> finish(), on this thread.
        // false: already cancelled (group shutdown), and finish() has run.
        r.cancel();
    }

    /** Netty: the handle is unregistered (removed from the poller); no more events come. */
    void onUnregistered() {
        if (loop.inEventLoop()) {
            finish();
            return;
        }
        // NIO's registration may be cancelled on a foreign thread: move to the loop thread,
        // where the handler runs.
        try {
            loop.execute(this::finish);
        } catch (RejectedExecutionException e) {
            finish(); // the loop is down: no handler call can run concurrently any more
        }
    }

    /**
     * The close sequence, once: refuse senders, wait for the calls in progress, deliver the rest,
     * close the descriptors. Runs on the loop thread, or, if the loop terminated without
     * unregistering the handle, on the thread that completes the loop's termination future (the
     * loop thread has ended then, and its last writes happen-before that completion).
     */
    private void finish() {
        if (draining && loop.inEventLoop()) {
            // Unregistered from inside our own drain (a handler that made the loop cancel it):
            // the pipes cannot be read re-entrantly, so finish right after this drain.
            loop.execute(this::finish);
            return;
        }
        if (!finishing.compareAndSet(false, true)) {
            return;
        }
        STATE.compareAndSet(this, OPEN, CLOSING); // group shutdown: nobody called close()
        awaitSenders();
        long before = deliveredOnLoop;
        try {
            // No sender is inside a call now and none can enter, so the pipes hold exactly the
            // accepted messages not yet delivered: each flushed one is in a pipe that is awake or
            // whose id is fired, and check() visits both until a round finds nothing.
            while (mailbox.check(deliver) > 0) {
                // keep draining
            }
        } finally {
            if (deliveredOnLoop != before) {
                delivered = deliveredOnLoop;
            }
            finishClosed();
        }
    }

    private void finishClosed() {
        loop.terminationFuture().removeListener(onLoopTerminated);
        try {
            signaler.close(); // the one close of the descriptors (after the poller let go of them)
        } catch (IOException | RuntimeException e) {
            LOGGER.warn("Closing the signaler of {} failed.", this, e);
        }
        state = CLOSED;
        registered.completeExceptionally(new IllegalStateException("closed before it was registered"));
        closed.complete(null);
    }

    /** Waits until no sender is between its entry check and its exit (CLOSING is already set). */
    private void awaitSenders() {
        Sender<?>[] all;
        synchronized (sendersLock) {
            all = senders;
        }
        for (Sender<?> s : all) {
            int spins = 0;
            while (s.busy()) {
                // A sender call is a few writes and at most one non-blocking write(2): short,
                // unless its thread is descheduled.
                if (++spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }

    IllegalStateException closedException() {
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
     * Returns how many times the loop was woken for this mailbox: the number of readiness events
     * of its descriptor that the loop handled. Messages drained by a continuation task (after
     * {@link Builder#batchLimit}) or at the first check after registration do not count.
     *
     * @return the number of wake-ups so far
     */
    public long wakeups() {
        return wakeups;
    }

    /**
     * Returns how many messages have been handed to the handler (including those whose handler
     * threw), as of the end of the loop's last drain.
     *
     * <p>The count lags: the loop counts in a field of its own and publishes the total once per
     * drain (a drain runs until a look finds nothing or {@link Builder#batchLimit} messages are
     * delivered), when that drain ends. So the messages of the drain in progress are not counted
     * yet: read from a handler, or from another thread right after a handler call, it can be
     * lower by up to a drain's worth. After {@link #closeFuture()} completes it is exact. For an
     * exact count at a given message, count in the handler.
     *
     * @return the number of messages delivered by the drains that have ended
     */
    public long delivered() {
        return delivered;
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
     * @return transport, state and counters
     */
    @Override
    public String toString() {
        int s = state;
        return "LoopMailbox[" + transport + ", " + (s == OPEN ? "open" : s == CLOSING ? "closing" : "closed")
                + ", senders=" + senders.length + ", delivered=" + delivered + ", wakeups=" + wakeups + "]";
    }

    /**
     * One application thread's way into a {@link LoopMailbox}: a pipe of its own. Used by one
     * thread at a time; any number of senders may send concurrently.
     *
     * @param <T> the type of the messages
     */
    public static final class Sender<T> {

        private static final VarHandle IN_CALL;

        static {
            try {
                IN_CALL = MethodHandles.lookup().findVarHandle(Sender.class, "inCall", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final LoopMailbox<T> box;
        private final YMailbox.Writer<T> writer;
        /**
         * 1 while a call is between its entry check and its exit. Written only by the sender's
         * thread; read by the closer.
         */
        private volatile int inCall;

        Sender(LoopMailbox<T> box, YMailbox.Writer<T> writer) {
            this.box = box;
            this.writer = writer;
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
                writer.send(message);
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
                writer.write(message);
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
                writer.flush();
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

        private void enter() {
            // Dekker with the closer: this volatile store, then the volatile load of the state;
            // the closer stores CLOSING, then loads inCall (awaitSenders). Volatile accesses are
            // totally ordered, so either this load sees CLOSING and the call backs out before
            // touching the pipe, or the closer sees inCall == 1 and waits for exit().
            inCall = 1;
            if (box.state != OPEN) {
                IN_CALL.setRelease(this, 0);
                throw box.closedException();
            }
        }

        private void exit() {
            // Release: the pipe writes of this call happen-before the closer's acquiring read of 0.
            IN_CALL.setRelease(this, 0);
        }

        boolean busy() {
            return inCall != 0; // volatile read: acquires exit()'s release
        }
    }
}
