package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.util.ResourceLeakDetector;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A flood of connections that never finish their handshake (silent, a greeting cut short, garbage, a
 * message before READY; on a TLS port also a plain ZMTP peer and a TLS record that never completes)
 * against a PULL socket with a small handshake interval, while an established PUSH peer sends
 * {@value #MESSAGES_PER_ROUND} messages in each round of the flood (once that round's connections are
 * open): every one of its messages arrives, in order; each flood connection is closed by the
 * server (by the handshake interval or at once); afterwards the process holds no more descriptors than
 * before, and Netty's leak detector (PARANOID for this class) reported no buffer.
 *
 * <p>{@code -Dysuite.flood.connections=N} sets the flood's size (default and CI: 400 connections, 50
 * open at a time). No timing is asserted: the waits are on state, the deadlines only failure bounds.
 */
@Timeout(300)
class HandshakeFloodTest {

    private static final int CONNECTIONS = Integer.getInteger("ysuite.flood.connections", 400);
    private static final int AT_ONCE = 50;
    /** The established peer sends this many messages per round of the flood, while that round's connections are open. */
    private static final int MESSAGES_PER_ROUND = 1_500;

    private static ResourceLeakDetector.Level leakLevel;
    private static final AtomicInteger LEAKS = new AtomicInteger();
    private static ResourceLeakDetector<?> detector;

    @BeforeAll
    static void paranoid() throws ReflectiveOperationException {
        leakLevel = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        // ByteBuf's own detector, so that a leak reported while this class runs fails it
        java.lang.reflect.Field f = io.netty.buffer.AbstractByteBuf.class.getDeclaredField("leakDetector");
        f.setAccessible(true);
        detector = (ResourceLeakDetector<?>) f.get(null);
        detector.setLeakListener((type, records) -> LEAKS.incrementAndGet());
    }

    @AfterAll
    static void restore() {
        detector.setLeakListener(null);
        ResourceLeakDetector.setLevel(leakLevel);
    }

