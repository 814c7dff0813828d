package org.ysuite.zmq.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.ysuite.zmq.ZmqSocket;
import org.zeromq.ZMQ;

/**
 * What the interop tests share: one end of a connection ({@link End}: a ysuite socket, a libzmq
 * peer, a JeroMQ socket), frames as text, and the scenarios every socket pair runs.
 */
final class Interop {

    /** A frame of 1 MiB (a repeating pattern, so a shifted or truncated copy differs). */
    static final byte[] MIB = pattern(1 << 20);

    private Interop() {
    }

    /** One end of a connection, whatever the library behind it. */
    interface End {
        /**
         * Sends one message, a frame per argument.
         *
         * @param frames the frames
         */
        void send(byte[]... frames);

        /**
         * Receives one message.
         *
         * @param millis how long to wait
         * @return its frames, or null if none came in time
         */
        List<byte[]> receive(long millis);

        /**
         * Receives one message within the failure bound.
         *
         * @return its frames
         */
        default List<byte[]> receive() {
            List<byte[]> m = receive(TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S) - 1000);
            if (m == null) {
                throw new AssertionError(this + " received nothing in " + PyPeer.WAIT_S + " s");
            }
            return m;
        }

        /**
         * Subscribes (SUB, XSUB).
         *
         * @param prefix the prefix
         */
        void subscribe(byte[] prefix);

