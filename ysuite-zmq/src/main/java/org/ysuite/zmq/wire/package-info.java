/**
 * The ZMTP 3.1 engine of one connection (ZeroMQ RFC 23/37): greeting, mechanism handshake, frames and
 * commands, on a Netty channel. {@link org.ysuite.zmq.wire.ZmtpEngine#install} puts it on a channel; the
 * socket above it is a {@link org.ysuite.zmq.wire.ZmtpListener} and writes through a
 * {@link org.ysuite.zmq.wire.ZmtpConnection}.
 */
package org.ysuite.zmq.wire;
