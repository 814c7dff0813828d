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
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.ysuite.NioSignaler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.PollableSignaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YSocketPair;

/**
 * The writers' way to wake a {@link MessageStream}'s event loop: one mailbox of the writers' own
 * outbound pipes, wired to one signaler whose descriptor the loop polls (an eventfd on epoll, a
 * pipe on NIO). Writer {@code i} fires id {@code i % 256} when its flush finds the loop asleep on
 * its pipe; the loop takes the fired ids and hands the pipes of each to the {@link FrameEncoder}.
 * No message or pipe travels through a second pipe: the signal is the only hand-off.
 *
 * <p>Ordering: a pipe is put in {@link #pipes} (a volatile store) before its writer can flush it;
 * the loop reads the array after it took the writer's signal, which happens-after the signal
 * call ({@link PollableSignaler}), so it sees the pipe. The signaler starts unarmed: signals fired
 * before the registration is done set bits only, and the first check after it takes them.
 *
 * <p>Closing ({@link #close()}, from any thread): the registration is cancelled on the loop,
 * Netty's {@code unregistered()} closes the signaler's descriptors once; if the loop terminates
 * without unregistering, its termination does. A writer's signal after that throws
 * {@link IllegalStateException} (the signaler's own guarantee: no write lands on a reused
 * descriptor number).
 */
final class WriterMailbox implements IntConsumer {

    private static final InternalLogger LOGGER = InternalLoggerFactory.getInstance(WriterMailbox.class);

    private final IoEventLoop loop;
    private final FrameEncoder encoder;
    private final int window;
    private final Supplier<? extends WaitPolicy> writerPolicies;
    private final PollableSignaler signaler;
    private final int capacity;
    private final IoHandle handle;
    private final IoOps readOps;

    private final Object lock = new Object();
    /** Copy-on-write under {@link #lock}; {@code null} once closed. */
    private volatile OutboundPipe[] pipes = new OutboundPipe[0];
    private volatile boolean closing;
    private final AtomicBoolean finished = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final GenericFutureListener<Future<Object>> onLoopTerminated = f -> finish();

    // Loop thread only.
    private IoRegistration registration;
    private long wakeupsOnLoop;
    /** Copy of the loop's count for other threads (single writer: the loop). */
    private volatile long wakeups;

    WriterMailbox(IoEventLoop loop, FrameEncoder encoder, int window, Supplier<? extends WaitPolicy> writerPolicies) {
        this.loop = loop;
        this.encoder = encoder;
        this.window = window;
        this.writerPolicies = writerPolicies;
        MailboxHandle.Owner owner = new MailboxHandle.Owner(this::onEvent, this::finishOnLoop, this::close);
        if (loop.isCompatible(NioIoHandle.class)) {
            NioSignaler s = new NioSignaler(WaitPolicy.purePark());
            this.signaler = s;
            this.handle = new NioMailboxHandle(owner, s.channel());
            this.readOps = NioIoOps.READ;
        } else if (EpollMailboxHandle.isCompatible(loop)) {
            YSocketPair s = new YSocketPair(YSocketPair.Kind.EVENTFD, WaitPolicy.purePark());
            this.signaler = s;
            this.handle = new EpollMailboxHandle(owner, s.fd());
            this.readOps = EpollMailboxHandle.readOps();
        } else {
            throw new IllegalArgumentException("the channel's loop must be an epoll or NIO IoEventLoop, not "
                    + loop.getClass().getName());
        }
        this.capacity = signaler.capacity();
        start();
    }

    private void start() {
        Future<IoRegistration> future;
        try {
            future = loop.register(handle);
        } catch (RuntimeException e) {
            finished.set(true);
            closeSignaler();
            throw new IllegalStateException("the event loop refused the stream's mailbox (is it shut down?)", e);
        }
        loop.terminationFuture().addListener(onLoopTerminated);
        future.addListener(f -> onRegistration(future)); // the loop's promise: runs on the loop
    }

    private void onRegistration(Future<IoRegistration> future) {
        if (!future.isSuccess()) {
            finish();
            return;
        }
        IoRegistration r = future.getNow();
        registration = r;
        if (closing || loop.isShuttingDown()) {
            r.cancel(); // unregistered() finishes
            return;
        }
        r.submit(readOps);
        takeSignals(); // arms the signaler; takes what was fired before the registration
    }