        /**
         * Unsubscribes (SUB, XSUB).
         *
         * @param prefix the prefix
         */
        void unsubscribe(byte[] prefix);
    }

    /**
     * An {@link End} over a library's one-frame calls: sends a message frame by frame, receives its first
     * frame within the wait asked for and the rest within {@link PyPeer#WAIT_S}.
     */
    abstract static class FrameEnd implements End {
        private final String name;

        FrameEnd(String name) {
            this.name = name;
        }

        /** Sends one frame; false if the library gave up (its send timeout). */
        abstract boolean sendFrame(byte[] frame, boolean more);

        /** Why the last {@link #sendFrame} failed, for the assertion's message. */
        String sendFailure() {
            return "timed out";
        }

        /** Receives one frame within {@code millis}; null if none came. */
        abstract byte[] receiveFrame(long millis);

        /** Whether the frame last received has more after it. */
        abstract boolean hasMore();

        @Override
        public void send(byte[]... frames) {
            for (int i = 0; i < frames.length; i++) {
                if (!sendFrame(frames[i], i < frames.length - 1)) {
                    throw new AssertionError(name + "'s send of frame " + i + " failed: " + sendFailure());
                }
            }
        }

        @Override
        public List<byte[]> receive(long millis) {
            byte[] f = receiveFrame(millis);
            if (f == null) {
                return null;
            }
            List<byte[]> m = new ArrayList<>();
            m.add(f);
            while (hasMore()) {
                f = receiveFrame(TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S));
                if (f == null) {
                    throw new AssertionError(name + ": the rest of a multipart message did not come in "
                            + PyPeer.WAIT_S + " s");
                }
                m.add(f);
            }
            return m;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A ysuite socket as an {@link End}. */
    static End of(ZmqSocket s) {
        return new FrameEnd("ysuite") {
            @Override
            boolean sendFrame(byte[] frame, boolean more) {
                return s.send(frame, more ? ZmqSocket.SNDMORE : 0);
            }

            @Override
            byte[] receiveFrame(long millis) {
                s.setReceiveTimeout((int) millis);
                return s.receive(0);
            }

            @Override
            boolean hasMore() {
                return s.hasReceiveMore();
            }

            @Override
            public void subscribe(byte[] prefix) {
                s.subscribe(prefix);
            }

            @Override
            public void unsubscribe(byte[] prefix) {
                s.unsubscribe(prefix);
            }
        };
    }

    /** A JeroMQ socket as an {@link End}. */
    static End of(ZMQ.Socket s) {
        return new FrameEnd("JeroMQ") {
            @Override
            boolean sendFrame(byte[] frame, boolean more) {
                return s.send(frame, more ? ZMQ.SNDMORE : 0);
            }

            @Override
            String sendFailure() {
                return "errno " + s.errno();
            }

            @Override
            byte[] receiveFrame(long millis) {
                s.setReceiveTimeOut((int) millis);
                return s.recv(0);
            }

            @Override
            boolean hasMore() {
                return s.hasReceiveMore();
            }

            @Override
            public void subscribe(byte[] prefix) {
                s.subscribe(prefix);
            }

            @Override
            public void unsubscribe(byte[] prefix) {
                s.unsubscribe(prefix);
            }
        };
    }

    /** The four sides of a pair's test: (ysuite binds, ysuite plays the pair's first role). */
    static Stream<Arguments> sides() {
        return Stream.of(Arguments.of(true, true), Arguments.of(true, false), Arguments.of(false, true),
                Arguments.of(false, false));
    }

    /** A ysuite socket with the tests' bounds: sends and receives give up after {@link PyPeer#WAIT_S}. */
    static ZmqSocket bounded(ZmqSocket s) {
        s.setSendTimeout((int) TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S));
        s.setReceiveTimeout((int) TimeUnit.SECONDS.toMillis(PyPeer.WAIT_S));
        return s;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[][] bytes(String... frames) {
        byte[][] b = new byte[frames.length][];
        for (int i = 0; i < frames.length; i++) {
            b[i] = bytes(frames[i]);
        }
        return b;
    }

    static String text(byte[] f) {
        return new String(f, StandardCharsets.UTF_8);
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + (i >>> 8));
        }
        return b;
    }

    /** Frames as comparable text: short ones in hex, long ones by length and SHA-256. */
    static List<String> describe(List<byte[]> frames) {
        List<String> d = new ArrayList<>();
        for (byte[] f : frames) {
            d.add(f.length <= 64 ? "hex:" + PyPeer.hex(f) : f.length + " B sha256:" + sha(f));
        }
        return d;
    }

    static List<String> describe(byte[]... frames) {
        return describe(List.of(frames));
    }

    private static String sha(byte[] f) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(f));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static void assertMessage(List<byte[]> actual, byte[]... expected) {
        assertEquals(describe(expected), describe(actual));
    }

    // ---- scenarios, each between two ends of whatever library ----

    /** {@code from} sends a multipart message with an empty and a 1 MiB frame, then a 0 B message; {@code to} gets both. */
    static void oneWay(End from, End to) {
        byte[][] multi = {bytes("first"), new byte[0], MIB, bytes("last")};
        from.send(multi);
        from.send(new byte[0]);
        assertMessage(to.receive(), multi);
        assertMessage(to.receive(), new byte[0]);
    }

    /**
     * PUB/SUB: a subscription filters (prefix), an unsubscription stops the flow, a new
     * subscription starts it. Subscriptions travel asynchronously, so the publisher repeats a probe
     * until the subscriber sees it; after that point every later message is filtered by it.
     */
    static void publishSubscribe(End pub, End sub) {
        sub.subscribe(bytes("A"));
        probeUntilSeen(pub, sub, "A-probe");
        pub.send(bytes("B-filtered"));
        pub.send(bytes("A-1"), new byte[0], MIB);
        List<byte[]> m = skipProbes(sub, "A-probe");
        assertMessage(m, bytes("A-1"), new byte[0], MIB);
        sub.unsubscribe(bytes("A"));
        sub.subscribe(bytes("C"));
        probeUntilSeen(pub, sub, "C-probe"); // CANCEL A travelled before SUBSCRIBE C, on the same connection
        pub.send(bytes("A-late"));
        pub.send(bytes("C-end"));
        assertMessage(skipProbes(sub, "C-probe"), bytes("C-end"));
    }

    private static void probeUntilSeen(End pub, End sub, String probe) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PyPeer.WAIT_S);
        while (System.nanoTime() < deadline) {
            pub.send(bytes(probe));
            List<byte[]> m = sub.receive(100);
            if (m != null) {
                assertMessage(m, bytes(probe));
                return;
            }
        }
        throw new AssertionError("the subscriber saw no " + probe + " in " + PyPeer.WAIT_S + " s");
    }

    private static List<byte[]> skipProbes(End sub, String probe) {
        while (true) {
            List<byte[]> m = sub.receive();
            if (!(m.size() == 1 && text(m.get(0)).equals(probe))) {
                return m;
            }
        }
    }

    /** REQ (or a DEALER speaking for one) and REP: two round trips, strict alternation, envelopes as libzmq's. */
    static void requestReply(End req, End rep) {
        for (int i = 0; i < 2; i++) {
            req.send(bytes("question-" + i), new byte[0], MIB);
            assertMessage(rep.receive(), bytes("question-" + i), new byte[0], MIB);
            rep.send(bytes("answer-" + i));
            assertMessage(req.receive(), bytes("answer-" + i));
        }
    }
}
