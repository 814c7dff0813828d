package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * CURVE's traffic phase on one connection (ZeroMQ RFC 26 "MESSAGE"), between the {@link ZmtpHandler} and
 * its {@link ZmtpEncoder}: every frame, subscription and command going out is sealed in a MESSAGE box by
 * the {@link CurveCodec}; every MESSAGE coming in is opened and handed back to the engine as the frame or
 * command it carries. Event loop only.
 */
final class CurveTraffic {

    private final ZmtpHandler engine;
    private final CurveCodec codec;
    private final ZmtpEncoder encoder;
    private final ByteBufAllocator alloc;
    private final long maxMessageSize;
    /** Bytes given to {@link #framed} that do not yet make a whole frame. */
    private ByteBuf framedRest;
    /** The bytes of the message being received (its frames so far), against maxMessageSize. */
    private long messageBytes;

    CurveTraffic(ZmtpHandler engine, CurveCodec codec, ZmtpEncoder encoder, ByteBufAllocator alloc,
                 long maxMessageSize) {
        this.engine = engine;
        this.codec = codec;
        this.encoder = encoder;
        this.alloc = alloc;
        this.maxMessageSize = maxMessageSize;
    }

    /**
     * One frame or command from the peer: it must be a MESSAGE box (libzmq 4.3 sends it as a message frame,
     * RFC 25 as a command frame: both are taken). A replayed or reordered nonce or a bad MAC ends the
     * connection; what the box carries goes to the engine as a frame or a command.
     */
    void received(ByteBuf in, int offset, int length) throws ZmtpProtocolException {
        ByteBuf plain = codec.open(alloc, in, offset, length);
        try {
            int flags = plain.readByte();
            int at = plain.readerIndex();
            int size = plain.readableBytes();
            if ((flags & CurveCodec.FLAG_COMMAND) != 0) {
                if (size < 1 || plain.getUnsignedByte(at) > size - 1) {
                    throw new ZmtpProtocolException("malformed command in a MESSAGE box: a name of "
                            + (size < 1 ? "no" : Integer.toString(plain.getUnsignedByte(at))) + " B in " + size + " B",
                            false);
                }
                if (ZmtpCommands.isNamed(plain, at, size, ZmtpCommands.ERROR)) {
                    engine.peerError(ZmtpCommands.errorReason(plain, at, size));
                } else {
                    engine.trafficCommand(plain, at, size);
                }
                return;
            }
            boolean more = (flags & CurveCodec.FLAG_MORE) != 0;
            long max = maxMessageSize;
            if (max >= 0 && size > max - messageBytes) {
                throw new ZmtpProtocolException("message of more than " + max + " B (" + messageBytes
                        + " B, then a frame of " + size + " B) over maxMessageSize " + max, false);
            }
            messageBytes = more ? messageBytes + size : 0;
            engine.plainFrame(plain, at, size, more);
        } finally {
            plain.release();
        }
    }

    /** Seals one message frame; takes ownership of {@code data}. */
    void frame(ByteBuf data, boolean more) {
        try {
            seal(data, data.readerIndex(), data.readableBytes(), more);
        } finally {
            data.release();
        }
    }

    private void seal(ByteBuf data, int offset, int length, boolean more) {
        encoder.framed(codec.seal(alloc, data, offset, length, more ? CurveCodec.FLAG_MORE : 0));
    }

    /** Seals a whole command frame (PING, PONG) with the COMMAND flag; takes ownership. */
    void command(ByteBuf commandFrame) {
        try {
            int header = (commandFrame.getByte(commandFrame.readerIndex()) & ZmtpCommands.FLAG_LONG) != 0 ? 9 : 2;
            int at = commandFrame.readerIndex() + header;
            encoder.framed(codec.seal(alloc, commandFrame, at, commandFrame.writerIndex() - at,
                    CurveCodec.FLAG_COMMAND));
        } finally {
            commandFrame.release();
        }
    }

    /**
     * Seals a subscription as ZMTP 3.0's subscription message (1 or 0, then the topic): libzmq 4.3's XPUB
     * takes that form from every peer. Takes ownership of {@code topic}.
     */
    void subscription(ByteBuf topic, boolean subscribe) {
        ByteBuf message = alloc.buffer(1 + topic.readableBytes());
        try {
            message.writeByte(subscribe ? 1 : 0).writeBytes(topic);
            seal(message, message.readerIndex(), message.readableBytes(), false);
        } finally {
            topic.release();
            message.release();
        }
    }

    /** Seals each whole frame among bytes already framed; a frame cut short waits for the next call. Takes ownership. */
    void framed(ByteBuf framed) {
        ByteBuf b = framed;
        if (framedRest != null) {
            b = alloc.buffer(framedRest.readableBytes() + framed.readableBytes());
            b.writeBytes(framedRest).writeBytes(framed);
            framedRest.release();
            framedRest = null;
            framed.release();
        }
        try {
            for (;;) {
                int ri = b.readerIndex();
                int avail = b.readableBytes();
                if (avail < 2) {
                    break;
                }
                int flags = b.getByte(ri);
                int header = (flags & ZmtpCommands.FLAG_LONG) != 0 ? 9 : 2;
                if (avail < header) {
                    break;
                }
                long size = header == 9 ? b.getLong(ri + 1) : b.getUnsignedByte(ri + 1);
                if (avail - header < size) {
                    break;
                }
                seal(b, ri + header, (int) size, (flags & ZmtpCommands.FLAG_MORE) != 0);
                b.readerIndex(ri + header + (int) size);
            }
            if (b.isReadable()) {
                framedRest = alloc.buffer(b.readableBytes()).writeBytes(b);
            }
        } finally {
            b.release();
        }
    }

    /** Drops what waits in {@link #framed}. */
    void release() {
        if (framedRest != null) {
            framedRest.release();
            framedRest = null;
        }
    }
}
