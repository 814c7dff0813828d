package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoOps;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;

/**
 * The epoll side of a {@link LoopMailbox}: the {@link org.ysuite.YSocketPair}'s descriptor as an
 * {@link EpollIoHandle}. Kept in a class of its own so that a NIO-only class path never loads the
 * epoll classes.
 */
final class EpollMailboxHandle extends MailboxHandle implements EpollIoHandle {

    /**
     * Netty's view of the descriptor, made once. Netty reads it for {@code epoll_ctl} and asks
     * {@code isOpen()} before {@code EPOLL_CTL_DEL}; nothing ever closes it through this object
     * (the signaler owns the descriptor and closes it in {@code unregistered()}, after the DEL).
     */
    private final FileDescriptor fd;

    EpollMailboxHandle(MailboxHandle.Owner owner, int fd) {
        super(owner);
        this.fd = new FileDescriptor(fd);
    }

    static boolean isCompatible(IoEventLoop loop) {
        try {
            return loop.isCompatible(EpollIoHandle.class);
        } catch (LinkageError e) {
            return false; // netty-transport-classes-epoll is not on the class path
        }
    }

    /** Level-triggered readability (no {@code EPOLLET}). */
    static IoOps readOps() {
        return EpollIoOps.EPOLLIN;
    }

    @Override
    public FileDescriptor fd() {
        return fd;
    }
}
