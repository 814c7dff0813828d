package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * A publisher with reconnection whose connection the broker closes mid-stream: every writer learns
 * which of its messages were confirmed, every confirmed one is in the queue, and the messages
 * accepted after the reconnection are confirmed. Every broker the tests know runs it
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
        String queue = "reconnect";
        broker().declare(queue);
        int writers = 4;
        int cap = 1_000_000;
        int tail = 2000; // messages each writer publishes once it knows the publisher reconnected
        Fates[] fates = new Fates[writers];
        PublisherWriter[] w = new PublisherWriter[writers];
        long[] firstAfter = new long[writers]; // each writer's first message accepted after the reconnection
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch confirmedSome = new CountDownLatch(writers);
        CountDownLatch reconnected = new CountDownLatch(1);
        AmqpPublisher publisher = AmqpPublisher.builder().confirmWindow(512).writerBufferBytes(8192)
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
        long reconnections = publisher.reconnections();
        publisher.close();
        assertFalse(publisher.isConnected());
        assertFalse(threadNamed("reconnecting-publisher"), "the publisher's thread ended");
        System.out.println("connections killed: " + confirmed + " confirmed, " + lost + " lost, "
                + reconnections + " reconnection(s)");

        // Every confirmed message is in the queue, once; a lost one may be (the broker took it,
        // its confirm did not come), no other message is.
        long inQueue = broker().messageCount(queue);
        assertTrue(inQueue >= confirmed, inQueue + " in the queue, " + confirmed + " confirmed");
        boolean[][] seen = new boolean[writers][];
        for (int i = 0; i < writers; i++) {
            seen[i] = new boolean[(int) w[i].accepted() + 1];
        }
        List<String> errors = new ArrayList<>();
        long received = 0;
        try (AmqpConsumer consumer = AmqpConsumer.open(broker().factory(), queue, 500, 1 << 20)) {
            while (received < inQueue) {
                int n = consumer.poll((buf, off, len, tag, redelivered) -> {
                    ByteBuffer in = buf.duplicate();
                    int writer = in.getInt(off);
                    long seq = in.getLong(off + 4);
                    if (writer < 0 || writer >= writers || seq < 1 || seq >= seen[writer].length) {
                        errors.add("a message never accepted: " + writer + "/" + seq);
                    } else if (seen[writer][(int) seq]) {
                        errors.add("twice: " + writer + "/" + seq);
                    } else {
                        seen[writer][(int) seq] = true;
                    }
                }, 20, TimeUnit.SECONDS);
                assertTrue(n > 0, "the queue's messages come: " + received + " of " + inQueue);
                received += n;
            }
        }
        assertEquals(List.of(), errors);
        for (int i = 0; i < writers; i++) {
            for (int s = 1; s < seen[i].length; s++) {
                if (fates[i].bySequence[s] == Fate.CONFIRMED && !seen[i][s]) {
                    errors.add("confirmed, not consumed: " + i + "/" + s);
                }
            }
        }
        assertEquals(List.of(), errors.subList(0, Math.min(10, errors.size())));
    }
}
