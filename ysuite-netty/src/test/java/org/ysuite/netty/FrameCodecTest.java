package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;

/** {@link FrameDecoder} and {@link FrameEncoder} on Netty's {@link EmbeddedChannel}. */
class FrameCodecTest {

    private static final int MAX = 1000;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /** A decoder over a fresh pipe, in an embedded channel. */
    private final class Decoding {
        final OffHeapYPipe pipe = new OffHeapYPipe(1 << 16, WaitPolicy.purePark(), WaitPolicy.purePark());
        final StreamStatus status = new StreamStatus(0, 0);
        final FrameDecoder decoder = new FrameDecoder(pipe, MAX, status, new InboundStall(), null, LoopLinger.NONE);
        final EmbeddedChannel ch = new EmbeddedChannel(decoder);

        Decoding() {
            toClose.add(pipe);
            toClose.add(() -> ch.finishAndReleaseAll());
        }

        List<byte[]> messages() {
            List<byte[]> got = new ArrayList<>();
            byte[] buf = new byte[MAX];
            int n;
            while ((n = pipe.read(buf)) >= 0) {
                got.add(Arrays.copyOf(buf, n));
            }
            return got;
        }
    }

    private static byte[] frames(byte[]... messages) {
        ByteBuf b = Unpooled.buffer();
        for (byte[] m : messages) {
            b.writeInt(m.length).writeBytes(m);
        }
        byte[] all = new byte[b.readableBytes()];
        b.readBytes(all);
        return all;
    }

