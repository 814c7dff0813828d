package org.ysuite.bench.amqp;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.ysuite.amqp.AmqpPublisher;
import org.ysuite.bench.net.NetThroughput;

/**
 * Seed 003's AMQP row: application threads (JMH's {@code -t}) publish with publisher confirms to a
 * real broker, through ysuite's {@link AmqpPublisher} or through amqp-client used the usual ways
 * ({@link PublishWay}). The messages go to a fanout exchange with no queue bound: the broker
 * routes each one, drops it and confirms it, so what is measured is the publishing and confirming
 * path, not the broker's queues.
 *
 * <ul>
 *   <li>{@code publish} (throughput): one operation is one message; the confirm window (ysuite)
 *       or the waits (the others) bound what is outstanding, so the rate is the confirmed rate.
 *   <li>{@code confirmed} (sample time): one message and the wait for its own confirm, one at a
 *       time per thread: the confirm latency.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AmqpPublish {

    /** The exchange every way publishes to: fanout, nothing bound. */
    static final String EXCHANGE = "ysuite.bench.drop";

    /** How the application threads publish ({@link PublishWay}). */
    @Param({"ysuite", "ysuite_channels4", "channel_per_thread_each", "channel_per_thread_batch",
            "channel_per_thread_async", "locked_channel_each", "locked_channel_batch"})
    public String way;

    /** Body size, bytes. */
    @Param({"8", "256", "4096"})
    public int size;

    /** {@code embedded} (Broker-J in its own JVM) or {@code rabbitmq} ({@value AmqpBroker#RABBITMQ_URI}). */
    @Param({"embedded"})
    public String broker;

    /** N of the {@code _batch} ways: a wait for confirms after every N messages. */
    @Param({"64"})
    public int batch;

    /** How long the trial's tear-down waits for the threads' last settle. */
    private static final long SETTLE_WAIT_MS = 120_000;

    AmqpBroker brokerProcess;
    PublishWay.Shared shared;
    private Connection admin;
    /**
     * Senders set up and not yet torn down (guarded by {@code this}). JMH runs one thread's
     * benchmark-scoped tear-down while another thread may still be in its own iteration tear-down
     * (waiting for its confirms): closing the connection then would fail that wait.
     */
    private int openSenders;

    /**
     * Starts or finds the broker, declares the exchange, opens what the threads share.
     *
     * @throws Exception if the broker cannot be reached
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        brokerProcess = AmqpBroker.open(broker);
        admin = brokerProcess.factory().newConnection("ysuite-bench-admin");
        try (Channel c = admin.createChannel()) {
            c.exchangeDeclare(EXCHANGE, BuiltinExchangeType.FANOUT, false);
        }
        shared = PublishWay.shared(way, brokerProcess.factory(), batch);
    }

    /**
     * Closes everything and stops an embedded broker.
     *
     * @throws Exception if closing fails
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            awaitSendersDone();
            shared.close();
            admin.close();
        } finally {
            brokerProcess.close();
        }
    }

    private synchronized void senderOpened() {
        openSenders++;
    }

    private synchronized void senderDone() {
        openSenders--;
        notifyAll();
    }

    private synchronized void awaitSendersDone() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_WAIT_MS);
        while (openSenders > 0) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new IllegalStateException(openSenders + " sender(s) still settling after " + SETTLE_WAIT_MS + " ms");
            }
            wait(left);
        }
    }

    /**
     * One application thread: its way of publishing and its message. What it opened is closed with
     * the shared state (the connection's close closes its channels; the publisher's, its writers).
     */
    @State(Scope.Thread)
    public static class Sender {
        PublishWay publish;
        byte[] body;
        private AmqpPublish bench;

        /**
         * Opens the thread's channel or writer.
         *
         * @param bench the benchmark's shared state
         * @throws Exception if the broker refuses
         */
        @Setup(Level.Trial)
        public void setUp(AmqpPublish bench) throws Exception {
            body = new byte[bench.size];
            publish = bench.shared.forThread();
            this.bench = bench;
            bench.senderOpened();
        }

        /** This thread's last settle is over: the trial's tear-down may close the connection. */
        @TearDown(Level.Trial)
        public void done() {
            bench.senderDone();
        }

        /**
         * Waits for every confirm still due, so no iteration's messages are counted in the next.
         *
         * @throws Exception if a confirm fails
         */
        @TearDown(Level.Iteration)
        public void settle() throws Exception {
            publish.settle();
        }
    }

    /**
     * One message, published with confirms as the way does it.
     *
     * @param s the thread's sender
     * @param app what the application thread itself allocates (its counters)
     * @throws Exception if publishing fails
     */
    @Benchmark
    public void publish(Sender s, NetThroughput.AppThread app) throws Exception {
        s.publish.publish(s.body);
        app.appMessages++;
    }

    /**
     * One message and the wait for its own confirm.
     *
     * @param s the thread's sender
     * @throws Exception if publishing fails or the message is not confirmed
     */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void confirmed(Sender s) throws Exception {
        s.publish.publishConfirmed(s.body);
    }
}
