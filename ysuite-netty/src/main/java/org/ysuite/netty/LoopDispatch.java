package org.ysuite.netty;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The inbound side of a stream with a {@link LoopHandler}: the {@link FrameDecoder} hands it each
 * frame's bytes, and it calls the handler on the loop, with itself as the {@link LoopReply} that
 * frames the answers into the {@link FrameEncoder}'s batch. A frame of at least
 * {@value #VIEW_FROM} bytes that lies whole in one read buffer is handed over as a view of that
 * buffer; a shorter one, or one that spans reads, is copied into a buffer of the stream's own
 * (reused: no allocation per message; a short copy costs less than the view object Netty would
 * make). Every method runs on the event loop.
 */
final class LoopDispatch implements LoopReply {

    /** Frames from this length up are handed over as views of the read buffer when they can be. */
    static final int VIEW_FROM = 4096;

    /** The handler threw: the stream fails with this, its cause the handler's exception. */
    static final class HandlerFailed extends IOException {
        private static final long serialVersionUID = 1L;

        HandlerFailed(Throwable cause) {
            super("the on-loop handler failed: " + cause, cause);
        }
    }

    private final LoopHandler handler;
    private final FrameEncoder encoder;
    private final int maxMessageLength;
    /** A frame being assembled across reads, or a short one; allocated at the first use. */
    private ByteBuffer assembly;
    private int filled;
    private boolean inCall;

    LoopDispatch(LoopHandler handler, FrameEncoder encoder, int maxMessageLength) {
        this.handler = handler;
        this.encoder = encoder;
        this.maxMessageLength = maxMessageLength;
    }

    /** A read begins: replies are batched until {@link #endRead()}. */
    void beginRead() {
        encoder.beginReplies();
    }

    /** The read is over: the batch goes to the socket, flushed once. */
    void endRead() {
        encoder.endReplies();
    }

    /**
     * Takes the bytes of a frame of {@code length} bytes from {@code in}, and calls the handler
     * once it has them all.
     *
     * @return {@code true} if the frame was handled; {@code false} if {@code in} ran out first
     *     (the bytes taken are kept for the next call)
     * @throws HandlerFailed if the handler threw
     */
    boolean offer(ByteBuf in, int length) throws HandlerFailed {
        if (filled == 0 && length >= VIEW_FROM && in.readableBytes() >= length && in.nioBufferCount() == 1) {
            ByteBuffer view = in.internalNioBuffer(in.readerIndex(), length);
            int offset = view.position();
            try {
                call(view, offset, length);
            } finally {
                in.skipBytes(length);
            }
            return true;
        }
        ByteBuffer a = assembly;
        if (a == null) {
            a = assembly = ByteBuffer.allocate(maxMessageLength);
        }
        int n = Math.min(length - filled, in.readableBytes());
        if (n > 0) {
            a.limit(filled + n).position(filled);
            in.readBytes(a);
            filled += n;
        }
        if (filled < length) {
            return false;
        }
        filled = 0;
        a.clear();
        call(a, 0, length);
        return true;
    }

    private void call(ByteBuffer buffer, int offset, int length) throws HandlerFailed {
        inCall = true;
        try {
            handler.onMessage(buffer, offset, length, this);
        } catch (VirtualMachineError e) {
            throw e; // out of memory, stack overflow: nothing of the stream's to do about it
        } catch (Throwable e) {
            throw new HandlerFailed(e);
        } finally {
            inCall = false;
        }
    }

    @Override
    public void send(byte[] src, int offset, int length) {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.length);
        check(length);
        encoder.reply(src, offset, length);
    }

    @Override
    public void send(ByteBuffer src, int offset, int length) {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.capacity());
        check(length);
        int position = src.position();
        int limit = src.limit();
        try {
            encoder.reply(src, offset, length);
        } finally {
            src.limit(limit).position(position);
        }
    }

    private void check(int length) {
        if (!inCall) {
            throw new IllegalStateException("LoopReply used outside LoopHandler.onMessage (on the loop, during the call)");
        }
        if (length > maxMessageLength) {
            throw new IllegalArgumentException("length (" + length + ") must be at most maxMessageLength ("
                    + maxMessageLength + ")");
        }
    }
}
