package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.MessageProperties;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A publisher and a consumer with reconnection whose connections the broker closes mid-stream:
 * every writer learns which of its messages were confirmed, the consumer (reconnecting too) gets
 * every confirmed one, and the messages accepted after the reconnection are confirmed. Every broker the tests know runs it
 * ({@link ReconnectTest}: Broker-J; {@link RabbitMqReconnectTest}).
 */
// A hang (a lost wake-up, a confirm never mapped, a close that never ends) fails the test instead of
// the build: in a thread of its own, since close() waits for the publisher's thread uninterruptibly.
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class ReconnectContract {

    /** The broker of the concrete class (its registered extension). */
    abstract BrokerExtension broker();

    /** Closes every client connection from the broker's side; the queues stay. */
    abstract void killConnections() throws Exception;

    /**
     * Whether {@link #killConnections()} restarts the broker: then the queue is durable and the
     * messages persistent, so that what the broker confirmed outlives the restart.
     */
    boolean restartsBroker() {
        return false;
    }

    /** Waits (polling a state, not a time) until {@code condition} holds; fails after 30 s. */
    static void awaitState(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadline < 0, "timed out waiting until " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    static boolean threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name));
    }

    @Test
    void connectionsKilledMidStreamEveryWriterLearnsEachFateAndPublishingGoesOn() throws Exception {
        killedMidStream("reconnect", 1);
    }

    /** The same with a channel per writer: every channel is reopened, each ledger settled on its own. */
    @Test
    void connectionsKilledMidStreamWithFourChannels() throws Exception {
        killedMidStream("reconnect-four-channels", 4);
    }

    private void killedMidStream(String name, int channels) throws Exception {
        String queue = restartsBroker() ? name + "-durable" : name; // a name is durable or not for good
        if (restartsBroker()) {
            broker().declareDurable(queue);
        } else {
            broker().declare(queue);
        }
        int writers = 4;
        int cap = 1_000_000;
        int tail = 2000; // messages each writer publishes once it knows the publisher reconnected
        Fates[] fates = new Fates[writers];
        PublisherWriter[] w = new PublisherWriter[writers];
        long[] firstAfter = new long[writers]; // each writer's first message accepted after the reconnection
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch confirmedSome = new CountDownLatch(writers);
        CountDownLatch reconnected = new CountDownLatch(1);
        long[] acceptedBy = new long[writers];
        Consuming consuming = new Consuming(queue, writers, cap, fates, acceptedBy, failure);
        consuming.start();
        AmqpPublisher publisher = AmqpPublisher.builder().confirmWindow(256).writerBufferBytes(64 * 1024)
                .channels(channels)
                .properties(restartsBroker() ? MessageProperties.PERSISTENT_BASIC : MessageProperties.MINIMAL_BASIC)
                .reconnect(Duration.ofMillis(1), Duration.ofMillis(50)).name("reconnecting")
                .open(broker().factory());
        Thread[] threads = new Thread[writers];
        for (int i = 0; i < writers; i++) {
            fates[i] = new Fates(cap);
            w[i] = publisher.newWriter(fates[i]);
            int id = i;
            threads[i] = new Thread(() -> {
                try {
                    for (long s = 1; firstAfter[id] == 0 || s < firstAfter[id] + tail; s++) {
                        assertTrue(s <= cap, "writer " + id + " never saw the reconnection");
                        long seq = w[id].publish("", queue, PublisherContract.body(id, s));
                        assertEquals(s, seq);
                        if (s == 300) {
                            w[id].awaitSettled(300);
                            confirmedSome.countDown();
                        }
                        if (firstAfter[id] == 0 && reconnected.getCount() == 0) {
                            firstAfter[id] = s + 1;
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "writer-" + i);
            threads[i].start();
        }
        assertTrue(confirmedSome.await(30, TimeUnit.SECONDS), "300 confirms from each writer");
        killConnections(); // mid-stream: the writers are still publishing
        awaitState("the publisher reconnected", () -> publisher.reconnections() >= 1 || failure.get() != null);
        reconnected.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertNull(failure.get());
        long confirmed = 0;
        long lost = 0;
        for (int i = 0; i < writers; i++) {
            long accepted = w[i].accepted();
            assertTrue(w[i].awaitSettled(accepted, 20, TimeUnit.SECONDS), "writer " + i + " settled");
            assertNull(fates[i].error.get(), "each fate once, in order");
            assertEquals(accepted, w[i].confirmed() + w[i].lost(), "writer " + i + ": confirmed or lost");
            assertEquals(w[i].confirmed(), fates[i].count(Fate.CONFIRMED, accepted));
            assertEquals(w[i].lost(), fates[i].count(Fate.LOST, accepted));
            for (int s = 1; s <= 300; s++) {
                assertEquals(Fate.CONFIRMED, fates[i].bySequence[s], "writer " + i + " message " + s);
            }
            for (long s = firstAfter[i]; s <= accepted; s++) {
                assertEquals(Fate.CONFIRMED, fates[i].bySequence[(int) s],
                        "writer " + i + " message " + s + ", accepted after the reconnection");
            }
            confirmed += w[i].confirmed();
            lost += w[i].lost();
        }
        assertTrue(publisher.isConnected());
        assertNull(publisher.lossCause(), "connected again");
        long reconnections = publisher.reconnections();
        // Only what was published and unanswered at a loss is lost (at most the confirm window of
        // each channel each time), not what waited in the writers' buffers.
        assertTrue(lost <= 256L * channels * reconnections, lost + " lost in " + reconnections + " loss(es)");
        publisher.close();
        assertFalse(publisher.isConnected());
        assertEquals("closed", publisher.lossCause());
        assertFalse(threadNamed("reconnecting-publisher"), "the publisher's thread ended");

        for (int i = 0; i < writers; i++) {
            acceptedBy[i] = w[i].accepted();
        }
        consuming.settled = true; // volatile: the fates and acceptedBy are the consumer's to read
        consuming.join();
        assertNull(failure.get());
        assertEquals(List.of(), consuming.errors);
        assertTrue(consuming.reconnections >= 1, "the consumer reconnected");
        System.out.println("connections killed: " + confirmed + " confirmed, " + lost + " lost, "
                + reconnections + " reconnection(s); consumed " + consuming.received + ", "
                + consuming.redelivered + " redelivered, consumer reconnected " + consuming.reconnections);
    }

    /**
     * Consumes the queue from the start, with reconnection, until every confirmed message came
     * (once it knows which are: {@link #settled}); a message may come twice only redelivered.
     */
    private final class Consuming extends Thread {
        private final String queue;
        private final Fates[] fates;
        private final long[] acceptedBy;
        private final AtomicReference<Throwable> failure;
        private final byte[][] seen;
        final List<String> errors = new ArrayList<>();
        volatile boolean settled;
        long received;
        long redelivered;
        long reconnections;

        Consuming(String queue, int writers, int cap, Fates[] fates, long[] acceptedBy,
                  AtomicReference<Throwable> failure) {
            super("consuming");
            this.queue = queue;
            this.fates = fates;
            this.acceptedBy = acceptedBy;
            this.failure = failure;
            this.seen = new byte[writers][cap + 1];
        }

        @Override
        public void run() {
            long[] next = new long[seen.length]; // each writer's first confirmed message not seen yet
            java.util.Arrays.fill(next, 1);
            // a back-off (up to 1 s) longer than a poll's timeout (100 ms): its waits span polls
            try (AmqpConsumer consumer = AmqpConsumer.open(broker().factory(), queue, 500, 1 << 20,
                    Duration.ofMillis(1), Duration.ofSeconds(1))) {
                long idleSince = System.nanoTime();
                for (;;) {
                    // the timeout only lets the loop look at settled now and then
                    int n = consumer.poll(this::delivered, 100, TimeUnit.MILLISECONDS);
                    received += n;
                    if (n > 0) {
                        idleSince = System.nanoTime();
                    }
                    if (settled && covered(next)) {
                        break;
                    }
                    if (settled && System.nanoTime() - idleSince > TimeUnit.SECONDS.toNanos(20)) {
                        errors.add("confirmed, never consumed: writer 0 from " + next[0] + ", 1 from " + next[1]
                                + ", 2 from " + next[2] + ", 3 from " + next[3]);
                        break;
                    }
                }
                reconnections = consumer.reconnections();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }

        private void delivered(ByteBuffer buf, int off, int len, long tag, boolean redelivery) {
            int writer = buf.getInt(off); // big-endian, as body() wrote it
            long seq = buf.getLong(off + 4);
            if (writer < 0 || writer >= seen.length || seq < 1 || seq >= seen[writer].length) {
                error("a message never published: " + writer + "/" + seq);
            } else if (seen[writer][(int) seq] != 0 && !redelivery) {
                error("twice, not redelivered: " + writer + "/" + seq);
            } else {
                seen[writer][(int) seq] = 1;
            }
            if (redelivery) {
                redelivered++;
            }
        }

        private void error(String e) {
            if (errors.size() < 10) {
                errors.add(e);
            }
        }

        private boolean covered(long[] next) {
            boolean all = true;
            for (int i = 0; i < next.length; i++) {
                long s = next[i];
                while (s <= acceptedBy[i] && (fates[i].bySequence[(int) s] != Fate.CONFIRMED || seen[i][(int) s] != 0)) {
                    s++;
                }
                next[i] = s;
                all &= s > acceptedBy[i];
            }
            return all;
        }
    }

}
