package org.ysuite.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.ysuite.OffHeapYPipe;

/**
 * The lifecycle of a {@link MessageStream}'s channel: the connect's outcome, failures, the end of
 * the channel and the stream's own close. It is the last handler of the stream, so it sees the
 * {@code connect} first and every exception the others pass on.
 *
 * <p>The end is {@code channelInactive} for a channel that was active, and the channel's close
 * future for one that never was: Netty fires {@code channelInactive} only for a channel that was
 * active, and a connect that is refused, or a channel closed before it connected, never is. A
 * transport closes a refused channel before it fails the connect's promise, so an end before
 * active waits for a pending connect's outcome and reports its cause. When the channel closes
 * (once, on the loop): the reason is recorded (the connect's failure, "closed before it became active", or the loop's
 * shutdown), the outbound side ends (every writer's pipe closed, so a waiting writer wakes up and
 * throws, and the mailbox's descriptors released), then the inbound side ends (the reader gets what
 * arrived, then the end). The inbound pipe's memory is freed when {@link MessageStream#close()}
 * is called too. A TLS client's {@link StreamTls} is installed here, at the connect, where the
 * peer's host (for hostname verification) is first known.
 */
final class StreamLifecycle extends ChannelDuplexHandler {

    private final Channel channel;
    private final StreamStatus status;
    private final FrameDecoder decoder;
    private final FrameEncoder encoder;
    private final WriterMailbox mailbox;
    private final OffHeapYPipe inbound;
    private final long lingerMillis;
    /** The stream's TLS, or null; a client's handler is installed by {@link #connect}. */
    private final StreamTls tls;
    private final CompletableFuture<Void> released = new CompletableFuture<>();
    final Runnable closeTask = this::closeOnLoop;

    // Loop thread only.
    private ChannelHandlerContext ctx;
    private boolean wasActive;
    private SocketAddress connectingTo;
    private ChannelPromise connectPromise;
    private boolean channelEnded;
    private boolean closeRequested;
    private boolean isReleased;

    StreamLifecycle(Channel channel, StreamStatus status, FrameDecoder decoder, FrameEncoder encoder,
                    WriterMailbox mailbox, OffHeapYPipe inbound, long lingerMillis, StreamTls tls) {
        this.channel = channel;
        this.status = status;
        this.decoder = decoder;
        this.encoder = encoder;
        this.mailbox = mailbox;
        this.inbound = inbound;
        this.lingerMillis = lingerMillis;
        this.tls = tls;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        wasActive = channel.isActive();
        if (!channel.isOpen()) {
            channelClosed(); // closed before the stream was attached: its events are gone
            return;
        }
        // A channel that was active ends with channelInactive, which Netty fires after the
        // failures of the close (a failed write's exceptionCaught), so the reason is recorded
        // first. One that never was gets no channelInactive: its close future ends it.
        channel.closeFuture().addListener(f -> {
            if (!wasActive) {
                channelClosed();
            }
        });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        channelClosed();
        ctx.fireChannelInactive();
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
        connectingTo = remote;
        connectPromise = promise;
        if (tls != null) {
            tls.install(channel, remote, encoder, status); // first in the pipeline: it sees the connect last
        }
        ctx.connect(remote, local, promise);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        wasActive = true;
        ctx.fireChannelActive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String what = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName();
        status.fail(new IOException("connection failed: " + what, cause));
        ctx.close();
    }

    /** The channel is closed: the end of both directions. Loop thread, once. */
    private void channelClosed() {
        if (channelEnded) {
            return;
        }
        if (!wasActive && connectPromise != null && !connectPromise.isDone()) {
            // The transport may close the channel before it fails the connect's promise (a
            // refused connect does, on both NIO and epoll): the connect's cause is the reason,
            // so the end waits for it. Closing a channel fails a pending connect, so it comes.
            connectPromise.addListener(f -> channelClosed());
            return;
        }
        channelEnded = true;
        Throwable connectFailure = connectPromise != null && connectPromise.isDone() ? connectPromise.cause() : null;
        if (!wasActive) {
            if (connectFailure instanceof java.nio.channels.ClosedChannelException) {
                status.fail(new IOException("the channel was closed before it became active (while connecting to "
                        + connectingTo + ")", connectFailure));
            } else if (connectFailure != null) {
                String why = connectFailure.getMessage() != null ? connectFailure.getMessage()
                        : connectFailure.getClass().getName();
                status.fail(new IOException("connect to " + connectingTo + " failed: " + why, connectFailure));
            } else {
                status.fail(new IOException("the channel was closed before it became active (not connected)"));
            }
        } else if (channel.eventLoop().isShuttingDown() && !closeRequested) {
            status.fail(new IOException("the channel was closed because its event loop is shut down"));
        }
        // Outbound first: a reader that sees the end of the input finds newWriter() refused.
        encoder.close();
        mailbox.close();
        decoder.inputEnded();
        if (closeRequested) {
            release();
        }
    }

    /** {@link MessageStream#close()} on the loop: sends what is flushed, then closes the channel. */
    private void closeOnLoop() {
        closeRequested = true;
        if (isReleased) {
            return;
        }
        if (channelEnded || !channel.isOpen()) {
            release();
            return;
        }
        if (ctx != null && channel.isActive() && encoder.awaitingHandshake()) {
            // TLS: what the writers flushed can go out only after the handshake, so the close
            // comes back then (a failed handshake closes the channel itself); the linger bounds it.
            encoder.afterHandshake(closeTask);
            channel.eventLoop().schedule(() -> {
                channel.close();
            }, lingerMillis, TimeUnit.MILLISECONDS);
        } else if (ctx != null && channel.isActive()) {
            encoder.drainAll(mailbox.pipes());
            // Close once the socket has taken everything queued, or after the linger time.
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            channel.eventLoop().schedule(() -> {
                channel.close();
            }, lingerMillis, TimeUnit.MILLISECONDS);
        } else {
            channel.close(); // channelClosed() releases
        }
    }

    /**
     * Frees everything once the channel is closed and the stream's close was asked for. On the
     * loop, or on the closing thread once the loop is gone. Idempotent.
     */
    void release() {
        if (isReleased) {
            return;
        }
        isReleased = true;
        encoder.close();
        mailbox.close();
        decoder.release();
        inbound.close();
        status.endInbound();
        mailbox.closeFuture().whenComplete((v, e) -> released.complete(null));
    }

    /** Completed once the stream is released. */
    CompletableFuture<Void> releasedFuture() {
        return released;
    }
}
