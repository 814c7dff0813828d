package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.ysuite.WaitPolicy;
import org.ysuite.YPipe;

/**
 * The loop side of a {@link LoopMailbox}: each sender's {@link YPipe}, and the task that drains it
 * on the loop, queued through Netty's own wake-up.
 *
 * <h2>The wake-up</h2>
 * The pipe tells its writer when its reader (the loop) went to sleep on it: a flush that finds it
 * asleep returns {@code false}, once per sleep. That writer then queues the pipe's own task,
 * preallocated, with {@code loop.execute(pipe)}: Netty's task queue and Netty's wake-up, which
 * writes the loop's eventfd only if the loop is blocked in {@code epoll_wait}/{@code select}
 * ({@code nextWakeupNanos}), and which the loop never reads back. This is the path of
 * {@code execute(runnable)} minus its allocation, taken once per sleep of the pipe instead of once
 * per message: while the loop keeps up, a send is the pipe's write and flush only.
 *
 * <p>So at most one task per pipe is outstanding: only the task puts the pipe to sleep (its last
 * {@code readBatch}, which found nothing), and only a flush that finds it asleep queues the task.
 * The task happens-after the flush that queued it ({@code execute} hands it over through Netty's
 * queue), and the pipe's own protocol makes every flushed message visible to its reader.
 *
 * <h2>One more look before the pipe sleeps</h2>
 * A task that delivered a few messages (fewer than {@link #LOOK_AGAIN_BELOW}) does not put the
 * pipe to sleep: it looks again in the loop's next turn, and only a look that finds nothing swaps
 * the pipe to asleep. A sender that answers the loop's last delivery (a request and its response,
 * a producer paced by the loop) then finds the pipe awake and queues no task: the loop takes the
 * message in that turn, as {@code execute}'s loop takes a task queued before it went back to
 * {@code epoll_wait}. The cost is one turn of the loop per burst, a non-blocking I/O pass
 * ({@code epoll_wait} with no timeout) and one look at the pipe: the loop blocks again once a
 * whole turn brought nothing. A task that delivered a larger batch drains the pipe and puts it to
 * sleep at once, as a dense stream's wake-up is shared by many messages.
 *
 * <h2>Counts</h2>
 * The loop counts deliveries in {@code deliveredOnLoop} (plain) and publishes the total once per
 * drain; it also counts each pipe's deliveries (at the end of each drain of it), which tells it the
 * number of every message it hands over, so it can find the senders' hand-off samples (see
 * {@link SendCounts}) with one comparison per message: {@code sampleAt} is the value of
 * {@code deliveredOnLoop} at the drained pipe's next sample point. Its statistics are in
 * {@link HandOffStats}.
 *
 * <h2>Budget</h2>
 * A task delivers at most the batch limit, then goes on in its next turn, after the loop's next I/O
 * pass (a task queued at the end of this turn, {@code executeAfterEventLoopIteration}: a task that
 * queued itself directly would run again within the same {@code runAllTasks}, which checks its
 * time budget only every 64 tasks and, during a shutdown, runs until the queue is empty). The
 * look of the section above is such a continuation too. The pipe stays awake meanwhile, so its
 * writer queues nothing.
 *
 * @param <T> the type of the messages
 */
final class LoopDrain<T> {

    /**
     * A turn that delivered fewer messages than this looks again in the loop's next turn before
     * the pipe sleeps. A larger batch means the writer is well ahead of the loop: its next wake-up
     * is shared by as many messages, and a loop that sleeps gives the CPU back to the writers
     * (a loop that kept looking at a dense stream would poll without end).
     */
    static final int LOOK_AGAIN_BELOW = 64;

    private static final InternalLogger LOGGER = InternalLoggerFactory.getInstance(LoopMailbox.class);

    private final IoEventLoop loop;
    private final Consumer<? super T> handler;
    private final BiConsumer<? super T, ? super Throwable> onHandlerFailure;
    private final int batchLimit;
    /** True once the close sequence has begun: tasks then leave the pipes to its final drain. */
    private final BooleanSupplier stopped;
    /** Calls the handler for one message; never throws, so a failure cannot cut a batch short. */
    private final Consumer<T> deliver = this::deliver;

