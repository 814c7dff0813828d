/**
 * ZeroMQ sockets over ZMTP 3.1: a context that owns the I/O threads, sockets by {@link org.ysuite.zmq.SocketType},
 * {@code bind}/{@code connect} over {@code tcp://}, {@code ipc://} and {@code inproc://}.
 */
package org.ysuite.zmq;
