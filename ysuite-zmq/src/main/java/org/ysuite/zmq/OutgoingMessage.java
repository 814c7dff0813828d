package org.ysuite.zmq;

import java.util.ArrayList;
import org.ysuite.zmq.internal.Lane;
import org.ysuite.zmq.internal.LoadBalancer;

/**
 * The send side of a {@link ZmqSocket}'s messages: the frames sent with {@link ZmqSocket#SNDMORE} held
 * until the last one, the whole message they make ({@code byte[]} for one frame, {@code byte[][]} for
 * several), and the arrays the I/O thread hands back for the next frames' copies. Socket thread only.
 */
final class OutgoingMessage {

    private final ArrayList<byte[]> parts = new ArrayList<>();
    /** The socket's outbound peers, where the copies find arrays to reuse. */
    private final LoadBalancer outPeers;

    OutgoingMessage(LoadBalancer outPeers) {
        this.outPeers = outPeers;
    }

    /** Whether frames of a message were held: the next frame is not a message's first. */
    boolean started() {
        return !parts.isEmpty();
    }

    /**
     * An array of {@code length} bytes: one the I/O thread handed back after writing it (no allocation for a
     * stream of same-sized messages), else a new one.
     */
    byte[] buffer(int length) {
        Lane r = outPeers.recycle();
        if (r != null) {
            Object b = r.read();
            if (b != null && ((byte[]) b).length == length) {
                return (byte[]) b;
            }
        }
        return new byte[length];
    }

    /** Holds a frame that more frames follow. */
    void hold(byte[] frame) {
        parts.add(frame);
    }

    /**
     * The whole message that {@code last} ends: the frame itself if none was held. The held frames stay
     * until {@link #sent()}, so a send that must wait may retry its last frame.
     */
    Object complete(byte[] last) {
        if (parts.isEmpty()) {
            return last;
        }
        byte[][] m = parts.toArray(new byte[parts.size() + 1][]);
        m[m.length - 1] = last;
        return m;
    }

    /** The message went out: the next frame starts a new one. */
    void sent() {
        parts.clear();
    }
}
