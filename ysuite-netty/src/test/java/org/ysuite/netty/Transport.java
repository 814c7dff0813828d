package org.ysuite.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.ysuite.YSocketPair;

/** The three ways a test can run a {@link LoopMailbox}: epoll over either descriptor kind, or NIO. */
enum Transport {
    EPOLL_EVENTFD, EPOLL_SOCKETPAIR, NIO;

    IoHandlerFactory factory() {
        return this == NIO ? NioIoHandler.newFactory() : EpollIoHandler.newFactory();
    }

    MultiThreadIoEventLoopGroup newGroup() {
        return new MultiThreadIoEventLoopGroup(1, factory());
    }

    <T> LoopMailboxBuilder<T> builder(IoEventLoop loop, Consumer<? super T> handler) {
        LoopMailboxBuilder<T> b = LoopMailbox.builder(loop, handler);
        if (this == EPOLL_SOCKETPAIR) {
            b.socketKind(YSocketPair.Kind.SOCKETPAIR);
        }
        return b;
    }

    Class<? extends ServerChannel> serverChannel() {
        return this == NIO ? NioServerSocketChannel.class : EpollServerSocketChannel.class;
    }

    Class<? extends SocketChannel> clientChannel() {
        return this == NIO ? NioSocketChannel.class : EpollSocketChannel.class;
    }

    static void shutdown(MultiThreadIoEventLoopGroup group) throws Exception {
        if (!group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the event loop group did not terminate in 10 s");
        }
    }
}
