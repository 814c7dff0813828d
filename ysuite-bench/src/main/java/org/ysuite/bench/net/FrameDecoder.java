package org.ysuite.bench.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The Netty peers' frame decoder (the part of Netty's {@code LengthFieldBasedFrameDecoder} they
 * need, without the netty-codec dependency): accumulates the bytes read and passes every whole
 * frame (4-byte big-endian length, then the bytes) on as a retained slice without the length.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    private final int maxLength;
    private ByteBuf cumulation;

    FrameDecoder(int maxLength) {
        this.maxLength = maxLength;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (cumulation == null) {
            cumulation = in;
        } else {
            if (cumulation.writableBytes() < in.readableBytes()) {
                ByteBuf bigger = ctx.alloc().buffer(cumulation.readableBytes() + in.readableBytes());
                bigger.writeBytes(cumulation);
                cumulation.release();
                cumulation = bigger;
            }
            cumulation.writeBytes(in);
            in.release();
        }
        while (cumulation.readableBytes() >= 4) {
            int length = cumulation.getInt(cumulation.readerIndex());
            if (length < 0 || length > maxLength) {
                throw new IllegalStateException("frame of " + length + " bytes: over " + maxLength);
            }
            if (cumulation.readableBytes() < 4 + length) {
                break;
            }
            cumulation.skipBytes(4);
            ctx.fireChannelRead(cumulation.readRetainedSlice(length));
        }
        if (!cumulation.isReadable()) {
            cumulation.release();
            cumulation = null;
        } else if (cumulation.readerIndex() > 0 && cumulation.refCnt() == 1) {
            cumulation.discardReadBytes();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
        ctx.fireChannelInactive();
    }
}
