package org.ysuite.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.nio.NioIoHandle;
import java.nio.channels.SelectableChannel;

/**
 * The NIO side of a {@link LoopMailbox}: the {@link org.ysuite.NioSignaler}'s pipe channel as a
 * {@link NioIoHandle}. Unlike Netty's {@code NioSelectableChannelIoHandle} it never closes the
 * channel itself: the signaler does, in {@code unregistered()}.
 */
final class NioMailboxHandle implements NioIoHandle {

    private final LoopMailbox<?> box;
    private final SelectableChannel channel;

    NioMailboxHandle(LoopMailbox<?> box, SelectableChannel channel) {
        this.box = box;
        this.channel = channel;
    }

    @Override
    public SelectableChannel selectableChannel() {
        return channel;
    }

    @Override
    public void handle(IoRegistration registration, IoEvent ioEvent) {
        box.onEvent();
    }

    @Override
    public void unregistered() {
        box.onUnregistered();
    }

    @Override
    public void close() {
        box.close();
    }
}
