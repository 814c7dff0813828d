package org.ysuite.examples;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.amqp.AmqpConsumer;
import org.ysuite.amqp.AmqpPublisher;
import org.ysuite.amqp.DeliveryHandler;
import org.ysuite.amqp.Fate;
import org.ysuite.amqp.FateListener;
import org.ysuite.amqp.PublisherWriter;

/**
 * Application threads publish orders to an AMQP 0-9-1 broker through one {@link AmqpPublisher}
 * (a {@link PublisherWriter} each, no lock, publisher confirms), and publish again every order
 * whose fate was not {@link Fate#CONFIRMED} until the broker confirmed them all; meanwhile one
 * thread consumes the queue through an {@link AmqpConsumer} and checks that every order arrives.
 * Publisher and consumer reconnect after a lost connection, so the broker may restart or drop its
 * clients mid-stream. Delivery is at least once: an order that was {@link Fate#LOST} may have
 * reached the queue already, and then it comes twice.
 *
 * <pre>
 * java -jar ysuite-examples/target/ysuite-examples.jar amqp amqp://guest:guest@127.0.0.1:5672 [ordersPerWriter [writers]]
 * </pre>
 *
 * <p>The queue {@value #QUEUE} is declared durable and purged first; the messages are persistent.
 */
public final class AmqpOrders {

    /** The queue the example declares, purges and uses. */
    public static final String QUEUE = "ysuite-example-orders";
    private static final int BODY = 16; // writer, order, check
    private static final long WAIT_SECONDS = 120;

    /** Called once mid-stream, when a third of the orders are confirmed (its tests drop the connections then). */
    @FunctionalInterface
    public interface MidStream {
        /**
         * Does what the caller wants done mid-stream.
         *
         * @throws Exception if it fails; the example then fails
         */
        void run() throws Exception;
    }

    private AmqpOrders() {
    }

