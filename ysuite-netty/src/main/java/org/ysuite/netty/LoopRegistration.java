package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.nio.NioIoHandle;
import io.netty.channel.nio.NioIoOps;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.io.Closeable;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.ysuite.NioSignaler;
import org.ysuite.PollableSignaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YSocketPair;

/**
 * A signaler's descriptor registered with a Netty 4.2 event loop for its owner's whole life, and
 * the close sequence that Netty's calls and the owner's own close lead to: the part that a
 * {@link LoopMailbox} and a {@link WriterMailbox} share.
 *
 * <p>The descriptor is a {@link YSocketPair} on an epoll loop (an {@code EpollIoHandle}), a
 * {@link NioSignaler}'s pipe on a NIO loop (a {@code NioIoHandle}); any other loop is refused.
 * With {@code readInterest} the descriptor is registered for readability (level-triggered
 * {@code EPOLLIN}, {@code OP_READ}) once the registration is done, and each readiness event calls
 * {@link Owner#ready()}; without it, it is registered with no interest and serves only to tie the
 * owner's life to the loop's (Netty unregisters it when the loop shuts down).
 *
 * <p>The close sequence runs exactly once, whoever asks first: {@link #cancel()} (any thread), the
 * loop's shutdown (Netty unregisters every handle: {@code unregistered()}, on the loop thread),
 * a failed registration, or the loop's termination without unregistering (a shutdown with a zero
 * quiet period that lands between the loop's check for it and its last {@code confirmShutdown()};
 * then it runs on the thread that completes the loop's termination future, after the loop thread
 * has ended). It calls {@link Owner#closing()}, closes the descriptor (after Netty let go of it),
 * then calls {@link Owner#closed()}.
 *
 * <p>Threads: {@link #start()} and {@link #cancel()} from any thread; {@link Owner#registered()},
 * {@link Owner#ready()} and the close sequence on the loop thread (but for the termination case).
 */
final class LoopRegistration {

    /** What the owner does at each step; every method but {@link #isClosing()} runs once at most. */
    interface Owner {
        /** Loop thread: the registration is done (and armed for readability, if asked). */
        void registered();

        /** Loop thread: the descriptor is readable (only with read interest). */
        void ready();

        /** Netty closes the handle (loop shutdown): the owner's own close. */
        void closeRequested();

        /** Whether the owner is closing: a registration that completes then is undone. */
        boolean isClosing();

        /**
         * Loop thread: whether the owner is inside a call that cannot be re-entered (a drain): the
         * close sequence is then moved to a task of its own.
         */
        boolean busy();

        /** The close sequence's work before the descriptor closes. */
        void closing();

        /** The descriptor is closed; the last step. */
        void closed();
    }

    private static final InternalLogger LOGGER = InternalLoggerFactory.getInstance(LoopRegistration.class);

    private final IoEventLoop loop;
    private final Owner owner;
    private final Closeable descriptor;
    private final PollableSignaler signaler;
    private final IoHandle handle;
    /** The interest submitted once registered, or null for none. */
    private final IoOps readOps;
    private final String transport;

    private final Runnable cancelTask = this::cancelOnLoop;
    private final Runnable finishTask = this::finish;
    private final GenericFutureListener<Future<Object>> onLoopTerminated = f -> finish();
    /** Set once: whoever wins runs the close sequence. */
    private final AtomicBoolean finishing = new AtomicBoolean();

    /** Loop thread only. */
    private IoRegistration registration;

    /**
     * Opens the descriptor for {@code loop}'s transport; {@link #start()} registers it.
     *
     * @param kind the descriptor on an epoll loop (ignored on NIO)
     * @param readInterest register for readability, or with no interest
     * @throws IllegalArgumentException if {@code loop} is neither an epoll nor a NIO loop
     */
    LoopRegistration(IoEventLoop loop, YSocketPair.Kind kind, boolean readInterest, Owner owner) {
        this.loop = loop;
        this.owner = owner;
        MailboxHandle.Owner calls = new MailboxHandle.Owner(this::onReady, this::onUnregistered, owner::closeRequested);
        if (loop.isCompatible(NioIoHandle.class)) {
            NioSignaler s = new NioSignaler(WaitPolicy.purePark());
            this.descriptor = s;
            this.signaler = s;
            this.handle = new NioMailboxHandle(calls, s.channel());
            this.readOps = readInterest ? NioIoOps.READ : null;
            this.transport = "nio";
        } else if (EpollMailboxHandle.isCompatible(loop)) {
            YSocketPair s = new YSocketPair(kind, WaitPolicy.purePark());
            this.descriptor = s;
            this.signaler = s;
            this.handle = new EpollMailboxHandle(calls, s.fd());
            this.readOps = readInterest ? EpollMailboxHandle.readOps() : null;
            this.transport = "epoll/" + kind.name().toLowerCase(Locale.ROOT);
        } else {
            throw new IllegalArgumentException("loop must be an epoll or NIO IoEventLoop, not "
                    + loop.getClass().getName() + " (io_uring is not supported)");
        }
    }