    static int openFds() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }

    /** One flood connection's bytes: {@code kind} picks the attack. */
    static byte[] attack(int kind, boolean tls, SplittableRandom r) {
        byte[] greeting = new byte[64];
        greeting[0] = (byte) 0xFF;
        greeting[9] = 0x7F;
        greeting[10] = 3;
        greeting[11] = 1;
        System.arraycopy("NULL".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, greeting, 12, 4);
        byte[] garbage = new byte[r.nextInt(1, 200)];
        r.nextBytes(garbage);
        switch (kind % 5) {
            case 0: return new byte[0]; // silent: only the handshake interval ends it
            case 1: return java.util.Arrays.copyOf(greeting, r.nextInt(1, 64)); // a greeting cut short
            case 2: return garbage;
            case 3: // a message before READY (on a TLS port: a plain ZMTP peer)
                return ByteBuffer.allocate(64 + 3).put(greeting).put(new byte[] {0, 1, 'x'}).array();
            default:
                return tls
                        ? new byte[] {0x16, 0x03, 0x03, 0x10, 0x00, 0x01} // a TLS record announcing 4 KiB, 1 B sent
                        : ByteBuffer.allocate(64 + 4).put(greeting).put(new byte[] {0x04, 30, 5, 'R'}).array();
        }
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void anEstablishedPeerIsServedInOrderDuringAFloodAndNothingLeaks(boolean tls) throws Exception {
        LEAKS.set(0);
        try (ZmqContext ctx = ZmqContext.create()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            pull.setHandshakeInterval(300);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.setLinger(0);
            if (tls) {
                pull.setTls(ZmqTlsTest.serverContext(ZmqTlsTest.SERVER, ClientAuth.NONE));
                push.setTls(ZmqTlsTest.clientContext(ZmqTlsTest.CA, null));
            }
            pull.bind("tcp://127.0.0.1:0");
            int port = URI.create(pull.lastEndpoint()).getPort();
            push.connect(pull.lastEndpoint());
            push.send("warm", 0);
            assertEquals("warm", ZmqTestSupport.recvStr(pull));
            flood(port, tls, 2 * 5, new Semaphore(0)); // every kind once before the count: classes, jars
            int before = openFds();

            int rounds = (CONNECTIONS + AT_ONCE - 1) / AT_ONCE;
            Semaphore roundOpen = new Semaphore(0);
            AtomicReference<Throwable> floodFailure = new AtomicReference<>();
            Thread flooder = new Thread(() -> {
                try {
                    flood(port, tls, CONNECTIONS, roundOpen);
                } catch (Throwable t) {
                    floodFailure.set(t);
                } finally {
                    roundOpen.release(rounds); // a failed flood does not leave the sender waiting
                }
            }, "flood");
            AtomicReference<Throwable> sendFailure = new AtomicReference<>();
            AtomicInteger sent = new AtomicInteger();
            Thread sender = new Thread(() -> {
                try {
                    ByteBuffer b = ByteBuffer.allocate(8);
                    long i = 0;
                    for (int round = 0; round < rounds; round++) {
                        roundOpen.acquire(); // this round's hostile connections are open
                        for (int k = 0; k < MESSAGES_PER_ROUND; k++, i++) {
                            push.send(b.clear().putLong(i).array(), 0);
                            sent.incrementAndGet();
                        }
                    }
                    push.send(new byte[0], 0); // the end
                } catch (Throwable t) {
                    sendFailure.set(t);
                }
            }, "established-sender");
            flooder.start();
            sender.start();
            pull.setReceiveTimeout((int) ZmqTestSupport.BOUND_MILLIS);
            long expected = 0;
            for (byte[] m; (m = pull.receive(0)) != null && m.length > 0; expected++) {
                assertEquals(expected, ByteBuffer.wrap(m).getLong(), "out of order or lost");
            }
            sender.join();
            flooder.join();
            if (floodFailure.get() != null) {
                throw new AssertionError("the flood", floodFailure.get());
            }
            if (sendFailure.get() != null) {
                throw new AssertionError("the established sender", sendFailure.get());
            }
            assertEquals(sent.get(), expected, "messages lost (or the end marker came early)");
            assertEquals((long) rounds * MESSAGES_PER_ROUND, expected);

            push.send("after", 0);
            assertEquals("after", ZmqTestSupport.recvStr(pull), "the established peer still served after the flood");
            ZmqTestSupport.awaitTrue(() -> openFds() <= before,
                    "descriptors back to " + before + " after " + CONNECTIONS + " flood connections (now " + openFds() + ")");
        }
        for (int i = 0; i < 3; i++) { // collected leaked buffers are reported on a later allocation
            System.gc();
            for (int j = 0; j < 100; j++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
                b.release();
            }
        }
        assertEquals(0, LEAKS.get(), "Netty's leak detector reported buffers leaked");
    }

    /**
     * Opens {@code n} hostile connections, {@link #AT_ONCE} at a time, releases {@code roundOpen} once a
     * round's connections are open, and waits until the server has closed each (end of stream or a reset;
     * the read timeout is the failure bound).
     */
    private static void flood(int port, boolean tls, int n, Semaphore roundOpen) throws IOException {
        SplittableRandom r = new SplittableRandom(42);
        for (int done = 0; done < n; ) {
            List<Socket> open = new ArrayList<>();
            try {
                for (int i = 0; i < AT_ONCE && done + i < n; i++) {
                    Socket s = new Socket();
                    open.add(s);
                    s.connect(new InetSocketAddress("127.0.0.1", port), (int) ZmqTestSupport.BOUND_MILLIS);
                    byte[] bytes = attack(done + i, tls, r);
                    if (bytes.length > 0) {
                        s.getOutputStream().write(bytes);
                        s.getOutputStream().flush();
                    }
                }
                roundOpen.release();
                for (Socket s : open) {
                    awaitClosedByServer(s);
                }
            } finally {
                for (Socket s : open) {
                    s.close();
                }
            }
            done += open.size();
        }
    }

    private static void awaitClosedByServer(Socket s) throws IOException {
        s.setSoTimeout((int) ZmqTestSupport.BOUND_MILLIS);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        try {
            while (in.read(buf) >= 0) {
                // the server's greeting, a TLS alert: not read as anything
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("a flood connection was not closed by the server within "
                    + ZmqTestSupport.BOUND_MILLIS + " ms", e);
        } catch (SocketException reset) {
            // closed as well
        }
    }
}
