package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ysuite.amqp.broker.EmbeddedBroker;

/** The broker stops mid-stream: every writer learns which of its messages were confirmed and which not. */
@Timeout(45) // a hang (a lost wake-up, say) fails the test instead of the build
class BrokerLossTest {

    @Test
    void brokerStoppedMidStreamEveryWriterLearnsEachFate() throws Exception {
        int writers = 4;
        int cap = 1_000_000;
        EmbeddedBroker broker = EmbeddedBroker.start();
        try (Connection admin = broker.factory().newConnection("admin")) {
            Channel ch = admin.createChannel();
            ch.queueDeclare("loss", false, false, false, null);
        }
        Fates[] fates = new Fates[writers];
        PublisherWriter[] w = new PublisherWriter[writers];
        String[] stoppedBy = new String[writers];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch confirmedSome = new CountDownLatch(writers);
        AmqpPublisher publisher = AmqpPublisher.builder().confirmWindow(512).writerBufferBytes(8192)
                .name("loss").open(broker.factory());
        Thread[] threads = new Thread[writers];
        for (int i = 0; i < writers; i++) {
            fates[i] = new Fates(cap);
            w[i] = publisher.newWriter(fates[i]);
            int id = i;
            threads[i] = new Thread(() -> {
                try {
                    for (long s = 1; s <= cap; s++) {
                        w[id].publish("", "loss", PublisherContract.body(id, s));
                        if (s == 300) {
                            w[id].awaitSettled(300);
                            confirmedSome.countDown();
                        }
                    }
                    failure.compareAndSet(null, new AssertionError("writer " + id + " never stopped"));
                } catch (IllegalStateException e) {
                    stoppedBy[id] = e.getMessage();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            threads[i].start();
        }
        confirmedSome.await();
        broker.close(); // mid-stream: the writers are still publishing
        for (Thread t : threads) {
            t.join();
        }
        assertNull(failure.get());
        long confirmed = 0;
        long lost = 0;
        for (int i = 0; i < writers; i++) {
            assertTrue(stoppedBy[i].startsWith("the publisher's channel is down: "), stoppedBy[i]);
            long accepted = w[i].accepted();
            assertTrue(w[i].awaitSettled(accepted, 20, TimeUnit.SECONDS), "writer " + i + " settled");
            assertNull(fates[i].error.get(), "each fate once, in order");
            for (int s = 1; s <= accepted; s++) {
                assertTrue(fates[i].bySequence[s] != null, "writer " + i + " message " + s);
            }
            assertTrue(w[i].confirmed() >= 300);
            assertEquals(w[i].confirmed(), fates[i].count(Fate.CONFIRMED, accepted));
            assertEquals(w[i].lost(), fates[i].count(Fate.LOST, accepted));
            assertEquals(accepted, w[i].confirmed() + w[i].lost() + w[i].nacked() + w[i].returned());
            // confirmed messages come first: a writer's fates settle in its order
            for (int s = 1; s <= w[i].confirmed(); s++) {
                assertEquals(Fate.CONFIRMED, fates[i].bySequence[s]);
            }
            confirmed += w[i].confirmed();
            lost += w[i].lost();
        }
        assertTrue(confirmed >= 4 * 300);
        System.out.println("broker stopped: " + confirmed + " confirmed, " + lost + " lost");
        assertThrows(IllegalStateException.class, publisher::newWriter);
        publisher.close();
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("loss-publisher")));
    }
}
