package org.ysuite.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.ysuite.netty.LoopMailbox;

/** {@link LoopMailboxMetrics} scraped from a {@link SimpleMeterRegistry}, on a real Netty loop. */
@Timeout(120)
class LoopMailboxMetricsTest {

    /** The loops a mailbox runs on. */
    enum Loop {
        EPOLL(EpollIoHandler::newFactory), NIO(NioIoHandler::newFactory);

        private final Supplier<IoHandlerFactory> factory;

        Loop(Supplier<IoHandlerFactory> factory) {
            this.factory = factory;
        }

        MultiThreadIoEventLoopGroup newGroup() {
            return new MultiThreadIoEventLoopGroup(1, factory.get());
        }
    }

    private static void shutdown(MultiThreadIoEventLoopGroup group) throws InterruptedException {
        assertTrue(group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS),
                "the event loop group did not terminate in 10 s");
    }

    /** Runs a task on {@code loop} that holds it until {@code release}; returns once it holds it. */
    private static void hold(IoEventLoop loop, CountDownLatch release) throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        loop.execute(() -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(inside.await(10, TimeUnit.SECONDS), "the loop did not run the holding task");
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.get(name).tag("mailbox", "orders").functionCounter().count();
    }

    private static double depth(MeterRegistry registry) {
        return registry.get(LoopMailboxMetrics.DEPTH).tag("mailbox", "orders").gauge().value();
    }

    @ParameterizedTest
    @EnumSource(Loop.class)
    void theRegistryReadsTheMailboxWhileItRunsAndAfterItClosed(Loop kind) throws Exception {
        MultiThreadIoEventLoopGroup group = kind.newGroup();
        CountDownLatch release = new CountDownLatch(1);
        try {
            IoEventLoop loop = group.next();
            BlockingQueue<Integer> seen = new LinkedBlockingQueue<>();
            LoopMailbox<Integer> box = LoopMailbox.<Integer>builder(loop, seen::add)
                    .name("orders").handOffSampleInterval(1).register();
            box.registrationFuture().get(10, TimeUnit.SECONDS);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new LoopMailboxMetrics(box, Tags.of("service", "book")).bindTo(registry);

            // K messages while the loop is held: all accepted, none delivered
            final int k = 100;
            LoopMailbox.Sender<Integer> out = box.newSender();
            hold(loop, release);
            for (int i = 0; i < k; i++) {
                out.send(i);
            }
            long sent = System.nanoTime(); // after the first message's stamp
            assertEquals(k, counter(registry, LoopMailboxMetrics.SENT));
            assertEquals(0, counter(registry, LoopMailboxMetrics.DELIVERED));
            assertEquals(k, depth(registry));
            assertEquals(0, counter(registry, LoopMailboxMetrics.WAKEUPS));
            long released = System.nanoTime();
            release.countDown();
            for (int i = 0; i < k; i++) {
                assertNotNull(seen.poll(10, TimeUnit.SECONDS), "message " + i + " not delivered");
            }

            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(k, counter(registry, LoopMailboxMetrics.SENT));
            assertEquals(k, counter(registry, LoopMailboxMetrics.DELIVERED));
            assertEquals(0, depth(registry));
            assertEquals(1, counter(registry, LoopMailboxMetrics.WAKEUPS), "the pipe slept once, before the first send");
            FunctionTimer handOff = registry.get(LoopMailboxMetrics.HAND_OFF).tag("mailbox", "orders").functionTimer();
            // interval 1: the first message was stamped; the others were sample points skipped
            // while it was in flight (one sample in flight per sender)
            assertEquals(1, handOff.count());
            // Micrometer converts through its base unit (seconds) in doubles: equal to within 1 ns
            assertEquals(box.handOffTotalNanos(), handOff.totalTime(TimeUnit.NANOSECONDS), 1.0);
            double max = registry.get(LoopMailboxMetrics.HAND_OFF_MAX).tag("mailbox", "orders").timeGauge()
                    .value(TimeUnit.NANOSECONDS);
            assertEquals(box.handOffMaxNanos(), max, 1.0);
            assertTrue(max >= released - sent, "max " + max + " ns < the " + (released - sent) + " ns the loop was held");
        } finally {
            release.countDown();
            shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Loop.class)
    void everySentMessageIsSampledWhenEachIsDeliveredBeforeTheNext(Loop kind) throws Exception {
        MultiThreadIoEventLoopGroup group = kind.newGroup();
        try {
            BlockingQueue<Integer> seen = new LinkedBlockingQueue<>();
            LoopMailbox<Integer> box = LoopMailbox.<Integer>builder(group.next(), seen::add)
                    .name("orders").handOffSampleInterval(1).register();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new LoopMailboxMetrics(box).bindTo(registry);
            LoopMailbox.Sender<Integer> out = box.newSender();
            final int k = 20;
            for (int i = 0; i < k; i++) {
                out.send(i);
                assertNotNull(seen.poll(10, TimeUnit.SECONDS), "message " + i + " not delivered");
            }
            box.close().get(10, TimeUnit.SECONDS);
            FunctionTimer handOff = registry.get(LoopMailboxMetrics.HAND_OFF).functionTimer();
            assertEquals(k, handOff.count());
            assertTrue(handOff.totalTime(TimeUnit.NANOSECONDS) > 0, "total " + handOff.totalTime(TimeUnit.NANOSECONDS));
            assertEquals(k, counter(registry, LoopMailboxMetrics.SENT));
            assertEquals(k, counter(registry, LoopMailboxMetrics.DELIVERED));
        } finally {
            shutdown(group);
        }
    }

    @Test
    void theMetersAreNamedAndTaggedAsDocumented() throws Exception {
        MultiThreadIoEventLoopGroup group = Loop.NIO.newGroup();
        try {
            LoopMailbox<String> box = LoopMailbox.<String>builder(group.next(), m -> { }).name("orders").register();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            LoopMailboxMetrics metrics = new LoopMailboxMetrics(box, List.of(Tag.of("service", "book"),
                    Tag.of("mailbox", "replaced")));
            metrics.bindTo(registry);
            Set<String> names = new TreeSet<>();
            for (Meter m : registry.getMeters()) {
                names.add(m.getId().getName() + ":" + m.getId().getType());
                assertEquals("orders", m.getId().getTag("mailbox"), m.getId().toString());
                assertEquals("book", m.getId().getTag("service"), m.getId().toString());
            }
            assertEquals(new TreeSet<>(List.of(
                    "ysuite.mailbox.delivered:COUNTER",
                    "ysuite.mailbox.depth:GAUGE",
                    "ysuite.mailbox.handoff.max:GAUGE",
                    "ysuite.mailbox.handoff:TIMER",
                    "ysuite.mailbox.sent:COUNTER",
                    "ysuite.mailbox.wakeups:COUNTER")), names);
            assertEquals("messages", registry.get(LoopMailboxMetrics.DEPTH).gauge().getId().getBaseUnit());
            assertEquals("LoopMailboxMetrics[orders, [tag(mailbox=orders),tag(service=book)]]", metrics.toString());
            box.close().get(10, TimeUnit.SECONDS);
        } finally {
            shutdown(group);
        }
    }

    @Test
    void nullArgumentsAreNamed() throws Exception {
        MultiThreadIoEventLoopGroup group = Loop.NIO.newGroup();
        try {
            LoopMailbox<String> box = LoopMailbox.register(group.next(), m -> { });
            assertEquals("mailbox", assertThrows(NullPointerException.class, () -> new LoopMailboxMetrics(null))
                    .getMessage());
            assertEquals("tags", assertThrows(NullPointerException.class, () -> new LoopMailboxMetrics(box, null))
                    .getMessage());
            LoopMailboxMetrics metrics = new LoopMailboxMetrics(box);
            assertEquals("registry", assertThrows(NullPointerException.class, () -> metrics.bindTo(null))
                    .getMessage());
            box.close().get(10, TimeUnit.SECONDS);
        } finally {
            shutdown(group);
        }
    }
}
