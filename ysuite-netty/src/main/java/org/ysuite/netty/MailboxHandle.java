package org.ysuite.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What every transport's handle of a {@link LoopMailbox} does with Netty's calls: readiness
 * drains the mailbox, {@code unregistered()} runs its close sequence, {@code close()} closes it.
 * The subclasses add the transport's view of the descriptor.
 */
abstract class MailboxHandle implements IoHandle {

    final LoopMailbox<?> box;

    MailboxHandle(LoopMailbox<?> box) {
        this.box = box;
    }

    @Override
    public final void handle(IoRegistration registration, IoEvent ioEvent) {
        box.onEvent();
    }

    @Override
    public final void unregistered() {
        box.onUnregistered();
    }

    @Override
    public final void close() {
        box.close();
    }
}
