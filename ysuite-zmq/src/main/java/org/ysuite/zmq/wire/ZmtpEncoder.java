package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayDeque;

/**
 * The sending half of one ZMTP connection (libzmq's v2 encoder): frames are batched into one pooled
 * buffer, copied when small, and written to the channel on {@link #flush()} or when the batch is full.
 * A batch starts at the size the previous one reached (so that a connection that flushes every small
 * message does not hold 16 KiB per queued flush) and grows up to {@link #BATCH_CAPACITY}. A
 * large frame is not copied: its header goes at the end of the batch, the batch is written, then the
 * frame's own buffer follows it. Event loop only.
 */
final class ZmtpEncoder {

    /** The batch buffer's capacity. */
    static final int BATCH_CAPACITY = 16 * 1024;
    /** Frames up to this size are copied into the batch; larger ones are written as they are. */
    static final int COPY_LIMIT = 4 * 1024;
    /** The smallest capacity a batch starts at. */
    static final int MIN_BATCH = 256;

    private final ChannelHandlerContext ctx;
    private ByteBuf batch;
    /** The last frame queued had MORE set: commands wait until the message is complete. */
    private boolean midMessage;
    /** Commands that wait for the end of the message being queued; null when none. */
    private ArrayDeque<ByteBuf> deferred;
    /** The bytes the last batch written held: the next one starts at that size. */
    private int lastBatchSize = MIN_BATCH;

    ZmtpEncoder(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    private ByteBuf batch(int room) {
        ByteBuf b = batch;
        if (b != null && b.maxWritableBytes() >= room) {
            return b;
        }
        if (b != null) {
            writeBatch();
        }
        int capacity = Math.max(room, lastBatchSize);
        b = ctx.alloc().directBuffer(capacity, Math.max(BATCH_CAPACITY, room));
        batch = b;
        return b;
    }

    /** Queues one message frame; takes ownership of {@code data}. */
    void frame(ByteBuf data, boolean more) {
        int size = data.readableBytes();
        if (size <= COPY_LIMIT) {
            ByteBuf b = batch(9 + size);
            ZmtpConnection.writeFrameHeader(b, size, more);
            b.writeBytes(data, data.readerIndex(), size);
            data.release();
        } else {
            ByteBuf b = batch(9);
            ZmtpConnection.writeFrameHeader(b, size, more);
            writeBatch();
            ctx.write(data, ctx.voidPromise());
        }
        midMessage = more;
        if (!more && deferred != null) {
            writeDeferred();
        }
    }

    private void writeDeferred() {
        ArrayDeque<ByteBuf> d = deferred;
        deferred = null;
        for (ByteBuf c; (c = d.poll()) != null; ) {
            framed(c);
        }
    }

    /** Queues bytes that are whole frames already; takes ownership. */
    void framed(ByteBuf framed) {
        int size = framed.readableBytes();
        if (size <= COPY_LIMIT) {
            batch(size).writeBytes(framed, framed.readerIndex(), size);
            framed.release();
        } else {
            writeBatch();
            ctx.write(framed, ctx.voidPromise());
        }
    }

    /** Queues a subscription: a SUBSCRIBE/CANCEL command (ZMTP 3.1) or a subscription message (3.0). */
    void subscription(ByteBuf topic, boolean subscribe, int minorVersion) {
        int size = topic.readableBytes();
        if (minorVersion >= 1) {
            byte[] name = subscribe ? ZmtpCommands.SUBSCRIBE : ZmtpCommands.CANCEL;
            int body = 1 + name.length + size;
            ByteBuf b = batch(9 + body);
            ZmtpCommands.writeHeader(b, body);
            b.writeByte(name.length);
            b.writeBytes(name);
            b.writeBytes(topic, topic.readerIndex(), size);
        } else {
            ByteBuf b = batch(9 + 1 + size);
            ZmtpConnection.writeFrameHeader(b, 1 + size, false);
            b.writeByte(subscribe ? 1 : 0);
            b.writeBytes(topic, topic.readerIndex(), size);
        }
        topic.release();
    }

    /**
     * Queues a whole command frame; takes ownership. While a message is half queued (its last frame had
     * MORE), the command waits until the message's last frame, so that it never splits a message.
     */
    void command(ByteBuf frame) {
        if (midMessage) {
            if (deferred == null) {
                deferred = new ArrayDeque<>(2);
            }
            deferred.add(frame);
        } else {
            framed(frame);
        }
    }

    private void writeBatch() {
        ByteBuf b = batch;
        if (b != null) {
            batch = null;
            if (b.isReadable()) {
                lastBatchSize = Math.max(MIN_BATCH, Math.min(BATCH_CAPACITY, b.readableBytes()));
                ctx.write(b, ctx.voidPromise());
            } else {
                b.release();
            }
        }
    }

    /** Writes the batch and flushes the channel. */
    void flush() {
        writeBatch();
        ctx.flush();
    }

    /** Drops what was not flushed. */
    void release() {
        ByteBuf b = batch;
        batch = null;
        if (b != null) {
            b.release();
        }
        ArrayDeque<ByteBuf> d = deferred;
        deferred = null;
        if (d != null) {
            for (ByteBuf c; (c = d.poll()) != null; ) {
                c.release();
            }
        }
    }
}