    /**
     * Adds a writer's pipe, its reader (the loop) asleep so that its first flush signals.
     *
     * @throws IllegalStateException if the mailbox is closed
     */
    OutboundPipe newPipe() {
        // Each writer thread waits for room under a policy of its own (an adaptive one keeps the
        // state of its waiting thread); the user's supplier runs outside the lock.
        WaitPolicy mine = Objects.requireNonNull(writerPolicies.get(), "writerWaitPolicy gave null");
        synchronized (lock) {
            OutboundPipe[] old = pipes;
            if (old == null) {
                return null;
            }
            OffHeapYPipe pipe = new OffHeapYPipe(window, WaitPolicy.purePark(), mine);
            // A new pipe's reader counts as awake (the ypipe protocol): put it to sleep, on the
            // reader side, before any write. The loop reads the pipe only after taking a signal,
            // which happens-after this (through the volatile store below and the signal).
            pipe.checkRead();
            OutboundPipe p = new OutboundPipe(pipe, old.length % capacity);
            OutboundPipe[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = p;
            pipes = grown;
            return p;
        }
    }

    /** Writer: its flush found the loop asleep on {@code p}. */
    void signal(OutboundPipe p) {
        signaler.signal(p.id);
    }

    /** Every pipe, or an empty array once closed. */
    OutboundPipe[] pipes() {
        OutboundPipe[] all = pipes;
        return all == null ? new OutboundPipe[0] : all;
    }

    /** Loop: the descriptor fired. */
    private void onEvent() {
        if (finished.get()) {
            return;
        }
        wakeups = ++wakeupsOnLoop;
        takeSignals();
    }

    /** Loop: takes fired ids until a check finds none; that check re-arms the descriptor. */
    private void takeSignals() {
        while (!finished.get() && signaler.check(this) > 0) {
            // each fired id went to accept()
        }
    }

    /** Loop: id fired; every pipe of it goes to the encoder (one that is empty costs one look). */
    @Override
    public void accept(int id) {
        OutboundPipe[] all = pipes;
        if (all == null) {
            return;
        }
        for (int i = id; i < all.length; i += capacity) {
            encoder.wake(all[i]);
        }
    }

    long wakeups() {
        return wakeups;
    }

    /**
     * Closes every writer's pipe (a writer waiting for room wakes up and throws) and the mailbox;
     * the descriptors are closed on the loop. Any thread; idempotent.
     */
    void close() {
        OutboundPipe[] all;
        synchronized (lock) {
            all = pipes;
            pipes = null;
            closing = true;
        }
        if (all == null) {
            return;
        }
        for (OutboundPipe p : all) {
            p.pipe.close();
        }
        if (loop.inEventLoop()) {
            cancelOnLoop();
            return;
        }
        try {
            loop.execute(this::cancelOnLoop);
        } catch (RejectedExecutionException e) {
            if (loop.isTerminated()) {
                finish(); // nothing runs on the loop any more
            }
            // else: the loop's shutdown cancels every registration, or its termination finishes
        }
    }

    private void cancelOnLoop() {
        IoRegistration r = registration;
        if (r == null) {
            return; // pending: onRegistration sees closing and cancels
        }
        if (!r.cancel()) {
            finish(); // cancelled already (the loop's shutdown)
        }
    }

    private void finishOnLoop() {
        if (loop.inEventLoop()) {
            finish();
            return;
        }
        try {
            loop.execute(this::finish);
        } catch (RejectedExecutionException e) {
            finish();
        }
    }

    /** Closes the descriptors, once. */
    private void finish() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        loop.terminationFuture().removeListener(onLoopTerminated);
        closeSignaler();
        closed.complete(null);
    }

    private void closeSignaler() {
        try {
            ((Closeable) signaler).close();
        } catch (IOException | RuntimeException e) {
            LOGGER.warn("Closing the signaler of a MessageStream failed.", e);
        }
    }

    /** Completed once the descriptors are closed. */
    CompletableFuture<Void> closeFuture() {
        return closed;
    }
}