    /**
     * Runs the example.
     *
     * @param args the broker's URI, then optionally the orders per writer (default 100,000) and the writers (default 4)
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        run(System.out, args, () -> { });
    }

    /**
     * Runs the example, printing to {@code out}.
     *
     * @param out where the summary goes
     * @param args as for {@link #main}
     * @param midStream run once when a third of the orders are confirmed
     * @throws Exception if the example fails: an order never confirmed or never consumed, a bad message, a broker
     *     gone for longer than two minutes
     */
    public static void run(PrintStream out, String[] args, MidStream midStream) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: amqp <amqp-uri> [ordersPerWriter [writers]]");
        }
        int perWriter = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int writers = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        if (perWriter < 1 || writers < 1) {
            throw new IllegalArgumentException("ordersPerWriter and writers must be >= 1: " + perWriter + ", " + writers);
        }
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(args[0]);
        try (Connection admin = factory.newConnection("ysuite-example-admin");
             Channel channel = admin.createChannel()) {
            channel.queueDeclare(QUEUE, true, false, false, null);
            channel.queuePurge(QUEUE);
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Ordering[] ordering = new Ordering[writers];
        try (AmqpConsumer consumer = AmqpConsumer.open(factory, QUEUE, 500, 1 << 20,
                     Duration.ofMillis(10), Duration.ofSeconds(1));
             AmqpPublisher publisher = AmqpPublisher.builder()
                .properties(MessageProperties.PERSISTENT_BASIC) // a durable queue keeps them over a restart
                .reconnect(Duration.ofMillis(10), Duration.ofSeconds(1))
                .name("ysuite-example-orders")
                .open(factory)) {
            Checker checker = new Checker(consumer, writers, perWriter, failure);
            checker.start();
            for (int w = 0; w < writers; w++) {
                Fates fates = new Fates();
                ordering[w] = new Ordering(publisher.newWriter(fates), fates, w, perWriter, failure);
                ordering[w].start();
            }
            long third = (long) writers * perWriter / 3;
            while (confirmed(ordering) < third && alive(ordering) && failure.get() == null) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // polls a count, not a time
            }
            if (failure.get() == null) {
                try {
                    midStream.run();
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }
            for (Ordering o : ordering) {
                o.join();
            }
            checker.publishingEnded = true;
            checker.join();
            rethrow(failure.get());
            long republished = Arrays.stream(ordering).mapToLong(o -> o.republished).sum();
            out.println("AmqpOrders: " + writers + " writers published " + (long) writers * perWriter
                    + " orders, every one confirmed; " + republished + " published again after LOST or NACKED");
            out.println("AmqpOrders: consumed every order, " + checker.deliveries + " deliveries ("
                    + checker.twice + " twice: redelivered, or published again); reconnections: publisher "
                    + publisher.reconnections() + ", consumer " + consumer.reconnections());
        }
    }

    private static long confirmed(Ordering[] ordering) {
        long n = 0;
        for (Ordering o : ordering) {
            n += o.writer.confirmed();
        }
        return n;
    }

    private static boolean alive(Ordering[] ordering) {
        return Arrays.stream(ordering).anyMatch(Thread::isAlive);
    }

    private static void rethrow(Throwable t) throws Exception {
        if (t instanceof Exception) {
            throw (Exception) t;
        } else if (t instanceof Error) {
            throw (Error) t;
        }
    }

    private static void encode(ByteBuffer body, int writer, int order) {
        body.putInt(0, writer).putInt(4, order).putLong(8, check(writer, order));
    }

    private static long check(int writer, int order) {
        return (writer * 0x9E3779B97F4A7C15L) ^ (order * 0xC2B2AE3D27D4EB4FL);
    }

    /** One round's orders by sequence: what the writer published from {@code first} on. */
    private static final class Round {
        final long first;
        final int[] orders;
        final Fate[] fates;

        Round(long first, int[] orders) {
            this.first = first;
            this.orders = orders;
            this.fates = new Fate[orders.length];
        }
    }

    /**
     * A writer's fates, told on the publisher's or the connection's thread. The writer installs a
     * round (a volatile write) before it publishes the round's first order, and only once every
     * fate of the round before is known: each fate told here belongs to the round it reads. The
     * writer reads the fates after {@code awaitSettled}, which orders them before its return.
     */
    private static final class Fates implements FateListener {
        volatile Round round;

        @Override
        public void onFate(long sequence, Fate fate) {
            Round r = round;
            r.fates[(int) (sequence - r.first)] = fate;
        }
    }

    /** One application thread: publishes its orders, then again those not confirmed, until none is left. */
    private static final class Ordering extends Thread {
        final PublisherWriter writer;
        private final Fates fates;
        private final int id;
        private final int perWriter;
        private final AtomicReference<Throwable> failure;
        long republished;

        Ordering(PublisherWriter writer, Fates fates, int id, int perWriter, AtomicReference<Throwable> failure) {
            super("orders-" + id);
            this.writer = writer;
            this.fates = fates;
            this.id = id;
            this.perWriter = perWriter;
            this.failure = failure;
        }

        @Override
        public void run() {
            try {
                int[] todo = new int[perWriter];
                Arrays.setAll(todo, i -> i + 1);
                byte[] bytes = new byte[BODY];
                ByteBuffer body = ByteBuffer.wrap(bytes);
                while (todo.length > 0) {
                    Round round = new Round(writer.accepted() + 1, todo);
                    fates.round = round;
                    long last = 0;
                    for (int order : todo) {
                        encode(body, id, order);
                        last = writer.publish("", QUEUE, bytes);
                    }
                    if (!writer.awaitSettled(last, WAIT_SECONDS, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("writer " + id + ": no fate for message " + last
                                + " within " + WAIT_SECONDS + " s");
                    }
                    int[] again = new int[todo.length];
                    int n = 0;
                    for (int i = 0; i < todo.length; i++) {
                        if (round.fates[i] != Fate.CONFIRMED) {
                            again[n++] = todo[i];
                        }
                    }
                    todo = Arrays.copyOf(again, n);
                    republished += n;
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }
    }

    /** Polls the consumer until every order came at least once, checking each message. */
    private static final class Checker extends Thread {
        private final AmqpConsumer consumer;
        private final byte[][] seen;
        private final AtomicReference<Throwable> failure;
        private final DeliveryHandler handler = this::delivered; // one object for every poll
        volatile boolean publishingEnded;
        long deliveries;
        long twice;
        private long distinct;

        Checker(AmqpConsumer consumer, int writers, int perWriter, AtomicReference<Throwable> failure) {
            super("orders-checker");
            this.consumer = consumer;
            this.seen = new byte[writers][perWriter + 1];
            this.failure = failure;
        }

        @Override
        public void run() {
            long all = (long) seen.length * (seen[0].length - 1);
            try {
                long idleSince = System.nanoTime();
                while (distinct < all && failure.get() == null) {
                    if (consumer.poll(handler, 100, TimeUnit.MILLISECONDS) > 0 || !publishingEnded) {
                        idleSince = System.nanoTime();
                    } else if (System.nanoTime() - idleSince > TimeUnit.SECONDS.toNanos(WAIT_SECONDS)) {
                        throw new IllegalStateException((all - distinct) + " orders never consumed");
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }

        /**
         * Checks one delivery; reads the view {@code buf} in place (big-endian, as the consumer
         * hands it and as the order was encoded), allocating nothing.
         */
        private void delivered(ByteBuffer buf, int offset, int length, long tag, boolean redelivered) {
            int writer = -1;
            int order = -1;
            long check = 0;
            if (length == BODY) {
                writer = buf.getInt(offset);
                order = buf.getInt(offset + 4);
                check = buf.getLong(offset + 8);
            }
            if (writer < 0 || writer >= seen.length || order < 1 || order >= seen[writer].length
                    || check != check(writer, order)) {
                throw new IllegalStateException("a message no writer published: " + length + " bytes, tag " + tag);
            }
            deliveries++;
            if (seen[writer][order] != 0) {
                twice++;
            } else {
                seen[writer][order] = 1;
                distinct++;
            }
        }
    }
}
