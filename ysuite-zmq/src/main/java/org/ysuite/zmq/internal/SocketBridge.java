package org.ysuite.zmq.internal;

import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqEvent;

/**
 * What the transports see of a socket. {@link #attach}, {@link #detach}, {@link #wake} and {@link #event}
 * may be called from any thread; the socket applies attach/detach on its own thread.
 */
public interface SocketBridge {

    /** The socket's type. */
    SocketType type();

    /** The socket's options (read by the transports when a connection is set up). */
    SocketOptions options();

    /** A new peer whose lanes are ready; the socket adds it on its thread. */
    void attach(Peer peer);

    /** A peer whose transport ended ({@link Peer#gone} is set); the socket removes it on its thread. */
    void detach(Peer peer);

    /** Wakes the socket's thread (and its pollers). */
    void wake();

    /** Tells the socket's event listener. */
    void event(ZmqEvent event);
}