    /** The descriptor's signaler: fire it to make the descriptor readable (with read interest). */
    PollableSignaler signaler() {
        return signaler;
    }

    /** "epoll/eventfd", "epoll/socketpair" or "nio". */
    String transport() {
        return transport;
    }

    /** True once the close sequence has begun (or is done). */
    boolean isFinishing() {
        return finishing.get();
    }

    /**
     * Registers the descriptor; the registration itself completes on the loop thread.
     *
     * @throws IllegalStateException if the loop refuses it (it is shut down); the descriptor is
     *     closed then, and {@link Owner#closed()} has run
     */
    void start() {
        Future<IoRegistration> future;
        try {
            future = loop.register(handle);
        } catch (RuntimeException e) {
            finishing.set(true);
            closeDescriptor(); // nothing can have used it yet
            if (e instanceof RejectedExecutionException) {
                throw new IllegalStateException("the event loop refused the registration (is it shut down?)", e);
            }
            throw e;
        }
        // Netty unregisters every handle when its loop shuts down (prepareToDestroy), except
        // when a shutdown with a zero quiet period lands between the loop's check for it and
        // its last confirmShutdown(): then the loop ends with the handle still registered. This
        // listener (run by Netty's global executor once the loop thread is gone) finishes in
        // that case; finish() runs once whoever calls it first.
        loop.terminationFuture().addListener(onLoopTerminated);
        // The promise belongs to the loop, so the listener runs on the loop thread.
        future.addListener(f -> onRegistration(future));
    }

    /** Loop thread: the registration is done (or failed). */
    private void onRegistration(Future<IoRegistration> future) {
        if (!future.isSuccess()) {
            finish();
            return;
        }
        IoRegistration r = future.getNow();
        registration = r;
        if (owner.isClosing() || loop.isShuttingDown()) {
            // Closed while the registration was pending, or the loop is on its way out (it may
            // not call prepareToDestroy again): undo it; unregistered() runs the close sequence.
            r.cancel();
            return;
        }
        if (readOps != null) {
            r.submit(readOps);
        }
        owner.registered();
    }

    private void onReady() {
        if (!finishing.get()) {
            owner.ready(); // else: an event already collected in the poller's batch at the close
        }
    }

    /**
     * Any thread: cancels the registration on the loop; the close sequence follows. Idempotent.
     */
    void cancel() {
        if (loop.inEventLoop() && !owner.busy()) {
            cancelOnLoop();
            return;
        }
        try {
            loop.execute(cancelTask);
        } catch (RejectedExecutionException e) {
            // The loop is shutting down or down. While it runs, its prepareToDestroy cancels every
            // registration; once it has terminated nothing else can touch the owner.
            if (loop.isTerminated()) {
                finish();
            }
        }
    }

    /** Loop thread. */
    private void cancelOnLoop() {
        IoRegistration r = registration;
        if (r == null) {
            return; // pending: onRegistration sees the owner closing and cancels it
        }
        // epoll: epoll_ctl(DEL), then handle.unregistered() -> finish(), on this thread.
        // NIO: key.cancel(), then handle.unregistered() -> finish(), on this thread.
        if (!r.cancel()) {
            finish(); // cancelled already (the loop's shutdown); finish() runs once anyway
        }
    }

    /** Netty: the handle is unregistered (removed from the poller); no more events come. */
    private void onUnregistered() {
        if (loop.inEventLoop()) {
            finish();
            return;
        }
        // NIO's registration may be cancelled on a foreign thread: move to the loop thread.
        try {
            loop.execute(finishTask);
        } catch (RejectedExecutionException e) {
            finish(); // the loop is down: nothing can run on it concurrently any more
        }
    }

    /**
     * The close sequence, once. On the loop thread, or, if the loop terminated without
     * unregistering the handle, on the thread that completes the loop's termination future (the
     * loop thread has ended then, and its last writes happen-before that completion).
     */
    private void finish() {
        if (loop.inEventLoop() && owner.busy()) {
            // Unregistered from inside the owner's own drain (a handler that made the loop cancel
            // it): finish right after that drain.
            loop.execute(finishTask);
            return;
        }
        if (!finishing.compareAndSet(false, true)) {
            return;
        }
        try {
            owner.closing();
        } finally {
            closeDescriptor();
        }
    }

    private void closeDescriptor() {
        loop.terminationFuture().removeListener(onLoopTerminated);
        try {
            descriptor.close(); // the one close (after the poller let go of it)
        } catch (IOException | RuntimeException e) {
            LOGGER.warn("Closing the descriptor of {} failed.", transport, e);
        }
        owner.closed();
    }
}
