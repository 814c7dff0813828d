package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.ysuite.NioSignaler;
import org.ysuite.YSocketPair;

/**
 * Settings of a {@link LoopMailbox}, from {@link LoopMailbox#builder}. Not thread-safe; each
 * {@link #register()} makes a new mailbox.
 *
 * @param <T> the type of the messages
 */
public final class LoopMailboxBuilder<T> {

    /** The largest {@link #handOffSampleInterval}. */
    static final int MAX_SAMPLE_INTERVAL = 1 << 30;

    private static final InternalLogger LOGGER = InternalLoggerFactory.getInstance(LoopMailbox.class);
    /** Numbers the mailboxes registered without a name (once per registration, never per message). */
    private static final AtomicLong UNNAMED = new AtomicLong();

    final IoEventLoop loop;
    final Consumer<? super T> handler;
    YSocketPair.Kind kind = YSocketPair.Kind.EVENTFD;
    int batchLimit = LoopMailbox.DEFAULT_BATCH_LIMIT;
    BiConsumer<? super T, ? super Throwable> onHandlerFailure = LoopMailboxBuilder::logFailure;
    String name;
    int handOffSampleInterval = LoopMailbox.DEFAULT_HAND_OFF_SAMPLE_INTERVAL;

    LoopMailboxBuilder(IoEventLoop loop, Consumer<? super T> handler) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /**
     * Chooses the descriptor of the {@link YSocketPair} that the mailbox registers on an epoll
     * loop (ignored on NIO, which registers a {@link NioSignaler}'s pipe). It carries no
     * wake-up; it ties the mailbox's life to the loop's. Default: {@link YSocketPair.Kind#EVENTFD}.
     *
     * @param kind eventfd or socketpair
     * @return this builder
     * @throws NullPointerException if {@code kind} is null
     */
    public LoopMailboxBuilder<T> socketKind(YSocketPair.Kind kind) {
        this.kind = Objects.requireNonNull(kind, "kind");
        return this;
    }

    /**
     * Sets how many messages the loop delivers from one sender's pipe in one go before it lets
     * its other work (its sockets, its tasks) run; it then goes on in its next turn. The limit
     * is checked after each batch (every message flushed so far), so one go can exceed it by
     * up to one batch. Default {@link LoopMailbox#DEFAULT_BATCH_LIMIT}.
     *
     * @param batchLimit messages per pipe per turn of the loop, {@code >= 1}
     * @return this builder
     * @throws IllegalArgumentException if {@code batchLimit} is less than 1
     */
    public LoopMailboxBuilder<T> batchLimit(int batchLimit) {
        if (batchLimit < 1) {
            throw new IllegalArgumentException("batchLimit must be >= 1: " + batchLimit);
        }
        this.batchLimit = batchLimit;
        return this;
    }

    /**
     * Sets what is done, on the loop thread, with a message whose handler threw; the next
     * message is delivered afterwards either way. Default: logged at {@code WARN} through
     * Netty's {@code InternalLogger}, as Netty logs a failed task.
     *
     * @param onHandlerFailure receives the message and what the handler threw; if it throws
     *     in turn, that is logged and ignored
     * @return this builder
     * @throws NullPointerException if {@code onHandlerFailure} is null
     */
    public LoopMailboxBuilder<T> onHandlerFailure(BiConsumer<? super T, ? super Throwable> onHandlerFailure) {
        this.onHandlerFailure = Objects.requireNonNull(onHandlerFailure, "onHandlerFailure");
        return this;
    }

    /**
     * Names the mailbox: {@link LoopMailbox#name()}, shown by {@code toString()} and used by
     * metrics (e.g. ysuite-micrometer's {@code mailbox} tag). Default: {@code LoopMailbox-}
     * followed by a number unique in this JVM.
     *
     * @param name the name, not blank
     * @return this builder
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is empty or only white space
     */
    public LoopMailboxBuilder<T> name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: \"" + name + "\"");
        }
        this.name = name;
        return this;
    }

    /**
     * Sets how often each sender samples the hand-off latency (see
     * {@link LoopMailbox#handOffSamples()}): it reads {@code System.nanoTime()} for one
     * message in {@code interval} (the {@code interval}-th, the {@code 2*interval}-th, ... of
     * each sender), never for the others. A sample point is skipped while that sender's
     * previous sample is still waiting in the mailbox. {@code 1} samples every message that a
     * sender writes once its previous one is delivered. Default
     * {@link LoopMailbox#DEFAULT_HAND_OFF_SAMPLE_INTERVAL}.
     *
     * @param interval a power of two, from 1 to 2<sup>30</sup>
     * @return this builder
     * @throws IllegalArgumentException if {@code interval} is not a power of two in that range
     */
    public LoopMailboxBuilder<T> handOffSampleInterval(int interval) {
        if (interval < 1 || interval > MAX_SAMPLE_INTERVAL || Integer.bitCount(interval) != 1) {
            throw new IllegalArgumentException("handOffSampleInterval must be a power of two from 1 to "
                    + MAX_SAMPLE_INTERVAL + ": " + interval);
        }
        this.handOffSampleInterval = interval;
        return this;
    }

    /**
     * Opens the descriptor and registers the mailbox with the loop. The registration itself
     * runs on the loop thread; {@link LoopMailbox#registrationFuture()} tells when it is done.
     *
     * @return the new mailbox; senders may send at once
     * @throws IllegalArgumentException if the loop is neither an epoll nor a NIO loop
     * @throws IllegalStateException if the loop refuses the registration (it is shut down)
     *     or the descriptors cannot be created
     */
    public LoopMailbox<T> register() {
        LoopMailbox<T> box = new LoopMailbox<>(this);
        box.start();
        return box;
    }

    /** The name given by {@link #name}, or {@code LoopMailbox-N}, N unique in this JVM. */
    String nameOrDefault() {
        return name != null ? name : "LoopMailbox-" + UNNAMED.incrementAndGet();
    }

    private static void logFailure(Object message, Throwable failure) {
        LOGGER.warn("A LoopMailbox handler raised an exception. Message: {}", message, failure);
    }
}
