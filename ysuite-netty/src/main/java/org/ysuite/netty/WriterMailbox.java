package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.YSocketPair;

/**
 * The writers' way to wake a {@link MessageStream}'s event loop: each writer's outbound pipe has a
 * preallocated task, and a writer whose flush finds the loop asleep on its pipe queues that task
 * with {@code loop.execute} (Netty writes its own eventfd only if the loop is blocked in its
 * poller). The task hands the pipe to the {@link FrameEncoder}, which drains it, with every other
 * pipe listed, into framed batches. A pipe wakes the loop once per sleep: until the loop's read
 * finds the pipe empty again, its reader counts as awake and the writer's flushes queue nothing.
 * No message or pipe travels through a second pipe, and no signaler is written or read.
 *
 * <p>Ordering: the writer's flush publishes its messages (the pipe's release store) before it
 * offers the task to the loop's task queue; that queue's hand-off is a happens-before edge (the
 * offer is a release, the loop's poll an acquire), so the task, and the encoder's read of the
 * pipe in it, see every message flushed before the task was queued. The task holds its pipe
 * itself: the loop needs no shared list to find it.
 *
 * <p>Life: a {@link LoopRegistration} registers a descriptor with no interest; it carries no
 * wake-up and ties the mailbox's life to the loop's close sequence (the loop's shutdown closes it
 * too). {@link #close()} (any thread, idempotent) closes every pipe, so that a writer's next call
 * throws {@link IllegalStateException} (which the stream turns into an {@code IOException}) and a
 * writer waiting for room wakes up, and then cancels the registration; {@link #closeFuture()}
 * completes once the descriptor is closed. A task that runs after the close finds the mailbox
 * closed and does nothing. A flush that the loop refuses (its group is shut down) throws
 * {@link IllegalStateException}.
 */
final class WriterMailbox {

    private final IoEventLoop loop;
    private final FrameEncoder encoder;
    /** Told when a writer's task runs (it learns whether lingering would have paid). */
    private final LoopLinger linger;
    private final int window;
    private final Supplier<? extends WaitPolicy> writerPolicies;
    private final LoopRegistration registration;

    private static final OutboundPipe[] NONE = new OutboundPipe[0];

    private final Object lock = new Object();
    /** Copy-on-write under {@link #lock}; {@code null} once closed. */
    private volatile OutboundPipe[] pipes = new OutboundPipe[0];
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    // Loop thread only.
    private long wakeupsOnLoop;
    /** Copy of the loop's count for other threads (single writer: the loop). */
    private volatile long wakeups;

    /** The stream's name for the pipes' events, or null; set before any pipe is made. */
    private String name;

    WriterMailbox(IoEventLoop loop, FrameEncoder encoder, LoopLinger linger, int window,
                  Supplier<? extends WaitPolicy> writerPolicies) {
        this.loop = loop;
        this.encoder = encoder;
        this.linger = linger;
        this.window = window;
        this.writerPolicies = writerPolicies;
        this.registration = new LoopRegistration(loop, YSocketPair.Kind.EVENTFD, false, new Lifecycle());
        registration.start();
    }

    /** The mailbox's answers to its registration's steps. */
    private final class Lifecycle implements LoopRegistration.Owner {
        @Override
        public void registered() {
            // Nothing waits for the registration: a task queued before it runs in order anyway.
        }

        @Override
        public void ready() {
            // registered with no interest: never called
        }

        @Override
        public void closeRequested() {
            close(); // the loop's shutdown
        }

        @Override
        public boolean isClosing() {
            return pipes == null;
        }

        @Override
        public boolean busy() {
            return false; // the close sequence only frees the descriptor: it may run anywhere on the loop
        }

        @Override
        public void closing() {
            close(); // the pipes are closed already unless the loop ended first
        }

        @Override
        public void closed() {
            closed.complete(null);
        }
    }

    /**
     * Adds a writer's pipe, its reader (the loop) asleep so that its first flush queues the task.
     *
     * @return the pipe, or {@code null} if the mailbox is closed
     */
    /** Names every later writer's pipe, for its Flight Recorder events; before any writer is made. */
    void name(String name) {
        this.name = name;
    }

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
            if (name != null) {
                pipe.named(name);
            }
            // A new pipe's reader counts as awake (the ypipe protocol): put it to sleep, on the
            // reader side, before any write. The loop reads the pipe only in a task queued after
            // a flush, which happens-after this (the writer got the pipe from this thread).
            pipe.checkRead();
            OutboundPipe p = new OutboundPipe(pipe, this::wakeOnLoop);
            OutboundPipe[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = p;
            pipes = grown;
            return p;
        }
    }

    /**
     * Writer: its flush found the loop asleep on {@code p}; queues the pipe's task.
     *
     * @throws IllegalStateException if the loop refuses the task (its group is shut down)
     */
    void signal(OutboundPipe p) {
        try {
            loop.execute(p.wake);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the stream's event loop is shut down", e);
        }
    }

    /** Loop: a writer's task; the pipe goes to the encoder. */
    private void wakeOnLoop(OutboundPipe p) {
        if (pipes == null) {
            return; // closed: the close drained what it could
        }
        wakeups = ++wakeupsOnLoop;
        linger.drained();
        encoder.wake(p);
    }

    /** Every pipe, or an empty array once closed. */
    OutboundPipe[] pipes() {
        OutboundPipe[] all = pipes;
        return all == null ? NONE : all;
    }

    long wakeups() {
        return wakeups;
    }

    /**
     * Closes every writer's pipe (a writer waiting for room wakes up and throws) and the mailbox;
     * the descriptor is closed on the loop. Any thread; idempotent.
     */
    void close() {
        OutboundPipe[] all;
        synchronized (lock) {
            all = pipes;
            pipes = null;
        }
        if (all == null) {
            return;
        }
        for (OutboundPipe p : all) {
            p.pipe.close();
        }
        registration.cancel();
    }

    /** Completed once the descriptor is closed. */
    CompletableFuture<Void> closeFuture() {
        return closed;
    }
}
