package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Confirms lagging beyond the window hold the writers back. The lag is made by a fate listener
 * that holds the connection's thread (where amqp-client runs the confirm listener) until the test
 * lets it go: the broker's acks wait in the client, unprocessed, exactly as slow confirms would.
 */
@Timeout(45) // a hang (a lost wake-up, say) fails the test instead of the build
class BackPressureTest {

    private static final int WINDOW = 4;
    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    @BeforeAll
    static void declare() throws Exception {
        BROKER.declare("bp");
    }

    /** Holds the settling thread at the first fate until released. */
    private static final class HeldFates implements FateListener {
        final CountDownLatch release = new CountDownLatch(1);
        final Fates fates = new Fates(100_000);

        @Override
        public void onFate(long sequence, Fate fate) {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            fates.onFate(sequence, fate);
        }
    }

    private static void awaitOutstanding(AmqpPublisher publisher, long n) {
        while (publisher.outstanding() < n) {
            Thread.onSpinWait(); // the publisher's thread publishes the window's worth, then stops
        }
    }

    @Test
    void failWhenConfirmsLagBeyondTheWindow() throws Exception {
        HeldFates held = new HeldFates();
        try (AmqpPublisher publisher = AmqpPublisher.builder().confirmWindow(WINDOW).onFull(OnFull.FAIL)
                .writerBufferBytes(1024).open(BROKER.factory())) {
            PublisherWriter w = publisher.newWriter(held);
            try {
                failWhenHeld(publisher, w, held);
            } finally {
                held.release.countDown(); // also when an assertion failed: close() needs the confirms
            }
        }
    }

    private static void failWhenHeld(AmqpPublisher publisher, PublisherWriter w, HeldFates held)
            throws Exception {
        {
            byte[] body = new byte[100];
            for (int i = 0; i < WINDOW; i++) {
                w.publish("", "bp", body);
            }
            awaitOutstanding(publisher, WINDOW);
            BackPressureException refused = null;
            for (int i = 0; i < 1000 && refused == null; i++) {
                try {
                    w.publish("", "bp", body);
                } catch (BackPressureException e) {
                    refused = e;
                }
            }
            if (refused == null) {
                fail("1000 messages accepted with " + WINDOW + " confirms outstanding and a 1 KiB buffer");
            }
            assertTrue(refused.getMessage().startsWith("the writer's buffer (1024 bytes) has no room for a record of"
                    + " 105 bytes: "), refused.getMessage());
            assertTrue(refused.getMessage().endsWith(" messages await their confirm (confirmWindow 4)"),
                    refused.getMessage());
            assertEquals(WINDOW, publisher.outstanding());
            long accepted = w.accepted();
            held.release.countDown();
            assertTrue(w.awaitSettled(accepted, 20, TimeUnit.SECONDS));
            assertEquals(accepted, w.confirmed());
            assertNull(held.fates.error.get());
        }
    }

    @Test
    void blockWhenConfirmsLagBeyondTheWindow() throws Exception {
        HeldFates held = new HeldFates();
        int messages = 200; // far more than the window and a 1 KiB buffer hold
        try (AmqpPublisher publisher = AmqpPublisher.builder().confirmWindow(WINDOW)
                .writerBufferBytes(1024).open(BROKER.factory())) {
            PublisherWriter w = publisher.newWriter(held);
            try {
                blockWhenHeld(publisher, w, held, messages);
            } finally {
                held.release.countDown();
            }
        }
    }

    private static void blockWhenHeld(AmqpPublisher publisher, PublisherWriter w, HeldFates held, int messages)
            throws Exception {
        {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < messages; i++) {
                        w.publish("", "bp", new byte[100]);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            writer.start();
            awaitOutstanding(publisher, WINDOW);
            while (writer.getState() != Thread.State.WAITING && writer.getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait(); // the writer parks once its buffer is full
            }
            assertTrue(w.accepted() < messages, "blocked before all were accepted: " + w.accepted());
            assertEquals(WINDOW, publisher.outstanding());
            held.release.countDown();
            writer.join();
            assertNull(failure.get());
            assertTrue(w.awaitSettled(messages, 20, TimeUnit.SECONDS));
            assertEquals(messages, w.confirmed());
        }
    }
}
