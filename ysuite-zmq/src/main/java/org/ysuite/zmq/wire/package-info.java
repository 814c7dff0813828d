/**
 * The ZMTP 3.1 engine of one connection (ZeroMQ RFC 23/37): greeting, mechanism handshake, frames and
 * commands, on a Netty channel. {@link org.ysuite.zmq.wire.ZmtpEngine#install} puts it on a channel; the
 * socket above it is a {@link org.ysuite.zmq.wire.ZmtpListener} and writes through a
 * {@link org.ysuite.zmq.wire.ZmtpConnection}.
 *
 * <h2>What the engine speaks and enforces</h2>
 * <ul>
 * <li><b>Versions.</b> ZMTP 3.1, or 3.0 with a peer that announces 3.0 (the lower minor version wins; a
 *     peer announcing 4.x or later is spoken to in 3.1). ZMTP 1.0 and 2.0 peers are refused with a reason
 *     naming their version: RFC 23's "Backwards Interoperability" allows a 3.x peer to downgrade, and this
 *     engine chooses not to (only libzmq 3.2 and older speak them).</li>
 * <li><b>Mechanism.</b> NULL (RFC 23), PLAIN (RFC 24) or CURVE (RFC 25/26, over libsodium; its
 *     MESSAGE boxes wrap every frame and command after the handshake), set by
 *     {@link org.ysuite.zmq.wire.ZmtpSecurity}; the PLAIN and CURVE servers, and a NULL side with a ZAP
 *     domain, ask a {@link org.ysuite.zmq.wire.ZmtpAuthenticator} (ZAP, RFC 27) without blocking its loop.
 *     A peer offering another mechanism (GSSAPI) or an unknown name is dropped at its greeting.
 *     The peer's as-server flag is not checked (libzmq's PLAIN server announces 0): two PLAIN clients
 *     fail at the second HELLO, two PLAIN servers at the handshake timeout. The READY sent carries {@code Socket-Type}, and {@code Identity}
 *     for REQ, DEALER and ROUTER; the peer's READY must carry a {@code Socket-Type} compatible with ours
 *     ({@link org.ysuite.zmq.SocketType#isCompatible}), and metadata whose lengths stay inside the
 *     command. A handshake refused after the greetings is explained to the peer by an ERROR command.</li>
 * <li><b>Frames.</b> The flags' reserved bits 3–7 are ignored, as libzmq ignores them. A long size of
 *     2^63 or more is refused. {@code maxMessageSize} bounds a whole message (all its frames) and is
 *     checked from each frame's header, before its payload is buffered. A command may be 64 KiB (or
 *     {@code maxMessageSize}, if larger); commands this engine does not know are ignored, as in libzmq. A
 *     message frame before the handshake completes is refused.</li>
 * <li><b>Subscriptions.</b> To a PUB or XPUB socket, SUBSCRIBE/CANCEL commands and subscription messages
 *     (a single-frame message whose first byte is 1 or 0, which 3.0 peers send, and libzmq accepts from
 *     any peer) are both told as {@link org.ysuite.zmq.wire.ZmtpListener#subscription}; other sockets
 *     ignore the commands and receive such messages as messages.
 *     {@link org.ysuite.zmq.wire.ZmtpConnection#writeSubscription} sends a command to a 3.1 peer and a
 *     message to a 3.0 peer.</li>
 * <li><b>Heartbeats.</b> PINGs answered with PONGs echoing up to 16 context bytes; our PINGs every
 *     {@code heartbeatIntervalMillis} with our TTL; a connection silent for {@code heartbeatTimeoutMillis}
 *     after a PING, or for the TTL a peer's PING announced, is dropped.</li>
 * </ul>
 * Every drop is told once to {@link org.ysuite.zmq.wire.ZmtpListener#closed} with its reason, and closes
 * the channel.
 */
package org.ysuite.zmq.wire;
