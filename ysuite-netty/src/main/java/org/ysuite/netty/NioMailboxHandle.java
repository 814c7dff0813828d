package org.ysuite.netty;

import io.netty.channel.nio.NioIoHandle;
import java.nio.channels.SelectableChannel;

/**
 * The NIO side of a {@link LoopMailbox}: the {@link org.ysuite.NioSignaler}'s pipe channel as a
 * {@link NioIoHandle}. Unlike Netty's {@code NioSelectableChannelIoHandle} it never closes the
 * channel itself: the signaler does, in {@code unregistered()}.
 */
final class NioMailboxHandle extends MailboxHandle implements NioIoHandle {

    private final SelectableChannel channel;

    NioMailboxHandle(MailboxHandle.Owner owner, SelectableChannel channel) {
        super(owner);
        this.channel = channel;
    }

    @Override
    public SelectableChannel selectableChannel() {
        return channel;
    }
}
