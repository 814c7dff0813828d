package org.ysuite.zmq.interop;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;
import static org.ysuite.zmq.interop.Interop.assertMessage;
import static org.ysuite.zmq.interop.Interop.bytes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.ZmqSocket;

/**
 * Hostile input over a plain {@link Socket}, after a ZMTP 3.x signature, to one ysuite PULL socket
 * (maxMessageSize 1024, handshakeInterval 1 s): each bad connection is closed by ysuite, its
 * listener hears an event with a reason, and the same socket then still serves a well-behaved peer
 * (a hand-written ZMTP 3.0 NULL PUSH) and finally a libzmq one. libzmq 4.3 closes each of these too.
 */
class HostileInputTest {

    private static final int MAX_MESSAGE = 1024;
    private static ZmqContext ctx;
    private static ZmqSocket pull;
    private static Events events;
    private static int port;

    @BeforeAll
    static void open() {
        ctx = ZmqContext.create();
        pull = Interop.bounded(ctx.socket(SocketType.PULL));
        events = new Events();
        pull.setEventListener(events);
        pull.setMaxMessageSize(MAX_MESSAGE);
        pull.setHandshakeInterval(1000);
        pull.bind("tcp://127.0.0.1:0");
        port = URI.create(pull.lastEndpoint()).getPort();
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    // ---- ZMTP 3.x pieces (RFC 23/37) ----

    /** The 64-byte greeting: signature, version 3.minor, mechanism (padded to 20), as-server 0, filler. */
    static byte[] greeting(int minor, String mechanism) {
        ByteBuffer b = ByteBuffer.allocate(64);
        b.put((byte) 0xFF).put(new byte[8]).put((byte) 0x7F).put((byte) 3).put((byte) minor);
        byte[] m = mechanism.getBytes(StandardCharsets.US_ASCII);
        b.put(m).put(new byte[20 - m.length]).put((byte) 0).put(new byte[31]);
        return b.array();
    }

    /** A short command frame: flags 0x04, size, name length, name, data. */
    static byte[] command(String name, byte[] data) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(2 + 1 + n.length + data.length);
        b.put((byte) 0x04).put((byte) (1 + n.length + data.length)).put((byte) n.length).put(n).put(data);
        return b.array();
    }

    /** READY's metadata with one property whose value length is {@code announced} (the value carried is {@code value}). */
    static byte[] property(String name, String value, int announced) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        byte[] v = value.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(1 + n.length + 4 + v.length).put((byte) n.length).put(n).putInt(announced).put(v).array();
    }

    static byte[] ready(String socketType) {
        return command("READY", property("Socket-Type", socketType, socketType.length()));
    }

    /** A long frame header (flags 0x02, or 0x06 for a command) announcing {@code size}, then {@code body}. */
    static byte[] longFrame(boolean command, long size, byte[] body) {
        return ByteBuffer.allocate(9 + body.length).put((byte) (command ? 0x06 : 0x02)).putLong(size).put(body).array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    /** The handshake of a well-behaved NULL PUSH peer. */
    static byte[] goodHandshake() {
        return concat(greeting(0, "NULL"), ready("PUSH"));
    }

    static Stream<Arguments> hostile() {
        byte[] signature = {(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 1};
        return Stream.of(
                Arguments.of("unknown mechanism", greeting(1, "FOO")),
                Arguments.of("CURVE to a socket without keys", concat(greeting(0, "CURVE"), command("HELLO", new byte[200]))),
                Arguments.of("garbage where READY belongs", concat(greeting(0, "NULL"), new byte[] {0x04, 3, 9, 'A', 'B'},
                        "garbage".repeat(20).getBytes(StandardCharsets.US_ASCII))),
                Arguments.of("READY metadata announcing more than it carries",
                        concat(greeting(0, "NULL"), command("READY", property("Socket-Type", "PUSH", 1000)))),
                Arguments.of("wrong socket type (PUB to PULL)", concat(greeting(0, "NULL"), ready("PUB"))),
                Arguments.of("a message before READY", concat(greeting(0, "NULL"), new byte[] {0x00, 5, 'h', 'e', 'l', 'l', 'o'})),
                Arguments.of("a frame over maxMessageSize", concat(goodHandshake(), longFrame(false, MAX_MESSAGE + 1, new byte[64]))),
                Arguments.of("a long frame announcing 2^63", concat(goodHandshake(), longFrame(false, Long.MIN_VALUE, new byte[64]))),
                Arguments.of("a long frame announcing a negative size", concat(goodHandshake(), longFrame(false, -1L, new byte[64]))),
                Arguments.of("a huge unknown command", concat(goodHandshake(),
                        longFrame(true, 1L << 40, concat(new byte[] {5}, bytes("XYZZY"), new byte[1000])))),
                Arguments.of("a greeting that never completes", signature));
    }

    /**
     * Sends {@code bytes} on a fresh connection and expects ysuite to close it (end of stream or a
     * reset), with an event that gives a reason; then a good peer is still served.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("hostile")
    void closesTheConnectionAndKeepsServing(String what, byte[] bytes) throws Exception {
        events.clear();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), (int) TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S));
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S));
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            awaitClosed(s.getInputStream(), what);
        }
        ZmqEvent e = events.await(ev -> Events.ended(ev) && ev.reason() != null && !String.valueOf(ev.reason()).isBlank(),
                "connection-ending (with a reason) for " + what);
        assertNotNull(e.reason());
        goodPeerIsServed(what);
    }

    /** Reads until the peer closes: end of stream or a reset; a read timeout fails the test. */
    private static void awaitClosed(InputStream in, String what) throws IOException {
        byte[] buf = new byte[4096];
        try {
            while (in.read(buf) >= 0) {
                // ysuite's greeting and READY, if it got that far
            }
        } catch (SocketTimeoutException e) {
            fail("ysuite kept the connection open " + PyPeer.WAIT_S + " s after " + what);
        } catch (SocketException e) {
            // a reset: closed as well
        }
    }

    private static void goodPeerIsServed(String after) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), (int) TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S));
            s.getOutputStream().write(concat(goodHandshake(), new byte[] {0x00, 4, 'g', 'o', 'o', 'd'}));
            s.getOutputStream().flush();
            byte[] m = pull.receive(0);
            assertNotNull(m, "the socket served no good peer after " + after);
            assertMessage(java.util.List.of(m), bytes("good"));
        }
        // the good peer's own disconnection, so that it is not taken for the next hostile connection's
        events.await(e -> e.kind() == ZmqEvent.Kind.DISCONNECTED, "the good peer's disconnection");
    }

    /** After every hostile connection above, libzmq itself is still served by the same socket. */
    @Test
    void libzmqPeerIsServed() throws Exception {
        try (PyPeer push = PyPeer.start("PUSH", false, pull.lastEndpoint())) {
            push.send(bytes("from libzmq"));
            assertMessage(Interop.of(pull).receive(), bytes("from libzmq"));
            assertFalse(push.events().contains("HANDSHAKE_FAILED_PROTOCOL"));
        }
    }
}
