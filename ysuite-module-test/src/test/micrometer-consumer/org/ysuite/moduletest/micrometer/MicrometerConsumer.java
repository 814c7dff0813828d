package org.ysuite.moduletest.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.ysuite.micrometer.LoopMailboxMetrics;
import org.ysuite.netty.LoopMailbox;

/**
 * Binds {@link LoopMailboxMetrics} to a {@link SimpleMeterRegistry}, hands {@link #MESSAGES}
 * messages from an application thread to a Netty NIO event loop through a {@link LoopMailbox}
 * that samples every message's hand-off, closes the mailbox and checks every meter's value.
 * Prints one line per check, then {@code micrometer consumer: ok}; any failure is an exception
 * and a non-zero exit status.
 */
public final class MicrometerConsumer {

    /** Messages handed to the loop. */
    public static final int MESSAGES = 1_000;

    /** The mailbox's name: the meters' {@code mailbox} tag. */
    public static final String NAME = "module-test";

    private MicrometerConsumer() {
    }

    /**
     * Runs the checks.
     *
     * @param args ignored
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        for (Class<?> c : new Class<?>[] {LoopMailboxMetrics.class, LoopMailbox.class, MeterRegistry.class}) {
            Module m = c.getModule();
            System.out.println("module: " + MicrometerConsumer.class.getModule().getName() + " reads " + m.getName()
                    + (m.getDescriptor().isAutomatic() ? " (automatic)" : " (explicit)"));
        }
        System.out.println("exports: " + LoopMailboxMetrics.class.getModule().getDescriptor().exports());
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            check(handOff(group.next()));
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            if (!group.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the event loop did not terminate within 10 s");
            }
        }
        System.out.println("micrometer consumer: ok");
    }

    /** Sends 0 .. MESSAGES-1 from one application thread, waits for them and closes the mailbox. */
    private static MeterRegistry handOff(IoEventLoop loop) throws Exception {
        CountDownLatch all = new CountDownLatch(1);
        long[] next = {0}; // loop thread only; the latch publishes it to main
        LoopMailbox<Long> box = LoopMailbox.builder(loop, (Long m) -> {
            if (m == next[0]++ && next[0] == MESSAGES) {
                all.countDown();
            }
        }).name(NAME).handOffSampleInterval(1).register();
        MeterRegistry registry = new SimpleMeterRegistry();
        new LoopMailboxMetrics(box, Tags.of("app", "consumer")).bindTo(registry);
        Thread sender = new Thread(() -> {
            LoopMailbox.Sender<Long> out = box.newSender();
            for (long i = 0; i < MESSAGES; i++) {
                out.send(i);
            }
        }, "micrometer-consumer-sender");
        sender.start();
        if (!all.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("not every message was delivered in order within 60 s: " + box);
        }
        sender.join();
        box.close().get(10, TimeUnit.SECONDS); // the counts are final from here on
        return registry;
    }

    /** Reads each meter through the registry, by name and tags, and checks its value. */
    private static void check(MeterRegistry registry) {
        System.out.println("meters: " + registry.getMeters().size());
        double sent = registry.get(LoopMailboxMetrics.SENT).tags(LoopMailboxMetrics.MAILBOX_TAG, NAME, "app", "consumer")
                .functionCounter().count();
        double delivered = registry.get(LoopMailboxMetrics.DELIVERED).tag(LoopMailboxMetrics.MAILBOX_TAG, NAME)
                .functionCounter().count();
        double depth = registry.get(LoopMailboxMetrics.DEPTH).tag(LoopMailboxMetrics.MAILBOX_TAG, NAME).gauge().value();
        FunctionCounter wakeups = registry.get(LoopMailboxMetrics.WAKEUPS).functionCounter();
        FunctionTimer handOff = registry.get(LoopMailboxMetrics.HAND_OFF).functionTimer();
        TimeGauge max = registry.get(LoopMailboxMetrics.HAND_OFF_MAX).timeGauge();
        expect(sent == MESSAGES, "sent", sent);
        expect(delivered == MESSAGES, "delivered", delivered);
        expect(depth == 0, "depth", depth);
        expect(wakeups.count() >= 0, "wakeups", wakeups.count());
        // interval 1: the first message is always stamped, a later one once the previous sample was taken
        double samples = handOff.count();
        double total = handOff.totalTime(TimeUnit.NANOSECONDS);
        double maxNanos = max.value(TimeUnit.NANOSECONDS);
        expect(samples >= 1 && samples <= MESSAGES, "hand-off samples", samples);
        expect(total >= maxNanos - 1 && maxNanos >= 0, "hand-off total " + total + " ns, max", maxNanos);
        Gauge unknown = registry.find(LoopMailboxMetrics.DEPTH).tag(LoopMailboxMetrics.MAILBOX_TAG, "other").gauge();
        expect(unknown == null, "a gauge for another mailbox", unknown);
    }

    private static void expect(boolean ok, String what, Object value) {
        if (!ok) {
            throw new AssertionError("unexpected " + what + ": " + value);
        }
        System.out.println(what + ": " + value);
    }
}
