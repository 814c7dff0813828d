package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.impl.AMQChannel;
import com.rabbitmq.client.impl.AMQConnection;
import com.rabbitmq.client.impl.Frame;
import com.rabbitmq.client.impl.SocketFrameHandler;
import com.rabbitmq.client.observation.ObservationCollector;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * The publisher thread's batch of AMQP 0-9-1 frames, encoded straight from the writers' records:
 * for each message the frames amqp-client's {@code basicPublish} writes ({@code basic.publish},
 * the content header, the body split at the connection's {@code frame_max}), byte for byte, into
 * one buffer with no allocation per message. The connection writes the buffer as if it were one
 * frame ({@link AMQConnection#writeFrame}): its blocking socket handler calls {@link #writeTo}
 * holding its frame lock, so the frames of other threads (heartbeats, replies to the broker) go
 * before or after a whole buffer, never inside it; {@link #flush()} at the end of a batch is then
 * one socket write for the batch, where {@code basicPublish} flushes after every message.
 *
 * <p>Used only over amqp-client's blocking {@link SocketFrameHandler} (plain sockets or TLS),
 * which writes a frame before {@code writeFrame} returns; its NIO and Netty handlers queue the
 * frame object for a thread of their own, so the buffer could not be reused, and the publisher
 * calls {@code basicPublish} there ({@link #of} returns {@code null}). A channel that the broker
 * has stopped with {@code channel.flow} is published to through {@code basicPublish} as well,
 * which waits for the flow to resume as it always did ({@link #flowBlocked}), and so is every
 * channel of a connection whose factory has an {@code ObservationCollector} (tracing): an
 * observation may change each message's properties, which only {@code basicPublish} lets it do. A
 * {@code MetricsCollector} is told of each message these frames carry at the batch's end, by
 * {@link PublisherLink#endBatch}.
 *
 * <p>Publisher's thread only.
 */
final class FrameBatch extends Frame {

    /** Bytes held before they are handed to the connection within a batch. */
    static final int BUFFER = 64 * 1024;

    private static final int METHOD = 1;
    private static final int HEADER = 2;
    private static final int BODY = 3;
    private static final int FRAME_END = 0xCE;
    /** Type, channel, size and frame-end: the bytes of a frame around its payload. */
    private static final int FRAMING = 8;
    private static final int BASIC = 60;
    private static final int BASIC_PUBLISH = 40;
    /** Where a content header's payload holds the body's size (after class-id and weight). */
    private static final int BODY_SIZE_AT = 4;

    /** amqp-client's channel.flow state ({@code AMQChannel._blockContent}), or {@code null}. */
    private static final VarHandle BLOCK_CONTENT = field(AMQChannel.class, "_blockContent", boolean.class);
    /** amqp-client's blocking socket handler's socket ({@code SocketFrameHandler._socket}), or {@code null}. */
    private static final VarHandle SOCKET = field(SocketFrameHandler.class, "_socket", Socket.class);
    /** amqp-client's connection's {@code observationCollector}, or {@code null}. */
    private static final VarHandle OBSERVATION =
            field(AMQConnection.class, "observationCollector", ObservationCollector.class);

    private final AMQConnection connection;
    /** The content header's payload for the publisher's properties, body size 0. */
    private final byte[] header;
    /** The most body bytes in one body frame. */
    private final int bodyPerFrame;
    private byte[] buffer = new byte[BUFFER];
    private int count;

    private FrameBatch(AMQConnection connection, AMQP.BasicProperties properties) throws IOException {
        super(BODY, 0, new byte[0]);
        this.connection = connection;
        this.header = headerOf(properties, 0);
        int frameMax = connection.getFrameMax();
        this.bodyPerFrame = frameMax > 0 ? frameMax - FRAMING : Integer.MAX_VALUE;
    }

    /**
     * A batch over {@code c}, or {@code null} where {@code c} does not write frames at once under a
     * lock (not amqp-client's blocking socket handler), where it observes each publish (an
     * {@code ObservationCollector} set on its factory), or where amqp-client's channel.flow state or
     * observation collector cannot be read: the publisher then calls {@code basicPublish}.
     *
     * @throws IOException if the properties cannot be encoded
     */
    static FrameBatch of(Connection c, AMQP.BasicProperties properties) throws IOException {
        if (BLOCK_CONTENT == null || OBSERVATION == null || !(c instanceof AMQConnection)
                || ((AMQConnection) c).getFrameHandler().getClass() != SocketFrameHandler.class
                || OBSERVATION.get((AMQConnection) c) != ObservationCollector.NO_OP) {
            return null;
        }
        return new FrameBatch((AMQConnection) c, properties);
    }

    /**
     * Whether the broker has stopped {@code channel}'s content ({@code channel.flow}). amqp-client's
     * connection thread writes the volatile {@code _blockContent} when the broker's
     * {@code channel.flow} arrives; nothing else is published through it, so a stale read lets at
     * most the message at hand out before the next one waits.
     */
    static boolean flowBlocked(Channel channel) {
        return channel instanceof AMQChannel && (boolean) BLOCK_CONTENT.getVolatile((AMQChannel) channel);
    }

    /**
     * The socket of {@code c}, where amqp-client's blocking socket handler carries it and its field
     * can be read; {@code null} otherwise. Closing it from any thread fails a write that holds the
     * handler's frame lock, which amqp-client's own {@code abort()} waits for (it flushes under
     * that lock before it closes the socket).
     */
    static Socket socketOf(Connection c) {
        if (SOCKET == null || !(c instanceof AMQConnection)) {
            return null;
        }
        Object handler = ((AMQConnection) c).getFrameHandler();
        return handler instanceof SocketFrameHandler ? (Socket) SOCKET.get((SocketFrameHandler) handler) : null;
    }

    /**
     * Appends the frames of the record of {@code length} bytes at {@code at} in {@code record} (see
     * {@link PublisherWriter}: mandatory flag, exchange and routing key as short strings, body),
     * published on channel {@code channel}; {@code tagged}, if not {@code null}, replaces the
     * publisher's properties (a mandatory message's tag header). Hands the buffer to the
     * connection first if the frames do not fit.
     *
     * @throws IOException if handing the buffer over fails (the connection is lost then)
     * @throws IllegalArgumentException if the content header does not fit in {@code frame_max}
     */
    void publish(int channel, ByteBuffer record, int at, int length, AMQP.BasicProperties tagged)
            throws IOException {
        int exchangeLength = record.get(at + 1) & 0xFF;
        int keyAt = at + 2 + exchangeLength;
        int keyLength = record.get(keyAt) & 0xFF;
        int bodyAt = keyAt + 1 + keyLength;
        int bodyLength = at + length - bodyAt;
        byte[] head = tagged == null ? header : headerOf(tagged, bodyLength);
        if (head.length > bodyPerFrame) {
            throw new IllegalArgumentException("the content header of " + (head.length + FRAMING)
                    + " bytes exceeds the connection's frame_max of " + (bodyPerFrame + FRAMING));
        }
        // basic.publish: class, method, reserved short, exchange and routing key, the bits byte.
        int methodLength = 4 + 2 + (bodyAt - at - 1) + 1;
        int bodyFrames = (int) (((long) bodyLength + bodyPerFrame - 1) / bodyPerFrame);
        int total = FRAMING + methodLength + FRAMING + head.length + bodyLength + bodyFrames * FRAMING;
        room(total);

        int p = frameStart(METHOD, channel, methodLength);
        p = putShort(p, BASIC);
        p = putShort(p, BASIC_PUBLISH);
        p = putShort(p, 0);
        record.get(at + 1, buffer, p, bodyAt - at - 1); // the two short strings, as the record has them
        p += bodyAt - at - 1;
        buffer[p++] = (byte) (record.get(at) != 0 ? 1 : 0); // mandatory is bit 0, immediate (bit 1) never
        frameEnd(p);

        int h = frameStart(HEADER, channel, head.length);
        System.arraycopy(head, 0, buffer, h, head.length);
        putLong(h + BODY_SIZE_AT, bodyLength);
        frameEnd(h + head.length);

        for (int from = bodyAt, left = bodyLength; left > 0; ) {
            int n = Math.min(left, bodyPerFrame);
            int b = frameStart(BODY, channel, n);
            record.get(from, buffer, b, n);
            frameEnd(b + n);
            from += n;
            left -= n;
        }
        // count is past the last frame: each frameStart moved it past its own
    }

    /** Hands what is buffered to the connection (under its frame lock), without a flush. */
    void write() throws IOException {
        if (count > 0) {
            try {
                connection.writeFrame(this);
            } finally {
                count = 0; // nothing written twice: after a failure the connection is lost
            }
        }
    }

    /** The end of a batch: hands what is buffered to the connection and flushes its socket. */
    void flush() throws IOException {
        write();
        connection.flush();
    }

    /** Drops what is buffered (the link is down: those messages are settled as lost). */
    void discard() {
        count = 0;
    }

    /** The connection's socket handler, with its frame lock held. */
    @Override
    public void writeTo(DataOutputStream os) throws IOException {
        os.write(buffer, 0, count);
    }

    @Override
    public int size() {
        return count;
    }

    @Override
    public String toString() {
        return "FrameBatch(" + count + " bytes)";
    }

    private void room(int total) throws IOException {
        if (count + total > buffer.length) {
            write();
            if (total > buffer.length) {
                buffer = new byte[total]; // one message larger than the buffer: at most a record's size
            }
        }
    }

    /**
     * Writes a frame's type, channel and size at {@code count}, moves {@code count} past the whole
     * frame, and returns where its payload goes.
     */
    private int frameStart(int type, int channel, int payloadLength) {
        int p = count;
        buffer[p++] = (byte) type;
        p = putShort(p, channel);
        p = putInt(p, payloadLength);
        count = p + payloadLength + 1;
        return p;
    }

    /** Writes the frame-end octet at {@code p}, the end of a frame's payload. */
    private void frameEnd(int p) {
        buffer[p] = (byte) FRAME_END;
    }

    private int putShort(int p, int v) {
        buffer[p] = (byte) (v >>> 8);
        buffer[p + 1] = (byte) v;
        return p + 2;
    }

    private int putInt(int p, int v) {
        putShort(p, v >>> 16);
        return putShort(p + 2, v);
    }

    private void putLong(int p, long v) {
        putInt(p, (int) (v >>> 32));
        putInt(p + 4, (int) v);
    }

    /** The payload amqp-client gives {@code properties}' content header for a body of {@code size}. */
    private static byte[] headerOf(AMQP.BasicProperties properties, long size) throws IOException {
        return properties.toFrame(0, size).getPayload();
    }

    /** amqp-client's field {@code name} of {@code owner}, or {@code null} (another amqp-client: every message through basicPublish). */
    private static VarHandle field(Class<?> owner, String name, Class<?> type) {
        try {
            return MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).findVarHandle(owner, name, type);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
