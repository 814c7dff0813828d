package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Records what the engine tells its socket; safe to read from another thread. */
final class RecordingListener implements ZmtpListener {

    /** A frame as received: its bytes (copied) and MORE. */
    record Frame(byte[] data, boolean more) {
        String text() {
            return new String(data, StandardCharsets.ISO_8859_1) + (more ? "+" : "");
        }
    }

    private final List<Frame> frames = new ArrayList<>();
    private final List<String> subscriptions = new ArrayList<>();
    private final List<String> closedReasons = new ArrayList<>();
    private ZmtpPeer peer;
    private ZmtpConnection connection;
    private int readyCount;

    @Override
    public synchronized void ready(ZmtpConnection connection, ZmtpPeer peer) {
        this.connection = connection;
        this.peer = peer;
        readyCount++;
        notifyAll();
    }

    @Override
    public synchronized void frame(ByteBuf data, boolean more) {
        frames.add(new Frame(ByteBufUtil.getBytes(data), more));
        notifyAll();
    }

    @Override
    public synchronized void subscription(ByteBuf topic, boolean subscribe) {
        subscriptions.add((subscribe ? "+" : "-") + topic.toString(StandardCharsets.ISO_8859_1));
        notifyAll();
    }

    @Override
    public synchronized void closed(String reason, Throwable cause) {
        closedReasons.add(reason);
        notifyAll();
    }

    synchronized ZmtpPeer peer() {
        return peer;
    }

    synchronized ZmtpConnection connection() {
        return connection;
    }

    synchronized int readyCount() {
        return readyCount;
    }

    synchronized List<Frame> frames() {
        return new ArrayList<>(frames);
    }

    synchronized List<String> frameTexts() {
        List<String> out = new ArrayList<>();
        for (Frame f : frames) {
            out.add(f.text());
        }
        return out;
    }

    synchronized List<String> subscriptions() {
        return new ArrayList<>(subscriptions);
    }

    synchronized List<String> closedReasons() {
        return new ArrayList<>(closedReasons);
    }

    /** The single close reason; fails if the connection was not closed exactly once. */
    synchronized String closedReason() {
        if (closedReasons.size() != 1) {
            throw new AssertionError("closed " + closedReasons.size() + " times: " + closedReasons);
        }
        return closedReasons.get(0);
    }

    /** Waits until {@code condition} holds; fails after {@code millis} (a failure bound, not a pacing). */
    synchronized void await(BooleanSupplier condition, long millis, String what) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (!condition.getAsBoolean()) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                throw new AssertionError("timed out waiting for " + what + "; frames " + frameTexts()
                        + ", closed " + closedReasons);
            }
            wait(left);
        }
    }
}
