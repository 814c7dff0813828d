package org.ysuite.examples;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.ysuite.Signaler;
import org.ysuite.YPipe;

/**
 * The traffic every poller example serves: a TCP client on 127.0.0.1 sending newline-terminated
 * messages, and writer threads each feeding its own {@link YPipe}, signalling the loop through its
 * own signal id when {@code flush()} finds the reader asleep. All counts are bounded, so every
 * example ends by itself.
 *
 * <p>The loop side ({@link #fired}, {@link #drainSignalledPipes()}, {@link #onSocketBytes}) must
 * be used from the loop thread only.
 */
final class LoopbackTraffic {

    /** Messages the TCP client sends unless told otherwise. */
    static final int DEFAULT_SOCKET_MESSAGES = 1000;
    /** Messages each pipe writer sends unless told otherwise. */
    static final int DEFAULT_PIPE_MESSAGES = 500;
    /** Messages a writer sends in one burst before it waits for the loop to consume them. */
    static final int BURST = 16;
    /** Number of writer threads (and pipes, and signal ids). */
    static final int WRITERS = 2;
    /** How long an example may run before it gives up. */
    static final long TIME_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    final int socketMessages;
    final int pipeMessages;
    private final List<YPipe<Integer>> pipes = new ArrayList<>();
    private final int[] nextSequence = new int[WRITERS];
    /** Per writer: messages the loop has consumed (written by the loop, read by the writer). */
    private final AtomicIntegerArray consumed = new AtomicIntegerArray(WRITERS);
    private final BitSet pending = new BitSet();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final long deadline = System.nanoTime() + TIME_LIMIT_NANOS;
    private int socketReceived;
    private int pipeReceived;
    private boolean socketEnded;

    /** Takes a fired signal id: the pipe of that writer has something to drain. */
    final IntConsumer fired = pending::set;

    LoopbackTraffic(String[] args) {
        this.socketMessages = args.length > 0 ? positive(args[0], "socket messages") : DEFAULT_SOCKET_MESSAGES;
        this.pipeMessages = args.length > 1 ? positive(args[1], "pipe messages per writer") : DEFAULT_PIPE_MESSAGES;
        for (int k = 0; k < WRITERS; k++) {
            pipes.add(new YPipe<>());
            pending.set(k); // read every pipe once first: a reader that found nothing is "asleep"
        }
    }

    private static int positive(String s, String what) {
        int v = Integer.parseInt(s);
        if (v < 1 || v > 10_000_000) {
            throw new IllegalArgumentException(what + " must be in [1, 10000000]: " + v);
        }
        return v;
    }

    /** Starts the pipe writers: writer {@code k} signals id {@code k} when the loop sleeps. */
    void startWriters(Signaler signaler) {
        for (int k = 0; k < WRITERS; k++) {
            final int id = k;
            final YPipe<Integer> pipe = pipes.get(k);
            start("pipe-writer-" + k, () -> {
                for (int i = 0; i < pipeMessages; i++) {
                    pipe.write(i);
                    if (!pipe.flush()) {
                        signaler.signal(id); // the loop found this pipe empty and may sleep
                    }
                    if (i % BURST == BURST - 1) {
                        // Between bursts the writer "does other work" until the loop has caught up,
                        // so the loop goes to sleep in its poller and the next burst must wake it.
                        while (consumed.get(id) <= i && failure.get() == null
                                && System.nanoTime() - deadline < 0) {
                            LockSupport.parkNanos(20_000);
                        }
                    }
                }
            });
        }
    }

    /** Starts the TCP client: connects to 127.0.0.1:{@code port}, sends its lines, closes. */
    void startClient(int port) {
        start("tcp-client", () -> {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                socket.setTcpNoDelay(true);
                OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 256);
                for (int i = 0; i < socketMessages; i++) {
                    out.write(("net " + i + "\n").getBytes(StandardCharsets.US_ASCII));
                    if (i % 16 == 15) {
                        out.flush(); // several segments, so the loop wakes on the socket many times
                    }
                }
                out.flush();
            } catch (IOException e) {
                throw new IllegalStateException("tcp client failed", e);
            }
        });
    }

    private void start(String name, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    /** Drains every pipe whose signal was taken, checking each writer's sequence. */
    void drainSignalledPipes() {
        for (int k = pending.nextSetBit(0); k >= 0; k = pending.nextSetBit(k + 1)) {
            YPipe<Integer> pipe = pipes.get(k);
            Integer v;
            while ((v = pipe.read()) != null) { // null: the pipe is empty and its reader asleep
                if (v != nextSequence[k]) {
                    throw new IllegalStateException("pipe " + k + ": expected " + nextSequence[k] + ", got " + v);
                }
                nextSequence[k]++;
                pipeReceived++;
            }
            consumed.lazySet(k, nextSequence[k]); // release: the writer's next burst follows it
        }
        pending.clear();
    }

    /** Counts the messages (newlines) in bytes read from the TCP connection. */
    void onSocketBytes(byte[] buf, int length) {
        for (int i = 0; i < length; i++) {
            if (buf[i] == '\n') {
                socketReceived++;
            }
        }
    }

    /** The client closed its end. */
    void onSocketEnd() {
        socketEnded = true;
    }

    boolean done() {
        return socketEnded && socketReceived == socketMessages && pipeReceived == WRITERS * pipeMessages;
    }

    /** Throws the first failure of a helper thread, or if the time limit is exceeded. */
    void checkHealth() {
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("a traffic thread failed", t);
        }
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("time limit exceeded: socket " + socketReceived + "/" + socketMessages
                    + ", pipes " + pipeReceived + "/" + WRITERS * pipeMessages);
        }
    }

    /**
     * Milliseconds a wait may last: until the time limit. Deliberately long: a lost wake-up would
     * leave the loop asleep until then and the example would fail with "time limit exceeded".
     */
    int waitMillis() {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        return (int) Math.max(1, Math.min(left + 1, Integer.MAX_VALUE));
    }

    /** Waits for the helper threads to end. */
    void join() throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.NANOSECONDS.toMillis(TIME_LIMIT_NANOS));
        }
        checkHealth();
    }

    /** The summary line the tests assert on. */
    String summary(String example, String poller) {
        return example + ": served " + socketReceived + " socket messages and " + pipeReceived
                + " pipe messages from " + WRITERS + " writers in one " + poller + " loop";
    }
}
