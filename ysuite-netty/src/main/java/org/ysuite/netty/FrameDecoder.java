package org.ysuite.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.ysuite.OffHeapYPipe;

/**
 * The inbound side of a {@link MessageStream}: decodes length-prefixed frames (a 4-byte
 * big-endian length, then that many bytes) straight into the inbound pipe's claim, flushes the
 * pipe once per read, and stops reading while the pipe has no room ({@link InboundStall}).
 *
 * <p>A frame whose length is negative or over the stream's maximum fails the connection: the
 * reason is recorded in the {@link StreamStatus} and the channel is closed. The input ends
 * ({@link #inputEnded()}) when the channel closes or, with {@code ALLOW_HALF_CLOSURE}, when the
 * peer shuts its output down; the reader then gets every message that arrived, and then the end
 * (or the failure, if the input ended in the middle of a frame).
 *
 * <p>With a {@link LoopDispatch} (a stream with a {@link LoopHandler}) the frames go to it instead
 * of the pipe, and the decoder stops reading while the channel is not writable (the peer does not
 * take the replies) and reads again once it is.
 *
 * <p>Every method runs on the channel's event loop, except that {@link #resume()} is the task
 * the reader hands to it.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter implements InboundStall.Room {

    private final OffHeapYPipe inbound;
    private final int maxMessageLength;
    private final StreamStatus status;
    private final InboundStall stall;
    /** The on-loop handler's side, or null: the frames go to the inbound pipe. */
    private final LoopDispatch dispatch;
    /** Keeps the loop awake for the reader's answer after a delivery to an awake reader. */
    private final LoopLinger linger;
    /** A message was committed to the inbound pipe since the last flush. */
    private boolean committed;
    /** On-loop only: reading stopped because the channel was not writable. */
    private boolean writeStalled;
    private boolean reading;
    /** The reader's resume, for {@code loop.execute} (allocated once). */
    final Runnable resumeTask = this::resume;

    private ChannelHandlerContext ctx;
    private int headerFill;
    private int header;
    /** Length of a frame whose claim failed for room, or -1. */
    private int pendingLength = -1;
    private int claimPos;
    private int claimRemaining;
    private boolean claimOpen;
    /** Input read while the pipe was full, decoded by {@link #resume()}. */
    private final ArrayDeque<ByteBuf> heldInput = new ArrayDeque<>();
    private boolean paused;
    private boolean inputEnded;
    private boolean ended;
    private boolean released;

    FrameDecoder(OffHeapYPipe inbound, int maxMessageLength, StreamStatus status, InboundStall stall,
                 LoopDispatch dispatch, LoopLinger linger) {
        this.dispatch = dispatch;
        this.linger = linger;
        this.inbound = inbound;
        this.maxMessageLength = maxMessageLength;
        this.status = status;
        this.stall = stall;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf in = (ByteBuf) msg;
        if (released || ended) {
            in.release(); // failed or released: nothing more is the stream's
            return;
        }
        if (paused) {
            heldInput.add(in); // read after autoRead went off: kept for resume()
            return;
        }
        if (dispatch != null && !reading) {
            reading = true;
            dispatch.beginRead();
        }
        try {
            if (decode(in)) {
                in.release();
            } else {
                heldInput.add(in);
            }
        } catch (LoopDispatch.HandlerFailed e) {
            in.release();
            handlerFailed(e);
        } catch (IOException e) {
            in.release();
            malformed(e);
        }
        if (dispatch != null && !ended) {
            stopWhileUnwritable();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushInbound();
        if (reading) {
            reading = false;
            dispatch.endRead();
            if (!ended) {
                stopWhileUnwritable();
            }
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * On-loop back-pressure: the peer does not take the replies (the channel's outbound buffer
     * is over its high water mark), so stop reading its requests until it does.
     */
    private void stopWhileUnwritable() {
        if (!writeStalled && !ctx.channel().isWritable()) {
            writeStalled = true;
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (writeStalled && ctx.channel().isWritable() && !ended && !released) {
            writeStalled = false;
            ctx.channel().config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** The loop's linger after deliveries (for the tests). */
    LoopLinger linger() {
        return linger;
    }

    /** Whether the loop stopped reading because the channel is not writable (on-loop; for the tests). */
    boolean writeStalled() {
        return writeStalled;
    }

    /**
     * The on-loop handler threw: the stream fails with its exception, and the connection is
     * reset (SO_LINGER 0) so that the peer sees a failure, not a clean end.
     */
    private void handlerFailed(LoopDispatch.HandlerFailed e) {
        status.fail(e);
        endInbound();
        try {
            ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
        } catch (RuntimeException notSupported) {
            // a plain close then; the stream's own failure is recorded
        }
        ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            inputEnded(); // ALLOW_HALF_CLOSURE: the peer's FIN, the channel stays open
        }
        ctx.fireUserEventTriggered(evt);
    }

    private void malformed(IOException e) {
        status.fail(new IOException("connection failed: " + e.getMessage(), e));
        endInbound();
        ctx.close();
    }

    /**
     * Flushes what was decoded; wakes the reader if it found the pipe empty. If new messages went
     * to a reader that is awake (busy, or spinning on the signal: it takes them without a
     * wake-up), the loop lingers for its answer.
     */
    void flushInbound() {
        if (released) {
            return;
        }
        boolean awake = inbound.flush();
        if (!awake) {
            status.wakeReader();
            awake = status.readerSpinning();
        }
        if (committed && awake) {
            linger.delivered();
        }
        committed = false;
    }

    /**
     * Decodes frames from {@code in} into the pipe.
     *
     * @return {@code true} if {@code in} was consumed; {@code false} if the loop stalled for room
     *     (paused, autoRead off, the rest of {@code in} unread)
     */
    private boolean decode(ByteBuf in) throws IOException {
        for (;;) {
            if (claimOpen) {
                int n = Math.min(claimRemaining, in.readableBytes());
                if (n > 0) {
                    ByteBuffer ring = inbound.claimBuffer();
                    ring.limit(claimPos + n).position(claimPos);
                    if (n <= SmallCopy.MAX_BYTES) {
                        SmallCopy.fromByteBuf(in, n, ring, claimPos);
                    } else {
                        in.readBytes(ring);
                    }
                    claimPos += n;
                    claimRemaining -= n;
                }
                if (claimRemaining > 0) {
                    return true; // in is empty
                }
                claimOpen = false;
                inbound.commit(false);
                committed = true;
            }
            if (pendingLength < 0) {
                if (headerFill == 0 && in.readableBytes() >= 4) {
                    header = in.readInt();
                } else {
                    while (headerFill < 4 && in.isReadable()) {
                        header = (header << 8) | in.readUnsignedByte();
                        headerFill++;
                    }
                    if (headerFill < 4) {
                        return true;
                    }
                }
                headerFill = 0;
                if (header < 0 || header > maxMessageLength) {
                    throw new IOException("malformed frame: length " + (header & 0xffffffffL)
                            + " is over maxMessageLength (" + maxMessageLength + ")");
                }
                pendingLength = header;
            }
            if (dispatch != null) {
                if (!dispatch.offer(in, pendingLength)) {
                    return true; // in is empty; the frame's bytes so far are kept
                }
                pendingLength = -1;
                continue;
            }
            if (!claim()) {
                // The pipe is full. Let the reader see everything first (else it could sleep on
                // a pipe it cannot see is full), then declare the stall and retry: the Dekker
                // pair with the reader's consumed(), argued in InboundStall.
                flushInbound();
                if (stall.stall(this) == InboundStall.PAUSE) {
                    paused = true;
                    ctx.channel().config().setAutoRead(false);
                    return false;
                }
            }
        }
    }

    @Override
    public boolean claim() {
        int idx = inbound.claim(pendingLength);
        if (idx < 0) {
            return false;
        }
        claimOpen = true;
        claimPos = idx;
        claimRemaining = pendingLength;
        pendingLength = -1;
        return true;
    }

    /** The reader freed room after a stall: decodes the held input, then reads again. */
    void resume() {
        if (!paused || released) {
            return;
        }
        paused = false;
        try {
            ByteBuf in;
            while ((in = heldInput.peek()) != null) {
                if (!decode(in)) {
                    flushInbound();
                    return; // stalled again
                }
                heldInput.poll().release();
            }
        } catch (IOException e) {
            malformed(e);
            return;
        }
        flushInbound();
        if (inputEnded) {
            endInbound();
        } else {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** No more input will come; the reader gets what arrived (once any stall is over), then the end. */
    void inputEnded() {
        if (inputEnded) {
            return;
        }
        inputEnded = true;
        if (!paused) {
            endInbound();
        }
    }

    private void endInbound() {
        if (ended) {
            return;
        }
        ended = true;
        if (claimOpen || pendingLength >= 0 || headerFill > 0) {
            status.fail(new IOException("connection failed: connection closed in the middle of a message"));
        }
        flushInbound();
        status.endInbound(); // after the last flush: the reader reads once more when it sees it
    }

    /** Frees the held input and gives up an open claim, before the pipe is closed. Idempotent. */
    void release() {
        if (released) {
            return;
        }
        ByteBuf in;
        while ((in = heldInput.poll()) != null) {
            in.release();
        }
        if (claimOpen) {
            claimOpen = false;
            try {
                inbound.commit(false); // releases the writer side so that the memory can be freed
            } catch (IllegalStateException alreadyClosed) {
                // the pipe is closed already
            }
        }
        released = true;
    }
}
