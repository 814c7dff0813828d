package org.ysuite.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What every transport's handle of a signaler's descriptor does with Netty's calls (for a
 * {@link LoopMailbox} or a {@link WriterMailbox}): readiness drains the owner, {@code unregistered()}
 * runs its close sequence, {@code close()} closes it. The subclasses add the transport's view of
 * the descriptor.
 */
abstract class MailboxHandle implements IoHandle {

    /** The owner's three reactions, each run on the loop thread (or as Netty calls them). */
    static final class Owner {
        final Runnable onEvent;
        final Runnable onUnregistered;
        final Runnable onClose;

        Owner(Runnable onEvent, Runnable onUnregistered, Runnable onClose) {
            this.onEvent = onEvent;
            this.onUnregistered = onUnregistered;
            this.onClose = onClose;
        }
    }

    private final Owner owner;

    MailboxHandle(Owner owner) {
        this.owner = owner;
    }

    @Override
    public final void handle(IoRegistration registration, IoEvent ioEvent) {
        owner.onEvent.run();
    }

    @Override
    public final void unregistered() {
        owner.onUnregistered.run();
    }

    @Override
    public final void close() {
        owner.onClose.run();
    }
}