    // Loop-thread state.
    private boolean registered;
    private boolean draining;
    private long deliveredOnLoop;
    private long wakeupsOnLoop;
    /** The sender counts of the pipe being drained; null between drains. */
    private SendCounts sampling;
    /** During a drain: deliveredOnLoop minus the drained pipe's deliveries, so the difference is its message number. */
    private long pipeBase;
    /** During a drain: deliveredOnLoop at the drained pipe's next sample point; -1 (never reached) between drains. */
    private long sampleAt = -1;

    // Copies of the loop-thread counters for other threads: written by the loop thread only
    // (single writer, so a plain increment of the loop's own copy and a volatile store suffice).
    private volatile long delivered;
    private volatile long wakeups;
    private final HandOffStats handOff = new HandOffStats();
    /** The hand-off sample interval, a power of two. */
    private final int sampleInterval;

    LoopDrain(IoEventLoop loop, Consumer<? super T> handler,
            BiConsumer<? super T, ? super Throwable> onHandlerFailure, int batchLimit, int sampleInterval,
            BooleanSupplier stopped) {
        this.loop = loop;
        this.handler = handler;
        this.onHandlerFailure = onHandlerFailure;
        this.batchLimit = batchLimit;
        this.sampleInterval = sampleInterval;
        this.stopped = stopped;
    }

    /** Any thread: a new sender's pipe, its reader asleep so that its first flush queues the task. */
    Pipe newPipe() {
        return new Pipe(new SendCounts(sampleInterval));
    }

    /** One sender's pipe and the loop task that drains it. */
    final class Pipe implements Runnable {
        final YPipe<T> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());
        /** The sender's counts and hand-off stamp. */
        final SendCounts counts;
        /** Loop thread: this pipe's messages delivered, as of the end of its last drain. */
        private long deliveredFromPipe;
        /** Loop thread: a continuation after the budget is queued. */
        private boolean continuing;
        /** Loop thread: the task ran before the registration was done; the pipe is left awake. */
        private boolean deferred;
        private final Runnable requeue = this::requeue;

        Pipe(SendCounts counts) {
            this.counts = counts;
            // A new pipe's reader counts as awake: put it to sleep on the reader side before any
            // write. The loop reads the pipe only after a happens-before edge from this thread:
            // the writer's task (this object reaches the writer through the caller's own hand-off),
            // or the final drain (through LoopMailbox's volatile list of senders).
            pipe.checkRead();
        }

        /** Sender thread: its flush found the loop asleep on this pipe. */
        void wake() {
            try {
                loop.execute(this);
            } catch (RejectedExecutionException e) {
                // The loop is shut down: the close sequence drains every pipe once no sender call
                // is in progress, this one included.
            }
        }

        /** Loop thread: woken by the writer, or a continuation. */
        @Override
        public void run() {
            if (stopped.getAsBoolean()) {
                return; // the close sequence drains
            }
            if (!registered) {
                deferred = true; // the registration drains it (pipe left awake: no more tasks)
                return;
            }
            if (continuing) {
                continuing = false;
            } else {
                wakeups = ++wakeupsOnLoop;
            }
            drain(this);
        }

