package org.ysuite.zmq.internal;

/**
 * The shapes of a whole message on a {@link Lane}: a {@code byte[]} for one frame, a {@code byte[][]} for
 * several. Helpers that read and build them.
 */
public final class Messages {

    /** The empty frame (the delimiter of a REQ/REP envelope); never modified. */
    public static final byte[] EMPTY = new byte[0];

    private Messages() {
    }

    /** The message's first frame. */
    public static byte[] first(Object message) {
        return message instanceof byte[] b ? b : ((byte[][]) message)[0];
    }

    /** A deep copy: new arrays for the message and each frame. */
    public static Object copy(Object message) {
        if (message instanceof byte[] b) {
            return b.clone();
        }
        byte[][] m = ((byte[][]) message).clone();
        for (int i = 0; i < m.length; i++) {
            m[i] = m[i].clone();
        }
        return m;
    }

    /** {@code frame} followed by the message's frames (the frames are shared, not copied). */
    public static byte[][] prepend(byte[] frame, Object message) {
        if (message instanceof byte[] b) {
            return new byte[][] {frame, b};
        }
        byte[][] m = (byte[][]) message;
        byte[][] r = new byte[m.length + 1][];
        r[0] = frame;
        System.arraycopy(m, 0, r, 1, m.length);
        return r;
    }

    /** The frames of {@code head} followed by the message's (shared, not copied). */
    public static byte[][] concat(byte[][] head, Object message) {
        byte[][] tail = message instanceof byte[] b ? new byte[][] {b} : (byte[][]) message;
        byte[][] r = new byte[head.length + tail.length][];
        System.arraycopy(head, 0, r, 0, head.length);
        System.arraycopy(tail, 0, r, head.length, tail.length);
        return r;
    }

    /** The frames from {@code from} on: the frame itself if it is the last one, else a multipart message. */
    public static Object from(byte[][] parts, int from) {
        return from + 1 == parts.length ? parts[from] : java.util.Arrays.copyOfRange(parts, from, parts.length);
    }

    /** A subscription message (ZMTP 3.0's form, which 3.1 peers accept): 1 to subscribe or 0 to cancel, then the prefix. */
    public static byte[] subscription(byte[] prefix, boolean on) {
        byte[] m = new byte[prefix.length + 1];
        m[0] = (byte) (on ? 1 : 0);
        System.arraycopy(prefix, 0, m, 1, prefix.length);
        return m;
    }
}
