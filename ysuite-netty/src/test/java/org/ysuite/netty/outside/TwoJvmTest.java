package org.ysuite.netty.outside;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ysuite.netty.MessageStream;
import org.ysuite.netty.MessageWriter;

/**
 * The outside check of the network issue: a client written against {@code MessageStream}'s public
 * API only (this package is not {@code org.ysuite.netty}) talks to a second JVM
 * ({@link TwoJvmPeer}) over loopback. Messages of random sizes carry checksums and sequence
 * numbers. The count is {@value #DEFAULT_COUNT} in the build; {@code -Dysuite.twojvm.count=10000000}
 * runs the 10^7 (the test's timeout grows with it).
 */
class TwoJvmTest {

    static final int DEFAULT_COUNT = 100_000;
    /** Longest the child may take to print its port, or to exit once its connection ended. */
    static final long CHILD_SECONDS = 60;

    /** The child JVM, its output lines (read by a thread of ours), and its port. */
    static final class Child implements AutoCloseable {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<String> seen = new ArrayList<>();
        final int port;

        Child(String mode) throws Exception {
            List<String> cmd = new ArrayList<>();
            cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            if (Runtime.version().feature() >= 24) {
                cmd.add("--enable-native-access=ALL-UNNAMED");
            }
            cmd.add("-Xmx256m");
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add(TwoJvmPeer.class.getName());
            cmd.add(mode);
            process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                Thread out = new Thread(() -> {
                    try (BufferedReader r = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String l; (l = r.readLine()) != null; ) {
                            lines.add(l);
                        }
                    } catch (IOException ignored) {
                        // the child is gone
                    }
                    lines.add("<eof>");
                }, "child-stdout");
                out.setDaemon(true);
                out.start();
                String first = next();
                if (!first.startsWith("PORT ")) {
                    throw new AssertionError("the child's first line is not its port: " + first);
                }
                port = Integer.parseInt(first.substring(5));
            } catch (Exception | Error e) {
                process.destroyForcibly();
                throw e;
            }
        }

        /** The child's next line, within {@link #CHILD_SECONDS}. */
        String next() throws InterruptedException {
            String l = lines.poll(CHILD_SECONDS, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError("the child printed nothing for " + CHILD_SECONDS + " s after " + seen);
            }
            seen.add(l);
            return l;
        }

        /** What the child printed so far (waiting at most a second for its exit). */
        List<String> printed() throws InterruptedException {
            process.waitFor(1, TimeUnit.SECONDS);
            lines.drainTo(seen);
            return seen;
        }

        /** Waits for the child's exit and returns its status, failing loudly on a hang. */
        int exit() throws InterruptedException {
            if (!process.waitFor(CHILD_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("the child did not exit within " + CHILD_SECONDS + " s; it printed " + seen);
            }
            return process.exitValue();
        }

        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A client stream connected to the child's port, on an epoll loop of its own. */
    static final class Client implements AutoCloseable {
        final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final MessageStream stream;

        Client(int port) throws Exception {
            try {
                CompletableFuture<MessageStream> s = new CompletableFuture<>();
                new Bootstrap().group(group).channel(EpollSocketChannel.class)
                        .handler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel ch) {
                                s.complete(MessageStream.attach(ch));
                            }
                        }).connect("127.0.0.1", port).sync();
                stream = s.get(10, TimeUnit.SECONDS);
            } catch (Exception | Error e) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                throw e;
            }
        }

        @Override
        public void close() throws Exception {
            try {
                stream.close();
            } finally {
                if (!group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("the client's event loop did not terminate in 10 s");
                }
            }
        }
    }

    static void join(Thread t, long seconds) throws InterruptedException {
        t.join(TimeUnit.SECONDS.toMillis(seconds));
        if (t.isAlive()) {
            fail(t.getName() + " still running after " + seconds + " s: " + java.util.Arrays.toString(t.getStackTrace()));
        }
    }

    /**
     * How long the reader waits before it calls the run hung: 100 µs per message and five minutes
     * on top (10^5 take a few seconds on a quiet machine; the margin is for a loaded one), 10^7 in
     * under 22 min, inside the test's 30.
     */
    static long budgetSeconds(int count) {
        return 300 + count / 10_000;
    }

    /**
     * {@code count} messages of random sizes (most short, one in a hundred up to 64 KiB) with
     * checksums to the child, which checks each and echoes it; the client checks the echoes, then
     * closes; the child sees the end of its stream after exactly {@code count} good messages.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // the real bound is budgetSeconds(count), below
    void randomSizesWithChecksumsAcrossTwoJvms() throws Exception {
        int count = Integer.getInteger("ysuite.twojvm.count", DEFAULT_COUNT);
        long budget = budgetSeconds(count);
        try (Child child = new Child("echo"); Client client = new Client(child.port)) {
            AtomicReference<Throwable> sendError = new AtomicReference<>();
            Thread sender = new Thread(() -> {
                try {
                    MessageWriter w = client.stream.newWriter();
                    CheckedMessages out = new CheckedMessages(TwoJvmPeer.MAX_LENGTH, 0);
                    byte[] buf = new byte[TwoJvmPeer.MAX_LENGTH];
                    for (int i = 0; i < count; i++) {
                        w.send(buf, 0, out.fill(buf));
                    }
                } catch (Throwable e) {
                    sendError.set(e);
                }
            }, "sender");
            long start = System.nanoTime();
            sender.start();
            CountDownLatch readerDone = new CountDownLatch(1);
            Thread watchdog = watchdog(readerDone, budget);
            CheckedMessages in = new CheckedMessages(TwoJvmPeer.MAX_LENGTH, 0);
            byte[] buf = new byte[client.stream.maxMessageLength()];
            long bytes = 0;
            try {
                for (int i = 0; i < count; i++) {
                    int n = client.stream.receive(buf);
                    if (n < 0) {
                        fail("the child ended the stream after " + i + " of " + count + " echoes; send error: "
                                + sendError.get());
                    }
                    String bad = in.check(buf, n);
                    if (bad != null) {
                        fail("echo: " + bad);
                    }
                    bytes += n;
                }
            } catch (InterruptedException e) {
                fail("no echo for " + budget + " s (received " + in.count() + " of " + count + ")");
            } catch (IOException e) {
                throw new AssertionError("the connection failed after " + in.count() + " of " + count
                        + " echoes; the child printed " + child.printed(), e);
            } finally {
                readerDone.countDown();
                watchdog.join(TimeUnit.SECONDS.toMillis(10));
                Thread.interrupted(); // a budget that ran out as the last echo came: not this test's concern
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            join(sender, 60);
            assertNull(sendError.get());
            client.stream.close(); // the child sees -1 after the last message
            assertEquals("DONE " + count, child.next(), "the child's count");
            assertEquals(0, child.exit(), "the child's exit status; it printed " + child.seen);
            System.out.printf("TwoJvmTest: %,d messages (%,d bytes each way) echoed and checked in %.1f s%n",
                    count, bytes, seconds);
        }
    }

    /** A thread of the client that sends checked messages flat out until its writer throws (kept in {@code error}). */
    static Thread flood(MessageStream stream, AtomicReference<Throwable> error) {
        Thread sender = new Thread(() -> {
            try {
                MessageWriter w = stream.newWriter();
                CheckedMessages out = new CheckedMessages(TwoJvmPeer.MAX_LENGTH, 1);
                byte[] buf = new byte[TwoJvmPeer.MAX_LENGTH];
                for (;;) {
                    w.send(buf, 0, out.fill(buf));
                }
            } catch (Throwable e) {
                error.set(e);
            }
        }, "sender");
        sender.start();
        return sender;
    }

    /** Receives and checks {@code count} of the flooding child's messages; returns the checker. */
    static CheckedMessages receiveFlood(MessageStream stream, int count) throws Exception {
        CheckedMessages in = new CheckedMessages(TwoJvmPeer.MAX_LENGTH, 2);
        byte[] buf = new byte[stream.maxMessageLength()];
        for (int i = 0; i < count; i++) {
            int n = stream.receive(buf);
            assertTrue(n >= 0, "the child ended the stream early");
            assertNull(in.check(buf, n));
        }
        return in;
    }

    /**
     * A reset in the middle of traffic in both directions: the client, sending flat out and
     * checking what the child floods it with, resets the connection (SO_LINGER 0). The child's
     * reader and writer both end with an IOException and the child exits; the client's writer ends
     * with an IOException too; nothing hangs.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void resetMidStreamAcrossTwoJvms() throws Exception {
        try (Child child = new Child("flood"); Client client = new Client(child.port)) {
            AtomicReference<Throwable> sendError = new AtomicReference<>();
            Thread sender = flood(client.stream, sendError);
            receiveFlood(client.stream, 20_000);
            Channel ch = client.stream.channel();
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close().sync(); // with SO_LINGER 0: an RST, in the middle of both directions
            join(sender, 60);
            assertTrue(sendError.get() instanceof IOException, "the client's writer: " + sendError.get());
            String reader = child.next();
            String writer = child.next();
            String received = child.next();
            assertEquals(0, child.exit(), "the child's exit status; it printed " + child.seen);
            assertTrue(reader.startsWith("READER java.io.IOException"), reader);
            assertTrue(writer.startsWith("WRITER java.io.IOException"), writer);
            assertTrue(received.startsWith("RECEIVED "), received);
        }
    }

    /**
     * A watchdog for the calling thread: a hang fails loudly instead of waiting for the test's
     * timeout. It waits for {@code done} (or {@code seconds}), then interrupts the caller if it is
     * not done.
     */
    static Thread watchdog(CountDownLatch done, long seconds) {
        Thread reader = Thread.currentThread();
        Thread watchdog = new Thread(() -> {
            try {
                if (!done.await(seconds, TimeUnit.SECONDS)) {
                    reader.interrupt();
                }
            } catch (InterruptedException e) {
                reader.interrupt(); // never expected: fail the reader rather than let it hang
            }
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        return watchdog;
    }

    /**
     * How a reader's stream ended: it reads (checking every message) until {@code receive} returns
     * {@code -1} or throws, within {@code seconds} (a watchdog interrupts a reader still waiting
     * then, which fails the test).
     */
    static String readToTheEnd(MessageStream stream, CheckedMessages in, long seconds) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Thread watchdog = watchdog(done, seconds);
        byte[] buf = new byte[stream.maxMessageLength()];
        try {
            for (int n; (n = stream.receive(buf)) >= 0; ) {
                assertNull(in.check(buf, n));
            }
            return "end of stream (-1)";
        } catch (IOException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        } catch (InterruptedException e) {
            throw new AssertionError("the stream had not ended " + seconds + " s after the peer died ("
                    + in.count() + " messages read)");
        } finally {
            done.countDown();
            watchdog.join(TimeUnit.SECONDS.toMillis(10));
            Thread.interrupted();
        }
    }

    /**
     * The peer's JVM killed with SIGKILL in the middle of traffic in both directions (no close, no
     * shutdown hook): the client's reader gets what had arrived, whole and checked, then the end
     * ({@code -1} or an IOException); its writer, sending flat out (and so waiting for room in a
     * full window), ends with an IOException; close frees the stream and the loop terminates.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aPeerKilledMidStreamEndsBothSidesOfTheClient() throws Exception {
        try (Child child = new Child("flood"); Client client = new Client(child.port)) {
            AtomicReference<Throwable> sendError = new AtomicReference<>();
            Thread sender = flood(client.stream, sendError);
            CheckedMessages in = receiveFlood(client.stream, 20_000);
            child.process.destroyForcibly(); // SIGKILL
            assertEquals(128 + 9, child.exit(), "the child was not killed by SIGKILL");
            String end = readToTheEnd(client.stream, in, CHILD_SECONDS);
            assertTrue(end.startsWith("java.io.IOException") || end.startsWith("end of stream"), end);
            join(sender, CHILD_SECONDS);
            assertTrue(sendError.get() instanceof IOException, "the client's writer: " + sendError.get());
        }
    }

    /**
     * Hostile bytes from a peer that is not a {@code MessageStream}: a plain socket sends the child
     * one good message, then a frame whose length is negative or over the limit, or a frame cut by
     * the close. The child's reader gets the good message, then an IOException that says what was
     * wrong, and its side closes the connection; the child exits normally.
     */
    @ParameterizedTest(name = "announced length {0}")
    @ValueSource(ints = {-1, Integer.MIN_VALUE, TwoJvmPeer.MAX_LENGTH + 1, Integer.MAX_VALUE, 100})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void hostileFramesFailTheConnectionNotTheJvm(int announced) throws Exception {
        boolean cut = announced > 0 && announced <= TwoJvmPeer.MAX_LENGTH; // a legal length, cut by the close
        try (Child child = new Child("sink"); Socket socket = new Socket("127.0.0.1", child.port)) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(CHILD_SECONDS));
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] good = new byte[TwoJvmPeer.MAX_LENGTH];
            int n = new CheckedMessages(TwoJvmPeer.MAX_LENGTH, 3).fill(good);
            out.writeInt(n);
            out.write(good, 0, n);
            out.writeInt(announced);
            out.write(good, 0, 10); // some bytes after the header
            out.flush();
            if (cut) {
                socket.shutdownOutput(); // the end in the middle of the announced frame
            }
            assertEquals("RECEIVED 1", child.next());
            String end = child.next();
            assertEquals(0, child.exit(), "the child's exit status; it printed " + child.seen);
            String expected = cut ? "connection closed in the middle of a message"
                    : "length " + (announced & 0xffffffffL) + " is over maxMessageLength";
            assertTrue(end.startsWith("END java.io.IOException") && end.contains(expected), end);
            InputStream back = socket.getInputStream();
            try {
                assertEquals(-1, back.read(), "the child sent bytes back");
            } catch (SocketException reset) {
                // the child's side reset the connection: closed, as asked
            }
        }
    }
}
