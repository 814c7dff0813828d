package org.ysuite.bench.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jctools.queues.MpscArrayQueue;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Window;
import org.ysuite.netty.LoopMailbox;

/**
 * Handing messages from application threads to one Netty 4.2 event loop, flush per message: a
 * ysuite {@link LoopMailbox} against Netty's own {@code eventLoop.execute(runnable)} and against a
 * JCTools MPSC queue woken through Netty ({@code execute} of one preallocated drain task, only when
 * the loop's drainer has gone idle).
 *
 * <h2>Methods (for the report)</h2>
 * <ul>
 *   <li>{@link #throughput1} / {@link #throughput2} ({@code Mode.Throughput}, ops/&micro;s; 1 or 2
 *       application threads): each operation hands one message to the loop and makes it visible
 *       at once. Each thread may be at most {@link Msg#WINDOW} messages ahead of the loop (a credit
 *       window; the unbounded hand-offs would otherwise grow without limit).</li>
 *   <li>{@link #worstCase1} / {@link #worstCase2} ({@code Mode.AverageTime}, ns/op; 1 or 2
 *       application threads): one message at a time per thread, each sent only after the loop
 *       handled the previous one, so the loop has usually gone back to sleep: the round trip app
 *       &rarr; loop &rarr; app of a hand-off that must wake the loop. The way back is the same for
 *       every hand-off: the handler's release store into the thread's {@link Window}, which the
 *       thread spins on (then yields), so only the way in differs.</li>
 * </ul>
 *
 * <h2>Params</h2>
 * <ul>
 *   <li>{@code handoff}: {@code ysuite} (a {@link LoopMailbox}: the message, a preallocated
 *       object, goes into the sender's own pipe, and a flush that finds the loop asleep on it
 *       queues the pipe's preallocated drain task with {@code execute}), {@code execute}
 *       ({@code loop.execute(() -> ...)}: one captured lambda allocated per message),
 *       {@code jctools} (a preallocated object offered to an {@link MpscArrayQueue}, the loop woken
 *       by {@code execute(drainTask)} when its drainer said it was going idle).</li>
 *   <li>{@code transport}: {@code epoll} (default) or {@code nio}: the loop's {@code IoHandler}.</li>
 * </ul>
 *
 * <h2>Counters ({@code @AuxCounters}, summed over the threads of an iteration)</h2>
 * <ul>
 *   <li>{@code messages}: messages handed off in the iteration;</li>
 *   <li>{@code loopWaits}: the loop's blocking waits ({@link CountingIoHandlerFactory}), each
 *       ended by a wake-up or a timer; <b>wake-ups per message = loopWaits / messages</b>;</li>
 *   <li>{@code mailboxWakeups}: for {@code ysuite}, how many drain tasks the senders queued
 *       because the loop was asleep on their pipe ({@link LoopMailbox#wakeups()}); 0 for the
 *       others.</li>
 * </ul>
 * Loop-wide counters are recorded by the first thread only, so the sums are not doubled. Run with
 * {@code -prof gc} for allocation ({@code gc.alloc.rate.norm}, B/op).
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class LoopHandOff {

    /** The hand-off under test. */
    @State(Scope.Benchmark)
    public static class Loop {
        /** ysuite, execute, jctools. */
        @Param({"ysuite", "execute", "jctools"})
        public String handoff;
        /** epoll or nio. */
        @Param({"epoll"})
        public String transport;

        CountingIoHandlerFactory factory;
        MultiThreadIoEventLoopGroup group;
        IoEventLoop loop;
        LoopMailbox<Producer> mailbox;
        MpscArrayQueue<Producer> queue;
        final AtomicInteger threads = new AtomicInteger();

        /** jctools: 1 when the loop's drainer went idle and must be woken by execute(drain). */
        volatile int idle = 1;
        static final VarHandle IDLE;

        static {
            try {
                IDLE = MethodHandles.lookup().findVarHandle(Loop.class, "idle", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final Runnable drain = this::drainQueue;

        /** Starts the loop and the hand-off. */
        @Setup(Level.Trial)
        public void setup() throws Exception {
            IoHandlerFactory real;
            switch (transport) {
                case "epoll":
                    real = EpollIoHandler.newFactory();
                    break;
                case "nio":
                    real = NioIoHandler.newFactory();
                    break;
                default:
                    throw new IllegalArgumentException("transport must be epoll or nio: " + transport);
            }
            factory = new CountingIoHandlerFactory(real);
            group = new MultiThreadIoEventLoopGroup(1, factory);
            loop = group.next();
            switch (handoff) {
                case "ysuite":
                    mailbox = LoopMailbox.register(loop, Producer::handled);
                    mailbox.registrationFuture().get(10, TimeUnit.SECONDS);
                    break;
                case "execute":
                    break;
                case "jctools":
                    queue = new MpscArrayQueue<>(4 * Msg.WINDOW);
                    break;
                default:
                    throw new IllegalArgumentException("handoff must be ysuite, execute or jctools: " + handoff);
            }
            loop.submit(() -> { }).get(10, TimeUnit.SECONDS); // the loop thread is up
        }

        /** Loop thread: empties the queue, then says it is going idle and checks once more. */
        private void drainQueue() {
            for (;;) {
                Producer p;
                while ((p = queue.poll()) != null) {
                    p.handled();
                }
                // Dekker with send: the producer offers (a volatile CAS of the producer index),
                // then reads idle; here idle is stored (volatile), then the index read again.
                idle = 1;
                if (queue.isEmpty() || !IDLE.compareAndSet(this, 1, 0)) {
                    return; // empty, or a producer took the wake-up and queued this task again
                }
            }
        }

        void send(Producer p) {
            switch (handoff) {
                case "ysuite":
                    p.sender.send(p);
                    break;
                case "execute":
                    loop.execute(() -> p.handled()); // a new task per message, as services do
                    break;
                default:
                    if (!queue.offer(p)) {
                        throw new IllegalStateException("queue full: the window is larger than the queue");
                    }
                    if (idle == 1 && IDLE.compareAndSet(this, 1, 0)) {
                        loop.execute(drain);
                    }
                    break;
            }
        }

        /** Stops the loop (and closes the mailbox with it). */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            if (!group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the event loop did not stop in 10 s");
            }
        }
    }

    /** One application thread: its credit window, its sender, and the counters. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Producer {
        /** Messages handed off in this iteration by this thread. */
        public long messages;
        /** The loop's blocking waits in this iteration (first thread only). */
        public long loopWaits;
        /** The mailbox descriptor's wake-ups in this iteration (first thread only, ysuite only). */
        public long mailboxWakeups;

        int index;
        Loop owner;
        LoopMailbox.Sender<Producer> sender;
        Window window;
        Window single;
        private long waitsBase;
        private long wakeupsBase;

        /** Joins the loop: a sender of its own for ysuite. */
        @Setup(Level.Trial)
        public void setup(Loop loop) {
            owner = loop;
            index = loop.threads.getAndIncrement();
            window = new Window(Msg.WINDOW);
            single = new Window(1);
            if (loop.mailbox != null) {
                sender = loop.mailbox.newSender();
            }
        }

        /** Starts the counters of an iteration. */
        @Setup(Level.Iteration)
        public void startCounters() {
            messages = 0;
            loopWaits = 0;
            mailboxWakeups = 0;
            waitsBase = owner.factory.blockingWaits();
            wakeupsBase = owner.mailbox == null ? 0 : owner.mailbox.wakeups();
        }

        /** Ends the counters of an iteration. */
        @TearDown(Level.Iteration)
        public void stopCounters() {
            if (index == 0) {
                loopWaits = owner.factory.blockingWaits() - waitsBase;
                mailboxWakeups = owner.mailbox == null ? 0 : owner.mailbox.wakeups() - wakeupsBase;
            }
        }

        /** Loop thread: one message of this producer handled. */
        void handled() {
            window.consumed(1);
            single.consumed(1);
        }
    }

    private static void handOff(Loop loop, Producer p, Window w) {
        w.beforeSend(1);
        loop.send(p);
        p.messages++;
    }

    /**
     * One application thread: one message handed off and made visible.
     *
     * @param loop the loop
     * @param p this thread
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(1)
    public void throughput1(Loop loop, Producer p) {
        handOff(loop, p, p.window);
    }

    /**
     * Two application threads: one message handed off and made visible.
     *
     * @param loop the loop
     * @param p this thread
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(2)
    public void throughput2(Loop loop, Producer p) {
        handOff(loop, p, p.window);
    }

    /**
     * One application thread: one message, sent after the loop handled the previous one.
     *
     * @param loop the loop
     * @param p this thread
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    @Threads(1)
    public void worstCase1(Loop loop, Producer p) {
        handOff(loop, p, p.single);
    }

    /**
     * Two application threads: one message each, sent after the loop handled the previous one.
     *
     * @param loop the loop
     * @param p this thread
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    @Threads(2)
    public void worstCase2(Loop loop, Producer p) {
        handOff(loop, p, p.single);
    }
}
