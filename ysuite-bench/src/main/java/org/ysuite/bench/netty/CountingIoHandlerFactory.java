package org.ysuite.bench.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;

/**
 * Wraps an {@link IoHandlerFactory} to count the loop's blocking waits: each call of
 * {@link IoHandler#run} with {@link IoHandlerContext#canBlock()} true is one turn in which the loop
 * had no task and so went to {@code epoll_wait}/{@code select} without a zero timeout, to be ended
 * by a wake-up (an eventfd write for {@code execute}, the mailbox's descriptor for ysuite) or by a
 * socket. The same count for every hand-off, so their wake-ups per message can be compared.
 */
public final class CountingIoHandlerFactory implements IoHandlerFactory {

    private final IoHandlerFactory delegate;
    private volatile CountingIoHandler last;

    /**
     * Wraps {@code delegate}.
     *
     * @param delegate the real factory, e.g. {@code EpollIoHandler.newFactory()}
     */
    public CountingIoHandlerFactory(IoHandlerFactory delegate) {
        this.delegate = delegate;
    }

    @Override
    public IoHandler newHandler(ThreadAwareExecutor executor) {
        CountingIoHandler h = new CountingIoHandler(delegate.newHandler(executor));
        last = h;
        return h;
    }

    @Override
    public boolean isChangingThreadSupported() {
        return delegate.isChangingThreadSupported();
    }

    /**
     * Returns the blocking waits of the handler made last (the benchmarks use one-loop groups).
     *
     * @return the number of blocking waits so far
     */
    public long blockingWaits() {
        CountingIoHandler h = last;
        return h == null ? 0 : h.waits;
    }

    private static final class CountingIoHandler implements IoHandler {
        private final IoHandler delegate;
        /** Written by the loop thread only (single writer); read by the benchmark threads. */
        volatile long waits;

        CountingIoHandler(IoHandler delegate) {
            this.delegate = delegate;
        }

        @Override
        public void initialize() {
            delegate.initialize();
        }

        @Override
        public int run(IoHandlerContext context) {
            if (context.canBlock()) {
                waits = waits + 1;
            }
            return delegate.run(context);
        }

        @Override
        public void prepareToDestroy() {
            delegate.prepareToDestroy();
        }

        @Override
        public void destroy() {
            delegate.destroy();
        }

        @Override
        public IoRegistration register(IoHandle handle) throws Exception {
            return delegate.register(handle);
        }

        @Override
        public void wakeup() {
            delegate.wakeup();
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return delegate.isCompatible(handleType);
        }
    }
}
