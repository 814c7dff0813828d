package org.ysuite.zmq;

/**
 * The receive side of a {@link ZmqSocket}'s messages: the whole message being received ({@code byte[]} or
 * {@code byte[][]}), the next frame's index in it and whether the frame last returned has more after it
 * (ZMQ_RCVMORE). Socket thread only.
 */
final class IncomingMessage {

    private Object current;
    private int index;
    private boolean more;

    /** Whether frames of a message are left to return. */
    boolean pending() {
        return current != null;
    }

    /** Starts returning {@code message}'s frames. */
    void start(Object message) {
        current = message;
        index = 0;
    }

    /** The next frame of the message started; {@link #more()} then says whether frames are left. */
    byte[] next() {
        byte[] f;
        if (current instanceof byte[] single) {
            f = single;
            current = null;
            more = false;
        } else {
            byte[][] m = (byte[][]) current;
            f = m[index++];
            more = index < m.length;
            if (!more) {
                current = null;
            }
        }
        return f;
    }

    /** Records that a receive returned nothing: no frame follows. */
    void none() {
        more = false;
    }

    /** Whether the frame last returned has more frames after it. */
    boolean more() {
        return more;
    }
}
