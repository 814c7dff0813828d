package org.ysuite.amqp;

import java.net.InetAddress;
import java.net.Socket;
import java.util.function.Supplier;
import javax.net.SocketFactory;

/**
 * A {@code SocketFactory} for a test's {@code ConnectionFactory}: amqp-client asks it for an
 * unconnected socket ({@link #createSocket()}) and connects that itself, so the test holds each
 * connection's real socket and can act on it (hold its reads, shut or close it). The connecting
 * overloads, which amqp-client does not call, refuse.
 */
final class TestSockets extends SocketFactory {

    private final Supplier<Socket> sockets;

    TestSockets(Supplier<Socket> sockets) {
        this.sockets = sockets;
    }

    @Override
    public Socket createSocket() {
        return sockets.get();
    }

    @Override
    public Socket createSocket(String host, int port) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) {
        throw new UnsupportedOperationException();
    }
}
