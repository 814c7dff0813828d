package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The mailbox's counts for its users: {@code sent}, {@code depth}, {@code delivered},
 * {@code wakeups}, the sampled hand-off latency, and its name.
 */
@Timeout(120)
class LoopMailboxCountsTest {

    /** A mailbox whose handler hands each message to the test thread. */
    private static final class Box {
        final BlockingQueue<Integer> seen = new LinkedBlockingQueue<>();
        final LoopMailbox<Integer> box;
        final IoEventLoop loop;

        Box(Transport transport, IoEventLoop loop, int sampleInterval) throws Exception {
            this.loop = loop;
            this.box = transport.<Integer>builder(loop, seen::add).handOffSampleInterval(sampleInterval).register();
            box.registrationFuture().get(10, TimeUnit.SECONDS);
        }

        /** Waits until the handler has got {@code n} more messages. */
        void awaitDelivered(int n) throws InterruptedException {
            for (int i = 0; i < n; i++) {
                assertNotNull(seen.poll(10, TimeUnit.SECONDS), "message " + i + " of " + n + " not delivered");
            }
        }

        /**
         * Waits until the drain that delivered the last message has ended (and so published
         * {@code delivered()}): a task queued now runs after it.
         */
        void awaitDrainEnd() throws Exception {
            loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void depthRisesWhileTheLoopIsHeldAndFallsToZeroAfterDelivery(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Box b = new Box(transport, group.next(), LoopMailbox.DEFAULT_HAND_OFF_SAMPLE_INTERVAL);
            LoopMailbox<Integer> box = b.box;
            LoopMailbox.Sender<Integer> one = box.newSender();
            LoopMailbox.Sender<Integer> two = box.newSender();
            LoopHold.hold(b.loop, release);
            for (int i = 0; i < 60; i++) {
                one.send(i);
            }
            for (int i = 0; i < 40; i++) {
                two.write(i);
            }
            assertEquals(60, box.sent(), "written but not flushed: not accepted yet");
            assertEquals(60, box.depth());
            two.flush();
            assertEquals(100, box.sent());
            assertEquals(100, box.depth());
            assertEquals(0, box.delivered());
            assertEquals(0, box.wakeups(), "the drain tasks are queued behind the hold and have not run");

            release.countDown();
            b.awaitDelivered(100);
            b.awaitDrainEnd();
            assertEquals(100, box.delivered());
            assertEquals(0, box.depth());

            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(100, box.sent());
            assertEquals(100, box.delivered());
            assertEquals(0, box.depth());
            assertEquals(2, box.wakeups(), "one drain task per pipe: each was asleep once");
            assertEquals(0, box.handOffSamples(), "no sender reached its first sample point (1024)");
        } finally {
            release.countDown();
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void withIntervalOneEveryMessageIsSampledAndTheMaxCoversTheHold(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Box b = new Box(transport, group.next(), 1);
            LoopMailbox<Integer> box = b.box;
            LoopMailbox.Sender<Integer> out = box.newSender();
            final int k = 50;
            for (int i = 1; i <= k; i++) {
                out.send(i);
                b.awaitDelivered(1); // the loop records the sample before it calls the handler
                assertEquals(i, box.handOffSamples(), "message " + i + " was not sampled");
            }
            assertTrue(box.handOffTotalNanos() >= box.handOffMaxNanos(),
                    "total " + box.handOffTotalNanos() + " < max " + box.handOffMaxNanos());

            // Three messages while the loop is held: the first is stamped, the other two are
            // sample points skipped while the first is in flight (one sample in flight per sender).
            LoopHold.hold(b.loop, release);
            out.send(k + 1);
            long sent = System.nanoTime(); // after the stamp, which was taken inside send
            out.send(k + 2);
            out.send(k + 3);
            assertEquals(3, box.depth());
            long released = System.nanoTime();
            release.countDown();
            long held = released - sent;
            b.awaitDelivered(3);
            assertEquals(k + 1, box.handOffSamples());
            assertTrue(box.handOffMaxNanos() >= held,
                    "max " + box.handOffMaxNanos() + " ns < the " + held + " ns the loop was held after the send");

            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(k + 3, box.sent());
            assertEquals(k + 3, box.delivered());
            assertEquals(k + 1, box.handOffSamples());
        } finally {
            release.countDown();
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void oneMessageInTheIntervalIsSampled(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            Box b = new Box(transport, group.next(), 4);
            LoopMailbox<Integer> box = b.box;
            LoopMailbox.Sender<Integer> out = box.newSender();
            for (int i = 1; i <= 18; i++) {
                out.send(i);
                b.awaitDelivered(1);
                assertEquals(i / 4, box.handOffSamples(), "after message " + i);
            }
            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(4, box.handOffSamples());
        } finally {
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void countsAreExactAfterTheCloseWithConcurrentSenders(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            IoEventLoop loop = group.next();
            long[] handled = new long[1]; // loop thread only; published by the close future
            LoopMailbox<Integer> box = transport.<Integer>builder(loop, m -> handled[0]++).register();
            final int perSender = 10_000;
            Thread[] threads = new Thread[2];
            for (int t = 0; t < threads.length; t++) {
                LoopMailbox.Sender<Integer> out = box.newSender();
                threads[t] = new Thread(() -> {
                    for (int i = 0; i < perSender; i++) {
                        out.send(i);
                    }
                }, "sender-" + t);
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertTrue(!t.isAlive(), t.getName() + " did not finish");
            }
            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(2L * perSender, handled[0]);
            assertEquals(2L * perSender, box.sent());
            assertEquals(2L * perSender, box.delivered());
            assertEquals(0, box.depth());
            // Each sender's first sample point (message 1024) is always stamped; at most one per
            // 1024 messages of each sender is.
            long samples = box.handOffSamples();
            assertTrue(samples >= 2 && samples <= 2 * (perSender / 1024), "samples: " + samples);
            assertTrue(box.handOffTotalNanos() >= box.handOffMaxNanos() && box.handOffMaxNanos() >= 0);
        } finally {
            Transport.shutdown(group);
        }
    }

    @Test
    void nameAndSampleIntervalSettings() throws Exception {
        MultiThreadIoEventLoopGroup group = Transport.NIO.newGroup();
        try {
            IoEventLoop loop = group.next();
            LoopMailboxBuilder<String> builder = LoopMailbox.builder(loop, m -> { });

            NullPointerException npe = assertThrows(NullPointerException.class, () -> builder.name(null));
            assertEquals("name", npe.getMessage());
            IllegalArgumentException blank = assertThrows(IllegalArgumentException.class, () -> builder.name(" \t"));
            assertEquals("name must not be blank: \" \t\"", blank.getMessage());
            for (int bad : new int[] {0, -1, 3, 1000, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> builder.handOffSampleInterval(bad));
                assertEquals("handOffSampleInterval must be a power of two from 1 to 1073741824: " + bad, e.getMessage());
            }

            LoopMailbox<String> named = builder.name("orders").handOffSampleInterval(1 << 30).register();
            LoopMailbox<String> first = LoopMailbox.register(loop, m -> { });
            LoopMailbox<String> second = LoopMailbox.register(loop, m -> { });
            try {
                assertEquals("orders", named.name());
                assertEquals(1 << 30, named.handOffSampleInterval());
                assertTrue(named.toString().startsWith("LoopMailbox[orders, "), named.toString());
                assertTrue(first.name().startsWith("LoopMailbox-"), first.name());
                assertNotEquals(first.name(), second.name());
                assertEquals(LoopMailbox.DEFAULT_HAND_OFF_SAMPLE_INTERVAL, first.handOffSampleInterval());
                assertEquals(1024, LoopMailbox.DEFAULT_HAND_OFF_SAMPLE_INTERVAL);
            } finally {
                named.close().get(10, TimeUnit.SECONDS);
                first.close().get(10, TimeUnit.SECONDS);
                second.close().get(10, TimeUnit.SECONDS);
            }
        } finally {
            Transport.shutdown(group);
        }
    }
}
