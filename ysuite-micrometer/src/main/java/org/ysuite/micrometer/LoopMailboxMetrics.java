package org.ysuite.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.ysuite.netty.LoopMailbox;

/**
 * Binds one {@link LoopMailbox}'s counts to a Micrometer {@link MeterRegistry}. Every meter is
 * tagged {@value #MAILBOX_TAG} = {@link LoopMailbox#name()}, plus the tags given here:
 * <table>
 *   <caption>The meters</caption>
 *   <tr><th>name</th><th>type</th><th>reads</th></tr>
 *   <tr><td>{@value #DEPTH}</td><td>gauge, messages</td>
 *       <td>{@link LoopMailbox#depth()}: accepted messages waiting, approximate</td></tr>
 *   <tr><td>{@value #SENT}</td><td>function counter, messages</td>
 *       <td>{@link LoopMailbox#sent()}: messages accepted by the senders</td></tr>
 *   <tr><td>{@value #DELIVERED}</td><td>function counter, messages</td>
 *       <td>{@link LoopMailbox#delivered()}: messages handed to the handler</td></tr>
 *   <tr><td>{@value #WAKEUPS}</td><td>function counter, wake-ups</td>
 *       <td>{@link LoopMailbox#wakeups()}: drain tasks queued because the loop slept on a pipe</td></tr>
 *   <tr><td>{@value #HAND_OFF}</td><td>function timer</td>
 *       <td>{@link LoopMailbox#handOffSamples()} and {@link LoopMailbox#handOffTotalNanos()}: the
 *       sampled time from a send to its delivery</td></tr>
 *   <tr><td>{@value #HAND_OFF_MAX}</td><td>time gauge</td>
 *       <td>{@link LoopMailbox#handOffMaxNanos()}: the largest sample since the registration</td></tr>
 * </table>
 *
 * <p>The meters read the mailbox's counts when the registry is scraped, without a lock: they are
 * fields that the senders and the loop store for other threads (see the accessors). Nothing is
 * added to the path of a message.
 *
 * <p>The meters hold the mailbox <em>weakly</em> (Micrometer's default for function-based meters):
 * binding does not keep a mailbox reachable. A registered mailbox is reachable from its event loop
 * until it closes; once the application drops a closed mailbox and it is collected, the gauges read
 * {@code NaN} and the counters keep their last values, until the meters are removed from the
 * registry. This binder itself holds the mailbox strongly.
 *
 * <pre>{@code
 * LoopMailbox<Order> orders = LoopMailbox.builder(loop, book::apply).name("orders").register();
 * new LoopMailboxMetrics(orders, Tags.of("service", "book")).bindTo(registry);
 * }</pre>
 */
public final class LoopMailboxMetrics implements MeterBinder {

    /** The tag whose value is the mailbox's {@link LoopMailbox#name()}. */
    public static final String MAILBOX_TAG = "mailbox";
    /** The gauge of {@link LoopMailbox#depth()}. */
    public static final String DEPTH = "ysuite.mailbox.depth";
    /** The function counter of {@link LoopMailbox#sent()}. */
    public static final String SENT = "ysuite.mailbox.sent";
    /** The function counter of {@link LoopMailbox#delivered()}. */
    public static final String DELIVERED = "ysuite.mailbox.delivered";
    /** The function counter of {@link LoopMailbox#wakeups()}. */
    public static final String WAKEUPS = "ysuite.mailbox.wakeups";
    /** The function timer of the hand-off samples' count and total. */
    public static final String HAND_OFF = "ysuite.mailbox.handoff";
    /** The time gauge of {@link LoopMailbox#handOffMaxNanos()}. */
    public static final String HAND_OFF_MAX = "ysuite.mailbox.handoff.max";

    private static final String MESSAGES = "messages";

    private final LoopMailbox<?> mailbox;
    private final Tags tags;

    /**
     * Meters for {@code mailbox}, tagged with its name only.
     *
     * @param mailbox the mailbox
     * @throws NullPointerException if {@code mailbox} is null
     */
    public LoopMailboxMetrics(LoopMailbox<?> mailbox) {
        this(mailbox, Tags.empty());
    }

    /**
     * Meters for {@code mailbox}, tagged with its name and {@code tags}.
     *
     * @param mailbox the mailbox
     * @param tags added to every meter; a {@value #MAILBOX_TAG} tag among them is replaced by the
     *     mailbox's name
     * @throws NullPointerException if an argument or one of the tags is null
     */
    public LoopMailboxMetrics(LoopMailbox<?> mailbox, Iterable<Tag> tags) {
        this.mailbox = Objects.requireNonNull(mailbox, "mailbox");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags")).and(MAILBOX_TAG, mailbox.name());
    }

    /**
     * Registers the meters (see the class doc) with {@code registry}. Bind a mailbox once per
     * registry: a second binding registers nothing new (Micrometer keeps the meters it has, and
     * logs a warning for the gauges).
     *
     * @param registry the registry
     * @throws NullPointerException if {@code registry} is null
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        Gauge.builder(DEPTH, mailbox, LoopMailbox::depth)
                .description("Accepted messages waiting to be delivered (approximate)")
                .baseUnit(MESSAGES).tags(tags).register(registry);
        FunctionCounter.builder(SENT, mailbox, LoopMailbox::sent)
                .description("Messages accepted by the mailbox's senders")
                .baseUnit(MESSAGES).tags(tags).register(registry);
        FunctionCounter.builder(DELIVERED, mailbox, LoopMailbox::delivered)
                .description("Messages handed to the handler on the event loop")
                .baseUnit(MESSAGES).tags(tags).register(registry);
        FunctionCounter.builder(WAKEUPS, mailbox, LoopMailbox::wakeups)
                .description("Times the event loop was woken for the mailbox")
                .baseUnit("wakeups").tags(tags).register(registry);
        FunctionTimer.builder(HAND_OFF, mailbox, LoopMailbox::handOffSamples, LoopMailbox::handOffTotalNanos,
                        TimeUnit.NANOSECONDS)
                .description("Sampled time from a send to the message's delivery on the event loop")
                .tags(tags).register(registry);
        TimeGauge.builder(HAND_OFF_MAX, mailbox, TimeUnit.NANOSECONDS, LoopMailbox::handOffMaxNanos)
                .description("The largest sampled hand-off time since the mailbox was registered")
                .tags(tags).register(registry);
    }

    /**
     * Describes the binder.
     *
     * @return the mailbox's name and the tags
     */
    @Override
    public String toString() {
        return "LoopMailboxMetrics[" + mailbox.name() + ", " + tags + "]";
    }
}
