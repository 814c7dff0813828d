package org.ysuite.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.ysuite.MessageHandler;

/**
 * The outbound side of a {@link MessageStream}: drains the writers' pipes into buffers of at most
 * {@code bufferSize} bytes, each message framed by its 4-byte big-endian length, and hands each
 * full buffer, and the last partial one, to the channel with one {@code writeAndFlush}
 * (consumer-driven batching: a batch ends when the pipes have nothing more, or at the buffer
 * size). The rest of a message that would fill an empty buffer at least once goes out in one
 * buffer of its own, as ØMQ's encoder does.
 *
 * <p>A pipe handed to {@link #wake} stays in the list until it is found empty (its reader is then
 * asleep, and its writer's next flush signals again). Nothing is drained while the handler is
 * not in a pipeline, while the channel is not active (a write before the connect completes would
 * fail it), while a TLS handshake is under way ({@link #awaitHandshake}) or not writable (Netty's water marks: a slow peer fills the writers' windows); the
 * pipes stay listed and are drained when that changes.
 *
 * <p>A {@link LoopHandler}'s replies ({@link #reply}) are framed into the same batch buffers
 * between {@link #beginReplies()} and {@link #endReplies()} (one read of the loop): full buffers
 * are written without a flush, and the read ends with one flush. Messages drained from the pipes
 * meanwhile go into the same batches, so both kinds stay whole and in order. Every method runs on
 * the event loop.
 */
final class FrameEncoder extends ChannelInboundHandlerAdapter implements MessageHandler {

    /** Bytes drained in one go before the loop lets its other work run. */
    static final int DRAIN_BUDGET = 1 << 20;

    private final int bufferSize;
    private ChannelHandlerContext ctx;
    private final ArrayDeque<OutboundPipe> pending = new ArrayDeque<>();
    private boolean drainScheduled;
    private boolean draining;
    private boolean redrain;
    private boolean closed;
    private ByteBuf chunk;
    private long drainedBytes;
    private final Runnable drainTask = this::drainTask;
    /** While a read's messages go to a {@link LoopHandler}: batches are written, flushed at its end. */
    private boolean deferFlush;
    private boolean unflushed;
    /** Set while the stream's TLS handshake has not succeeded (see {@link StreamTls}). */
    private boolean awaitingHandshake;
    /** Run once the handshake succeeded, after the drain: a close asked for during the handshake. */
    private Runnable afterHandshake;