    private static byte[][] someMessages() {
        SplittableRandom r = new SplittableRandom(7);
        byte[][] ms = new byte[6][];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = new byte[i == 2 ? 0 : r.nextInt(1, 300)];
            for (int j = 0; j < ms[i].length; j++) {
                ms[i][j] = (byte) r.nextInt();
            }
        }
        return ms;
    }

    @Test
    void wholeFramesAndSeveralInOneBuffer() {
        Decoding d = new Decoding();
        byte[][] ms = someMessages();
        d.ch.writeInbound(Unpooled.wrappedBuffer(frames(ms[0])));
        d.ch.writeInbound(Unpooled.wrappedBuffer(frames(Arrays.copyOfRange(ms, 1, ms.length))));
        List<byte[]> got = d.messages();
        assertEquals(ms.length, got.size());
        for (int i = 0; i < ms.length; i++) {
            assertArrayEquals(ms[i], got.get(i), "message " + i);
        }
        assertNull(d.status.failure());
    }

    @Test
    void framesSplitAtEveryByteBoundary() {
        byte[][] ms = someMessages();
        byte[] wire = frames(ms);
        for (int cut = 1; cut < wire.length; cut++) {
            Decoding d = new Decoding();
            d.ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(wire, 0, cut)));
            d.ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(wire, cut, wire.length)));
            List<byte[]> got = d.messages();
            assertEquals(ms.length, got.size(), "cut at " + cut);
            for (int i = 0; i < ms.length; i++) {
                assertArrayEquals(ms[i], got.get(i), "cut at " + cut + ", message " + i);
            }
        }
        // And one byte per read.
        Decoding d = new Decoding();
        for (byte b : wire) {
            d.ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertEquals(ms.length, d.messages().size());
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, Integer.MIN_VALUE, MAX + 1, Integer.MAX_VALUE})
    void aHostileLengthFailsTheConnectionAndClosesTheChannel(int length) {
        Decoding d = new Decoding();
        d.ch.writeInbound(Unpooled.wrappedBuffer(frames(new byte[] {1, 2})));
        d.ch.writeInbound(Unpooled.buffer().writeInt(length).writeBytes(new byte[8]));
        IOException f = d.status.failure();
        assertNotNull(f, "no failure recorded for length " + length);
        assertTrue(f.getMessage().contains("malformed frame") && f.getMessage().contains("maxMessageLength"),
                f.getMessage());
        assertFalse(d.ch.isOpen(), "the channel stayed open");
        assertTrue(d.status.inboundDone());
        assertEquals(1, d.messages().size(), "the message before the hostile frame is kept");
    }

    @Test
    void theEndInTheMiddleOfAFrameIsAFailure() {
        Decoding d = new Decoding();
        d.ch.writeInbound(Unpooled.buffer().writeInt(10).writeBytes(new byte[3]));
        d.decoder.inputEnded();
        assertTrue(d.status.inboundDone());
        assertNotNull(d.status.failure());
        assertTrue(d.status.failure().getMessage().contains("middle of a message"));
    }

    @Test
    void aFullPipeStopsReadingAndTheReaderResumesIt() {
        int window = OffHeapYPipe.MIN_CAPACITY_BYTES;
        int length = OffHeapYPipe.maxMessageLength(window);
        OffHeapYPipe pipe = new OffHeapYPipe(window, WaitPolicy.purePark(), WaitPolicy.purePark());
        toClose.add(pipe);
        StreamStatus status = new StreamStatus(0, 0);
        InboundStall stall = new InboundStall();
        FrameDecoder decoder = new FrameDecoder(pipe, length, status, stall, null, LoopLinger.NONE);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        toClose.add(() -> ch.finishAndReleaseAll());
        byte[][] ms = new byte[8][length];
        for (int i = 0; i < ms.length; i++) {
            ms[i][0] = (byte) i;
        }
        ch.writeInbound(Unpooled.wrappedBuffer(frames(ms)));
        assertFalse(ch.config().isAutoRead(), "a full pipe must stop the reading");
        byte[] buf = new byte[length];
        int next = 0;
        while (next < ms.length) {
            int n = pipe.read(buf);
            if (n < 0) {
                fail("message " + next + " is missing and the loop was not resumed");
            }
            assertEquals(next++, buf[0]);
            if (stall.consumed()) {
                decoder.resume(); // what the reader's loop.execute runs
            }
        }
        assertTrue(ch.config().isAutoRead(), "reading resumed once everything was decoded");
    }

    private static void fail(String message) {
        throw new AssertionError(message);
    }

    // ---- encoder ----------------------------------------------------------------------------------

    private static byte[] outbound(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            all.writeBytes(b);
            b.release();
        }
        byte[] bytes = new byte[all.readableBytes()];
        all.readBytes(bytes);
        return bytes;
    }

    private OutboundPipe writerPipe(int id) {
        OffHeapYPipe pipe = new OffHeapYPipe(1 << 16, WaitPolicy.purePark(), WaitPolicy.purePark());
        toClose.add(pipe);
        pipe.checkRead(); // the loop's side starts asleep, as WriterMailbox sets it
        return new OutboundPipe(pipe, p -> { });
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 64, 8192})
    void theEncoderFramesAndBatchesWhatTheWritersFlushed(int bufferSize) {
        FrameEncoder encoder = new FrameEncoder(bufferSize);
        EmbeddedChannel ch = new EmbeddedChannel(encoder);
        toClose.add(() -> ch.finishAndReleaseAll());
        byte[][] ms = someMessages();
        OutboundPipe a = writerPipe(0);
        OutboundPipe b = writerPipe(1);
        for (int i = 0; i < 3; i++) {
            a.pipe.write(ms[i], 0, ms[i].length, false);
        }
        assertFalse(a.pipe.flush(), "the first flush finds the loop asleep");
        encoder.wake(a);
        for (int i = 3; i < ms.length; i++) {
            b.pipe.write(ms[i], 0, ms[i].length, false);
        }
        assertFalse(b.pipe.flush());
        encoder.wake(b);
        assertArrayEquals(frames(ms), outbound(ch));
        // Drained to empty: the loop is asleep on both pipes again.
        a.pipe.write(ms[0], 0, ms[0].length, false);
        assertFalse(a.pipe.flush(), "a drained pipe's next flush must wake the loop");
    }

    /**
     * Every short length (the codecs' word-by-word copies, SmallCopy) and a few longer ones go
     * through the encoder and then the decoder byte for byte, whole frames and split ones alike.
     */
    @Test
    void shortFramesCrossBothCodecsByteForByte() {
        SplittableRandom r = new SplittableRandom(3);
        byte[][] ms = new byte[SmallCopy.MAX_BYTES + 10][];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = new byte[i];
            for (int j = 0; j < i; j++) {
                ms[i][j] = (byte) r.nextInt();
            }
        }
        FrameEncoder encoder = new FrameEncoder(8192);
        EmbeddedChannel ch = new EmbeddedChannel(encoder);
        toClose.add(() -> ch.finishAndReleaseAll());
        OutboundPipe a = writerPipe(0);
        for (byte[] m : ms) {
            assertTrue(a.pipe.write(m, 0, m.length, false));
        }
        assertFalse(a.pipe.flush());
        encoder.wake(a);
        byte[] wire = outbound(ch);
        assertArrayEquals(frames(ms), wire, "encoded");
        for (int cut : new int[] {wire.length, 1, 5, 6, 13, wire.length / 2}) {
            Decoding d = new Decoding();
            d.ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(wire, 0, cut)));
            if (cut < wire.length) {
                d.ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(wire, cut, wire.length)));
            }
            List<byte[]> got = d.messages();
            assertEquals(ms.length, got.size(), "cut at " + cut);
            for (int i = 0; i < ms.length; i++) {
                assertArrayEquals(ms[i], got.get(i), "cut at " + cut + ", message " + i);
            }
        }
    }

    @Test
    void nothingIsWrittenBeforeTheChannelIsActive() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel(false, false);
        FrameEncoder encoder = new FrameEncoder(64);
        ch.pipeline().addLast(encoder);
        toClose.add(() -> ch.finishAndReleaseAll());
        OutboundPipe a = writerPipe(0);
        byte[] m = {1, 2, 3};
        a.pipe.write(m, 0, m.length, false);
        assertFalse(a.pipe.flush());
        encoder.wake(a); // before the channel is registered and active: kept, not written
        ch.register();
        assertArrayEquals(frames(m), outbound(ch), "written once the channel became active");
    }
}