        private void requeue() {
            try {
                loop.execute(this); // from the loop thread: a queue offer, no wake-up
            } catch (RejectedExecutionException e) {
                continuing = false; // shut down: the close sequence delivers what is left
            }
        }
    }

    /** Loop thread: the registration is done; drains what was sent before it. */
    void registered(Pipe[] pipes) {
        registered = true;
        for (Pipe p : pipes) {
            if (p.deferred) {
                p.deferred = false;
                drain(p);
            }
        }
    }

    /**
     * Loop thread: delivers until the pipe is empty or the budget is spent. A turn that delivered
     * fewer than {@link #LOOK_AGAIN_BELOW} messages leaves the pipe awake and looks once more in
     * the loop's next turn; any other turn ends with the look that puts the pipe to sleep (see the
     * class doc).
     */
    private void drain(Pipe p) {
        if (draining) {
            return; // cannot happen: a handler never runs the loop's tasks
        }
        draining = true;
        long before = deliveredOnLoop;
        beginPipe(p);
        try {
            int budget = batchLimit;
            int n;
            while ((n = p.pipe.readBatchAwake(deliver)) > 0) { // never sleeps
                budget -= n;
                if (budget <= 0) {
                    continueLater(p); // the pipe stays awake: its writer queues nothing meanwhile
                    return;
                }
            }
            int taken = batchLimit - budget;
            if (taken > 0 && taken < LOOK_AGAIN_BELOW) {
                continueLater(p); // one more look next turn, the pipe awake
                return;
            }
            // Nothing this turn, or a dense stream: a readBatch that finds nothing puts the pipe
            // to sleep, and the writer's next flush queues the task again. A flush that landed
            // since the look above is taken here instead (the same CAS decides).
            while ((n = p.pipe.readBatch(deliver)) > 0) {
                budget -= n;
                if (budget <= 0) {
                    continueLater(p);
                    return;
                }
            }
        } finally {
            endPipe(p);
            draining = false;
            if (deliveredOnLoop != before) {
                delivered = deliveredOnLoop;
            }
        }
    }

    private void continueLater(Pipe p) {
        if (p.continuing) {
            return;
        }
        p.continuing = true;
        try {
            if (loop instanceof SingleThreadEventLoop) {
                // After this turn's tasks, queue the drain for the next turn: it then runs after
                // the loop's next I/O pass (see the class doc).
                ((SingleThreadEventLoop) loop).executeAfterEventLoopIteration(p.requeue);
            } else {
                loop.execute(p);
            }
        } catch (RejectedExecutionException e) {
            // The loop is shut down: the close sequence delivers what is left.
            p.continuing = false;
        }
    }

    /** Loop thread (or the termination thread once the loop has ended): the close sequence's drain. */
    void drainAll(Pipe[] pipes) {
        long before = deliveredOnLoop;
        try {
            // No sender is inside a call now and none can enter, so the pipes hold exactly the
            // accepted messages not yet delivered.
            for (Pipe p : pipes) {
                beginPipe(p);
                try {
                    while (p.pipe.readBatch(deliver) > 0) {
                        // keep draining
                    }
                } finally {
                    endPipe(p);
                }
            }
        } finally {
            if (deliveredOnLoop != before) {
                delivered = deliveredOnLoop;
            }
        }
    }

    /** Loop thread: inside a drain (a handler runs). */
    boolean draining() {
        return draining;
    }

    /** Loop thread: {@code p}'s messages are delivered next; finds its next sample point. */
    private void beginPipe(Pipe p) {
        sampling = p.counts;
        pipeBase = deliveredOnLoop - p.deliveredFromPipe;
        // the next message number n > deliveredFromPipe with (n & mask) == 0
        sampleAt = pipeBase + ((p.deliveredFromPipe | p.counts.mask()) + 1);
    }

    /** Loop thread: the drain of {@code p} ends. */
    private void endPipe(Pipe p) {
        p.deliveredFromPipe = deliveredOnLoop - pipeBase;
        sampling = null;
        sampleAt = -1;
    }

    /** Loop thread: the message just counted is a sample point of the drained pipe. */
    private void samplePoint() {
        long stamp = sampling.takeStamp(deliveredOnLoop - pipeBase);
        if (stamp != SendCounts.NO_STAMP) {
            handOff.record(stamp);
        }
        sampleAt += sampleInterval;
    }

    private void deliver(T message) {
        if (++deliveredOnLoop == sampleAt) {
            samplePoint(); // one in sampleInterval messages of a pipe
        }
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

    long delivered() {
        return delivered;
    }

    long wakeups() {
        return wakeups;
    }

    HandOffStats handOff() {
        return handOff;
    }
}
