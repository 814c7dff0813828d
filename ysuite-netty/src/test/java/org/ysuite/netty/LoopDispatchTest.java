package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;

/** The on-loop path (decoder → {@link LoopHandler} → encoder) on Netty's {@code EmbeddedChannel}. */
class LoopDispatchTest {

    private static final int MAX = 1000;

    private final OffHeapYPipe pipe = new OffHeapYPipe(OffHeapYPipe.MIN_CAPACITY_BYTES,
            WaitPolicy.purePark(), WaitPolicy.purePark());
    private final StreamStatus status = new StreamStatus(0, 0);
    private int flushes;
    private EmbeddedChannel ch;

    private EmbeddedChannel channel(int bufferSize, LoopHandler handler) {
        FrameEncoder encoder = new FrameEncoder(bufferSize);
        FrameDecoder decoder = new FrameDecoder(pipe, MAX, status, new InboundStall(),
                new LoopDispatch(handler, encoder, MAX), LoopLinger.NONE);
        ChannelOutboundHandlerAdapter flushCounter = new ChannelOutboundHandlerAdapter() {
            @Override
            public void flush(ChannelHandlerContext ctx) {
                flushes++;
                ctx.flush();
            }
        };
        ch = new EmbeddedChannel(flushCounter, decoder, encoder);
        return ch;
    }

    @AfterEach
    void close() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
        pipe.close();
    }

    private static byte[] frames(int count, int seed) {
        ByteBuf b = Unpooled.buffer();
        for (int i = 0; i < count; i++) {
            int length = (i * 7 + seed) % 40;
            b.writeInt(length);
            for (int j = 0; j < length; j++) {
                b.writeByte(i + j + seed);
            }
        }
        byte[] all = new byte[b.readableBytes()];
        b.readBytes(all);
        return all;
    }

    private byte[] written() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            b.release();
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    private static final LoopHandler ECHO = (buffer, offset, length, reply) -> reply.send(buffer, offset, length);

    /**
     * Many requests in one read: their replies, framed across batches of 16 bytes, go to the
     * socket with one flush at the end of the read.
     */
    @Test
    void oneReadsRepliesAreFlushedOnce() {
        channel(16, ECHO);
        assertEquals(0, flushes, "flushes before the read");
        byte[] in = frames(20, 3);
        ch.writeInbound(Unpooled.wrappedBuffer(in)); // one read: channelRead, then channelReadComplete
        assertEquals(1, flushes, "flushes for one read");
        assertArrayEquals(in, written());
    }

    /** The frames cut at every byte: each byte its own read; every reply arrives whole, in order. */
    @Test
    void framesCutAtEveryByteAreAnsweredWhole() {
        channel(8192, (buffer, offset, length, reply) -> {
            byte[] copy = new byte[length];
            buffer.get(offset, copy);
            reply.send(copy, 0, length); // the array path of the reply
        });
        byte[] in = frames(30, 5);
        for (byte b : in) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertArrayEquals(in, written());
        assertEquals(null, status.failure());
    }

    /** A handler that throws: the stream's failure names it, and the channel is closed. */
    @Test
    void aThrowingHandlerFailsTheStreamAndClosesTheChannel() {
        channel(8192, (buffer, offset, length, reply) -> {
            throw new IOException("no such request");
        });
        ch.writeInbound(Unpooled.wrappedBuffer(frames(1, 9)));
        IOException f = status.failure();
        assertNotNull(f, "no failure recorded");
        assertTrue(f.getMessage().contains("the on-loop handler failed"), f.getMessage());
        assertTrue(f.getMessage().contains("no such request"), f.getMessage());
        assertTrue(f.getCause() instanceof IOException && "no such request".equals(f.getCause().getMessage()));
        assertFalse(ch.isOpen(), "the channel is still open");
        assertTrue(status.inboundDone());
    }
}
