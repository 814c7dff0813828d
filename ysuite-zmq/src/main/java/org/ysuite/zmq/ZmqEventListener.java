package org.ysuite.zmq;

/**
 * Told of a socket's connection events. Called on the socket's I/O thread (or, for {@code inproc://},
 * on the thread that attached the pipe): it must return quickly and must not call the socket.
 */
@FunctionalInterface
public interface ZmqEventListener {

    /** One event. */
    void event(ZmqEvent event);
}
