/**
 * ysuite-zmq: ZeroMQ sockets that speak ZMTP 3.1 (ZeroMQ RFC 23/37) with libzmq, pyzmq and JeroMQ
 * peers over {@code tcp://} and {@code ipc://}, and ysuite pipes over {@code inproc://}.
 *
 * <p>{@code org.ysuite.zmq} is the API (context, sockets, poller, options); {@code org.ysuite.zmq.wire}
 * is the ZMTP engine of one connection (greeting, mechanisms, frames, commands), exported for users
 * who put ZMTP on a Netty channel of their own.
 *
 * <p>CURVE (RFC 25/26) calls libsodium through jnr-ffi ({@code org.jnrproject.ffi}, an automatic module;
 * {@code org.objectweb.asm} is named for the reason ysuite-core's module-info gives). jnr-ffi implements the
 * binding ({@code org.ysuite.zmq.internal.Sodium}) with a class it generates into an unnamed module, so
 * that package is opened (run-time access only; it stays unexported).
 */
@SuppressWarnings("requires-automatic")
module org.ysuite.zmq {
    requires transitive org.ysuite;
    requires transitive io.netty.transport;
    requires transitive io.netty.buffer;
    requires io.netty.common;
    /** SslContext in ZmqSocket.setTls; SslHandler for TLS under ZMTP on tcp:// */
    requires transitive io.netty.handler;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires io.netty.resolver;
    requires org.jnrproject.ffi;
    requires org.objectweb.asm;

    exports org.ysuite.zmq;
    exports org.ysuite.zmq.wire;

    opens org.ysuite.zmq.internal;
}
