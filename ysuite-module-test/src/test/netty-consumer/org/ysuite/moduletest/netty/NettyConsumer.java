package org.ysuite.moduletest.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.ysuite.netty.LoopMailbox;

/**
 * Hands {@link #MESSAGES} messages from an application thread to a Netty event loop through a
 * {@link LoopMailbox}, on an NIO loop and on an epoll loop, and prints one line per check, then
 * {@code netty consumer: ok}. Any failure is an exception and a non-zero exit status.
 */
public final class NettyConsumer {

    /** Messages handed to each loop. */
    public static final int MESSAGES = 100_000;

    private NettyConsumer() {
    }

    /**
     * Runs the checks.
     *
     * @param args ignored
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        Module ysuiteNetty = LoopMailbox.class.getModule();
        System.out.println("module: " + NettyConsumer.class.getModule().getName() + " reads " + ysuiteNetty.getName()
                + (ysuiteNetty.getDescriptor().isAutomatic() ? " (automatic)" : " (explicit)"));
        System.out.println("exports: " + ysuiteNetty.getDescriptor().exports());
        System.out.println("LoopMailbox(nio): " + handOff(NioIoHandler.newFactory()));
        Epoll.ensureAvailability();
        System.out.println("LoopMailbox(epoll): " + handOff(EpollIoHandler.newFactory()));
        System.out.println("netty consumer: ok");
    }

    /**
     * One application thread sends 0 .. MESSAGES-1 through a mailbox on a one-thread loop made by
     * {@code factory}; the handler checks the order on the loop thread.
     */
    private static String handOff(IoHandlerFactory factory) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, factory);
        try {
            IoEventLoop loop = group.next();
            CountDownLatch all = new CountDownLatch(1);
            // Touched by the loop thread only; the latch's countDown/await publishes them to main.
            long[] next = {0};
            String[] failure = {null};
            LoopMailbox<Long> box = LoopMailbox.register(loop, (Long m) -> {
                if (!loop.inEventLoop() && failure[0] == null) {
                    failure[0] = "handler ran on " + Thread.currentThread().getName();
                }
                if (m != next[0] && failure[0] == null) {
                    failure[0] = "expected " + next[0] + ", got " + m;
                }
                next[0] = m + 1;
                if (next[0] == MESSAGES) {
                    all.countDown();
                }
            });
            Thread writer = new Thread(() -> {
                LoopMailbox.Sender<Long> out = box.newSender();
                for (long i = 0; i < MESSAGES; i++) {
                    out.send(i);
                }
            }, "netty-consumer-writer");
            writer.start();
            if (!all.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("not every message was delivered within 60 s");
            }
            writer.join();
            if (failure[0] != null) {
                throw new AssertionError(failure[0]);
            }
            box.close().get(10, TimeUnit.SECONDS);
            return next[0] + " on " + box;
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            if (!group.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the event loop did not terminate within 10 s");
            }
        }
    }
}
