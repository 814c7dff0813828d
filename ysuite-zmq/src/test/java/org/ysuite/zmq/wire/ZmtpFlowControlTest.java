package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.message;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/** suspendInput/resumeInput: the socket's receive high-water mark holds the peer back, nothing is lost. */
class ZmtpFlowControlTest {

    @Test
    void suspendStopsAfterTheCurrentFrameAndResumeDeliversWhatWasKept() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.feed(message(ascii("first"), false));
            h.connection.suspendInput();
            h.feed(concat(message(ascii("a"), true), message(ascii("b"), false)));
            h.feed(message(ascii("c"), false));
            assertEquals(List.of("first"), h.listener.frameTexts(), "nothing handed over while suspended");
            assertFalse(h.channel.config().isAutoRead());
            h.connection.resumeInput();
            assertEquals(List.of("first", "a+", "b", "c"), h.listener.frameTexts());
            assertTrue(h.channel.config().isAutoRead());
        }
    }

    @Test
    void suspendFromInsideFrameHoldsTheRestOfTheRead() {
        RecordingListener recorder = new RecordingListener();
        ZmtpListener suspending = new ZmtpListener() {
            @Override
            public void ready(ZmtpConnection connection, ZmtpPeer peer) {
                recorder.ready(connection, peer);
            }

            @Override
            public void frame(io.netty.buffer.ByteBuf data, boolean more) {
                recorder.frame(data, more);
                recorder.connection().suspendInput();
            }

            @Override
            public void subscription(io.netty.buffer.ByteBuf topic, boolean subscribe) {
            }

            @Override
            public void closed(String reason, Throwable cause) {
                recorder.closed(reason, cause);
            }
        };
        io.netty.channel.embedded.EmbeddedChannel ch = new io.netty.channel.embedded.EmbeddedChannel();
        try {
            ZmtpConnection c = ZmtpEngine.install(ch, ZmtpOptions.defaults(SocketType.PULL), suspending);
            ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(concat(ZmtpWire.greeting(1), ZmtpWire.readyOf("PUSH"),
                    message(ascii("1"), false), message(ascii("2"), false), message(ascii("3"), false))));
            assertEquals(List.of("1"), recorder.frameTexts());
            c.resumeInput();
            assertEquals(List.of("1", "2"), recorder.frameTexts(), "one frame per resume, as the listener asks");
            c.resumeInput();
            c.resumeInput();
            assertEquals(List.of("1", "2", "3"), recorder.frameTexts());
            assertTrue(recorder.closedReasons().isEmpty());
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void framesKeptWhenThePeerClosesAreStillHandedOverThenPeerClosed() {
        try (EngineHarness h = new EngineHarness(SocketType.PULL)) {
            h.handshake("PUSH", 1);
            h.connection.suspendInput();
            h.feed(concat(message(ascii("a"), true), message(ascii("b"), false), message(ascii("c"), false)));
            h.channel.close();
            assertTrue(h.listener.closedReasons().isEmpty(), "not closed while frames wait");
            io.netty.buffer.ByteBuf late = h.buf(ascii("x"));
            h.connection.writeFrame(late, false);
            assertEquals(0, late.refCnt(), "a write to the gone peer is released");
            h.connection.resumeInput();
            assertEquals(List.of("a+", "b", "c"), h.listener.frameTexts());
            assertEquals("peer closed", h.listener.closedReason());
        }
    }

    @Test
    void heartbeatTimeoutWaitsWhileInputIsSuspended() {
        ZmtpOptions options = new ZmtpOptions(SocketType.PULL, new byte[0], -1, 1000, 0, 0, 0, false);
        try (EngineHarness h = new EngineHarness(options)) {
            h.handshake("PUSH", 1);
            h.connection.suspendInput();
            h.advance(5000);
            assertTrue(h.listener.closedReasons().isEmpty(), "not dropped for a silence we caused");
            h.connection.resumeInput();
            h.advance(2000);
            assertEquals("heartbeat timeout: nothing from the peer for 1000 ms after a PING", h.listener.closedReason());
        }
    }
}
