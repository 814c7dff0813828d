package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The receiving half of one ZMTP connection (libzmq's v2 decoder): it keeps the bytes that arrived in
 * one cumulation buffer and decodes in place from it, the greeting first, then frames and commands
 * (ZeroMQ RFC 23 "Framing"), handing each to the {@link ZmtpHandler} as an offset into that buffer, so
 * nothing is copied per frame. When a read ends inside a frame, the next read gives that frame only the
 * bytes it lacks, and the rest of the new read is decoded in place: only what straddles two reads is
 * copied (all of a frame larger than one read, as it must be to reach the listener in one buffer).
 *
 * <p>The flags byte: bit 0 MORE, bit 1 LONG, bit 2 COMMAND; the reserved bits 3–7 are ignored, as
 * libzmq ignores them. A short size is one byte, a long size eight bytes in network order; a long size
 * with its top bit set (2^63 or more) is a protocol error. Limits are checked from the header, before
 * any of a frame's payload is buffered: a message (all its frames together) may not exceed
 * {@code maxMessageSize}, and a command may not exceed {@link #COMMAND_LIMIT} bytes (or
 * {@code maxMessageSize} where that is larger), so that no peer can make us buffer more than the user
 * allowed. Event loop only.
 */
final class ZmtpDecoder {

    /** The largest command body accepted when {@code maxMessageSize} is smaller or unlimited: 64 KiB. */
    static final int COMMAND_LIMIT = 64 * 1024;
    /** The largest frame one buffer can hold with its header. */
    static final long BUFFER_LIMIT = Integer.MAX_VALUE - 16;
    /** The smallest capacity the cumulation grows to when it must. */
    private static final int MIN_GROWTH = 64 * 1024;

    private final ZmtpHandler engine;
    private final long maxMessageSize;
    private final long commandLimit;

    private ByteBuf cumulation;
    /** The bytes the frame in progress needs (header and body), to size the cumulation once. */
    private long wanted;
    private boolean greetingDone;
    /** The bytes of the message in progress (the frames before this one with MORE set). */
    private long messageBytes;
    private boolean decoding;
    private boolean released;
    /** The socket asked for no more frames until it resumes: bytes are kept, not decoded. */
    private boolean suspended;

    ZmtpDecoder(ZmtpHandler engine, long maxMessageSize) {
        this.engine = engine;
        this.maxMessageSize = maxMessageSize;
        this.commandLimit = maxMessageSize > COMMAND_LIMIT ? Math.min(maxMessageSize, BUFFER_LIMIT) : COMMAND_LIMIT;
    }

    /**
     * Takes the bytes that arrived (ownership) and decodes every whole frame among what has arrived.
     *
     * @throws ZmtpProtocolException if the peer broke the protocol (the engine drops the connection)
     */
    void read(ByteBufAllocator alloc, ByteBuf in) throws ZmtpProtocolException {
        if (released) {
            in.release();
            return;
        }
        ByteBuf rest = null;
        decoding = true;
        try {
            ByteBuf c = cumulation;
            if (c == null) {
                cumulation = in;
            } else if (greetingDone && !suspended && c.isReadable()) {
                // Complete the frame whose start was kept with just the bytes it lacks, decode it, then
                // decode the rest in place from the new buffer: only what straddled two reads is copied.
                rest = in;
                stitch(alloc, in);
                decode(cumulation);
                ByteBuf r = rest;
                rest = null;
                if (!released && !suspended && !cumulation.isReadable()) {
                    cumulation.release();
                    cumulation = r;
                } else if (released) {
                    r.release();
                } else {
                    cumulate(alloc, r);
                }
            } else {
                cumulate(alloc, in);
            }
            decode(cumulation);
        } finally {
            if (rest != null) {
                rest.release();
            }
            decoding = false;
            ByteBuf c = cumulation;
            if (c != null && (released || !c.isReadable())) {
                cumulation = null;
                c.release();
            }
        }
    }

    /** Moves from {@code in} to the cumulation the bytes that complete the frame the cumulation begins. */
    private void stitch(ByteBufAllocator alloc, ByteBuf in) {
        for (;;) {
            long missing = missing(cumulation);
            if (missing <= 0 || !in.isReadable()) {
                return;
            }
            int take = (int) Math.min(missing, in.readableBytes());
            ByteBuf c = cumulation;
            if (c.refCnt() != 1 || c.isReadOnly() || c.writableBytes() < take) {
                int have = c.readableBytes();
                long growTo = Math.max(have + take, Math.min(have + missing, Math.max(2L * c.capacity(), MIN_GROWTH)));
                ByteBuf grown = alloc.buffer((int) Math.min(growTo, BUFFER_LIMIT));
                try {
                    grown.writeBytes(c, c.readerIndex(), have);
                } finally {
                    c.release();
                }
                cumulation = grown;
                c = grown;
            }
            c.writeBytes(in, take);
        }
    }

    /**
     * The bytes the frame at the start of {@code c} still lacks; 0 if it is whole, or if its header
     * already shows that {@link #decode} will refuse it.
     */
    private long missing(ByteBuf c) {
        int ri = c.readerIndex();
        int avail = c.writerIndex() - ri;
        if (avail == 0) {
            return 0;
        }
        int flags = c.getByte(ri);
        int header = (flags & ZmtpCommands.FLAG_LONG) != 0 ? 9 : 2;
        if (avail < header) {
            return header - avail;
        }
        long size = header == 9 ? c.getLong(ri + 1) : c.getUnsignedByte(ri + 1);
        if (size < 0 || size > BUFFER_LIMIT) {
            return 0;
        }
        if ((flags & ZmtpCommands.FLAG_COMMAND) != 0) {
            if (size > commandLimit) {
                return 0;
            }
        } else if (!engine.isReady() || (maxMessageSize >= 0 && size > maxMessageSize - messageBytes)) {
            return 0;
        }
        return header + size - avail;
    }

    private void cumulate(ByteBufAllocator alloc, ByteBuf in) {
        ByteBuf c = cumulation;
        if (c == null) {
            cumulation = in;
            return;
        }
        int add = in.readableBytes();
        if (c.refCnt() == 1 && !c.isReadOnly() && c.writableBytes() >= add) {
            c.writeBytes(in);
            in.release();
            return;
        }
        int have = c.readableBytes();
        long total = (long) have + add;
        long growTo = Math.max(total, Math.min(wanted, Math.max(2L * c.capacity(), MIN_GROWTH)));
        ByteBuf grown = alloc.buffer((int) Math.min(growTo, BUFFER_LIMIT));
        try {
            grown.writeBytes(c, c.readerIndex(), have);
            grown.writeBytes(in);
        } finally {
            c.release();
            in.release();
        }
        cumulation = grown;
    }

    private void decode(ByteBuf c) throws ZmtpProtocolException {
        ZmtpHandler engine = this.engine;
        while (!released && !suspended) {
            int ri = c.readerIndex();
            int avail = c.writerIndex() - ri;
            if (!greetingDone) {
                ZmtpGreeting.check(c, ri, Math.min(avail, ZmtpGreeting.VERSION_MAJOR_OFFSET + 1));
                if (avail < ZmtpGreeting.LENGTH) {
                    return;
                }
                c.readerIndex(ri + ZmtpGreeting.LENGTH);
                greetingDone = true;
                engine.greeting(c, ri);
                continue;
            }
            if (avail < 2) {
                return;
            }
            int flags = c.getByte(ri);
            long size;
            int header;
            if ((flags & ZmtpCommands.FLAG_LONG) != 0) {
                if (avail < 9) {
                    return;
                }
                size = c.getLong(ri + 1);
                header = 9;
                if (size < 0) {
                    throw new ZmtpProtocolException("long frame announcing " + Long.toUnsignedString(size)
                            + " B (2^63 or more)", false);
                }
            } else {
                size = c.getUnsignedByte(ri + 1);
                header = 2;
            }
            if ((flags & ZmtpCommands.FLAG_COMMAND) != 0) {
                if (size > commandLimit) {
                    throw new ZmtpProtocolException("command of " + size + " B over the limit of "
                            + commandLimit + " B", false);
                }
                if (avail - header < size) {
                    wanted = header + size;
                    return;
                }
                int offset = ri + header;
                c.readerIndex(offset + (int) size);
                engine.command(c, offset, (int) size);
            } else {
                if (!engine.isReady()) {
                    throw new ZmtpProtocolException("message frame before the handshake completed", true);
                }
                long max = maxMessageSize;
                if (max >= 0 && size > max - messageBytes) {
                    throw new ZmtpProtocolException(messageBytes == 0
                            ? "frame of " + size + " B over maxMessageSize " + max
                            : "message of more than " + max + " B (" + messageBytes + " B, then a frame of "
                                    + size + " B) over maxMessageSize " + max, false);
                }
                if (size > BUFFER_LIMIT) {
                    throw new ZmtpProtocolException("frame of " + size + " B over the " + BUFFER_LIMIT
                            + " B one buffer holds", false);
                }
                if (avail - header < size) {
                    wanted = header + size;
                    return;
                }
                int offset = ri + header;
                c.readerIndex(offset + (int) size);
                boolean more = (flags & ZmtpCommands.FLAG_MORE) != 0;
                messageBytes = more ? messageBytes + size : 0;
                engine.frame(c, offset, (int) size, more);
            }
        }
    }

    /** Stops decoding after the frame being handed over; what arrives meanwhile is kept. */
    void suspend() {
        suspended = true;
    }

    boolean isSuspended() {
        return suspended;
    }

    /** Whether bytes that arrived are still undecoded. */
    boolean hasKept() {
        return cumulation != null && cumulation.isReadable();
    }

    /**
     * Decodes again, starting with what was kept while suspended.
     *
     * @throws ZmtpProtocolException if the kept bytes break the protocol
     */
    void resume() throws ZmtpProtocolException {
        if (!suspended) {
            return;
        }
        suspended = false;
        if (released || decoding || cumulation == null) {
            return;
        }
        decoding = true;
        try {
            decode(cumulation);
        } finally {
            decoding = false;
            ByteBuf c = cumulation;
            if (released || !c.isReadable()) {
                cumulation = null;
                c.release();
            }
        }
    }

    /** Releases the cumulation (now, or when the decoding in progress returns); nothing is decoded after. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        if (!decoding && cumulation != null) {
            ByteBuf c = cumulation;
            cumulation = null;
            c.release();
        }
    }
}