    FrameEncoder(int bufferSize) {
        this.bufferSize = bufferSize;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        drain(false); // pipes woken before the handler was added (attach off the loop)
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        drain(false); // pipes written before the connect completed
        ctx.fireChannelActive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            drain(false);
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** The stream runs over TLS: nothing is drained until {@link #handshakeDone()}. */
    void awaitHandshake() {
        awaitingHandshake = true;
    }

    /** The TLS handshake succeeded: drains what the writers sent meanwhile. */
    void handshakeDone() {
        awaitingHandshake = false;
        drain(false);
        Runnable r = afterHandshake;
        afterHandshake = null;
        if (r != null) {
            r.run();
        }
    }

    /** Whether a TLS handshake is under way: {@link #drainAll} would drain nothing. */
    boolean awaitingHandshake() {
        return awaitingHandshake;
    }

    /** Runs {@code r} once the handshake has succeeded (not at all if it fails: the channel closes). */
    void afterHandshake(Runnable r) {
        afterHandshake = r;
    }

    /** A writer's flush found the loop asleep on {@code p}: list it and drain. */
    void wake(OutboundPipe p) {
        if (closed) {
            return;
        }
        list(p);
        drain(false);
    }

    /** Close: drains every pipe of {@code all} to its end, writable or not. */
    void drainAll(OutboundPipe[] all) {
        for (OutboundPipe p : all) {
            list(p);
        }
        drain(true);
    }

    private void list(OutboundPipe p) {
        if (!p.pending) {
            p.pending = true;
            pending.add(p);
        }
    }

    /** Nothing more will be sent: forgets the pipes and frees the batch buffer. Idempotent. */
    void close() {
        closed = true;
        for (OutboundPipe p : pending) {
            p.pending = false;
        }
        pending.clear();
        ByteBuf c = chunk;
        chunk = null;
        if (c != null) {
            c.release();
        }
    }

    /** A read begins whose replies are batched: written as batches fill, flushed by {@link #endReplies()}. */
    void beginReplies() {
        deferFlush = true;
    }

    /** The read is over: the last partial batch goes out and everything is flushed, once. */
    void endReplies() {
        if (!deferFlush) {
            return;
        }
        if (!closed) {
            sendChunk(); // written, not flushed: the flush below is the read's one
        }
        deferFlush = false;
        if (closed) {
            return;
        }
        if (unflushed) {
            unflushed = false;
            ctx.flush();
        }
    }

    /** A {@link LoopHandler}'s reply from an array: framed into the batch. */
    void reply(byte[] src, int offset, int length) {
        if (closed || ctx == null) {
            return; // the channel has ended: nothing more goes out
        }
        boolean outer = enterReply();
        try {
            writeHeader(length);
            int pos = offset;
            int end = offset + length;
            while (pos < end) {
                ByteBuf c = chunk();
                int n = Math.min(end - pos, c.writableBytes());
                c.writeBytes(src, pos, n);
                pos += n;
                fullChunk();
            }
        } finally {
            leaveReply(outer);
        }
    }

    /** A {@link LoopHandler}'s reply from a buffer (its position and limit are the caller's to restore). */
    void reply(ByteBuffer src, int offset, int length) {
        if (closed || ctx == null) {
            return;
        }
        boolean outer = enterReply();
        try {
            onMessage(src, offset, length);
        } finally {
            leaveReply(outer);
        }
    }

    /**
     * A reply is framed whole: a drain re-entered from inside it (a write of ours made Netty fire
     * channelWritabilityChanged) waits until the reply is in the batch, as a drain's own re-entry does.
     */
    private boolean enterReply() {
        boolean outer = !draining;
        draining = true;
        return outer;
    }

    private void leaveReply(boolean outer) {
        if (outer) {
            draining = false;
            if (redrain) {
                drain(false);
            }
        }
    }

    private void drainTask() {
        drainScheduled = false;
        drain(false);
    }

    private void drain(boolean force) {
        if (closed || ctx == null || awaitingHandshake || !ctx.channel().isActive()) {
            return; // the pipes stay listed
        }
        if (draining) {
            // Re-entered from inside a drain (a writeAndFlush of ours made Netty fire
            // channelWritabilityChanged): a pipe's reader side must not be re-entered; the drain
            // in progress goes round once more.
            redrain = true;
            return;
        }
        draining = true;
        try {
            do {
                redrain = false;
                drainOnce(force);
            } while (redrain && !closed);
        } finally {
            draining = false;
        }
    }

    private void drainOnce(boolean force) {
        drainedBytes = 0;
        OutboundPipe p;
        while ((p = pending.peek()) != null && !closed) {
            if (!force && !ctx.channel().isWritable()) {
                break; // channelWritabilityChanged goes on
            }
            if (!force && drainedBytes >= DRAIN_BUDGET) {
                if (!drainScheduled) {
                    drainScheduled = true;
                    ctx.executor().execute(drainTask); // from the loop thread: no wake-up
                }
                break;
            }
            if (p.pipe.readBatch(this) == 0) {
                // Empty: the pipe's reader (this loop) is now asleep, so the writer's next flush
                // returns false and signals its id again.
                pending.poll();
                p.pending = false;
            }
        }
        sendChunk();
    }

    /** One outbound message, a view into a writer's pipe: frames it into the batch buffers. */
    @Override
    public void onMessage(ByteBuffer buffer, int offset, int length) {
        drainedBytes += 4 + length;
        ByteBuf small;
        if (length <= SmallCopy.MAX_BYTES && (small = chunk()).writableBytes() >= 4 + length) {
            // A small frame that fits the batch buffer whole: header and payload by words, not
            // by a bulk copy that costs more than the message (see SmallCopy).
            small.writeInt(length);
            SmallCopy.toByteBuf(buffer, offset, length, small);
            fullChunk();
            return;
        }
        writeHeader(length);
        int pos = offset;
        int end = offset + length;
        ByteBuf c;
        while (pos < end) {
            if (chunk == null && end - pos >= bufferSize) {
                // The batch buffer is empty and the rest would fill it at least once: one copy
                // and one write of its own. Every earlier byte went to the channel before it.
                sendWhole(buffer, pos, end - pos);
                break;
            }
            c = chunk();
            int n = Math.min(end - pos, c.writableBytes());
            buffer.limit(pos + n).position(pos);
            c.writeBytes(buffer);
            pos += n;
            fullChunk();
        }
    }

    private void writeHeader(int length) {
        ByteBuf c = chunk();
        if (c.writableBytes() >= 4) {
            c.writeInt(length);
        } else {
            for (int shift = 24; shift >= 0; shift -= 8) {
                chunk().writeByte(length >>> shift);
                fullChunk();
            }
        }
        fullChunk();
    }

    private ByteBuf chunk() {
        if (chunk == null) {
            chunk = ctx.alloc().directBuffer(bufferSize, bufferSize);
        }
        return chunk;
    }

    private void fullChunk() {
        if (chunk != null && !chunk.isWritable()) {
            sendChunk();
        }
    }

    private void sendWhole(ByteBuffer buffer, int pos, int n) {
        ByteBuf whole = ctx.alloc().directBuffer(n, n);
        buffer.limit(pos + n).position(pos);
        whole.writeBytes(buffer);
        write(whole);
    }

    private void sendChunk() {
        ByteBuf c = chunk;
        if (c != null) {
            chunk = null;
            if (c.isReadable()) {
                write(c);
            } else {
                c.release();
            }
        }
    }

    private void write(ByteBuf b) {
        if (deferFlush) {
            ctx.write(b, ctx.voidPromise());
            unflushed = true;
        } else {
            ctx.writeAndFlush(b, ctx.voidPromise());
        }
    }
}
