package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.TimeUnit;
import org.ysuite.zmq.SocketType;

/**
 * One engine on an {@link EmbeddedChannel} whose allocator counts the bytes it has outstanding, so that
 * {@link #close()} proves that nothing leaked: every buffer the test fed in, the engine allocated or wrote
 * out has been released.
 */
final class EngineHarness implements AutoCloseable {

    final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, true);
    final EmbeddedChannel channel;
    final RecordingListener listener = new RecordingListener();
    final ZmtpConnection connection;

    EngineHarness(ZmtpOptions options) {
        channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.freezeTime();
        connection = ZmtpEngine.install(channel, options, listener);
    }

    EngineHarness(SocketType type) {
        this(ZmtpOptions.defaults(type));
    }

    /** Feeds {@code bytes} as one read. */
    void feed(byte[] bytes) {
        ByteBuf b = alloc.heapBuffer(bytes.length);
        b.writeBytes(bytes);
        channel.writeInbound(b);
    }

    /** Feeds {@code bytes} one read per byte. */
    void feedByteByByte(byte[] bytes) {
        for (byte x : bytes) {
            feed(new byte[] {x});
        }
    }

    /** Everything the engine wrote since the last call, concatenated (the buffers released). */
    byte[] written() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            out.writeBytes(ByteBufUtil.getBytes(b));
            b.release();
        }
        return out.toByteArray();
    }

    /** Completes a NULL handshake with a peer of {@code peerType} speaking 3.{@code minor}. */
    void handshake(String peerType, int minor) {
        feed(ZmtpWire.concat(ZmtpWire.greeting(minor), ZmtpWire.readyOf(peerType)));
        written();
        assertEquals(1, listener.readyCount(), () -> "not ready; closed " + listener.closedReasons());
    }

    /**
     * Lets {@code millis} of the channel's frozen clock pass, 10 ms at a time, running the timers due at
     * each step (one large step would run every due timer at the final time, out of their order).
     */
    void advance(long millis) {
        for (long left = millis; left > 0; left -= 10) {
            channel.advanceTimeBy(Math.min(10, left), TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
        }
    }

    ByteBuf buf(byte[] bytes) {
        return alloc.heapBuffer(bytes.length).writeBytes(bytes);
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
        assertEquals(0, alloc.metric().usedHeapMemory(), "heap bytes leaked");
        assertEquals(0, alloc.metric().usedDirectMemory(), "direct bytes leaked");
    }
}
