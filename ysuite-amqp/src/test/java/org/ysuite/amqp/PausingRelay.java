package org.ysuite.amqp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on the loopback between a test's client and a broker, with real sockets on both
 * sides, whose client-to-broker direction can be paused: the broker then reads nothing more from
 * that client, as a broker that hangs or a network that stops carrying, while its frames to the
 * client still pass. {@link #close()} closes every socket and joins its threads.
 */
final class PausingRelay implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean paused; // under gate
    private volatile boolean closed;

    /**
     * Listens on a free loopback port, relaying each connection to {@code host:port}.
     *
     * @param receiveBufferBytes the receive buffer of the relay's accepted sockets (a small one
     *     makes a paused direction push back on its writer sooner)
     */
    PausingRelay(String host, int port, int receiveBufferBytes) throws IOException {
        this.target = new InetSocketAddress(host, port);
        this.server = new ServerSocket();
        server.setReceiveBufferSize(receiveBufferBytes); // inherited by the accepted sockets
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        start("relay-accept", this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    /** Stops carrying bytes from clients to the broker: none that a client writes from now on reaches it. */
    void pause() {
        synchronized (gate) {
            paused = true;
        }
    }

    private void accept() {
        try {
            while (!closed) {
                Socket client = server.accept();
                sockets.add(client);
                Socket broker = new Socket();
                sockets.add(broker);
                broker.connect(target);
                start("relay-up", () -> pump(client, broker, true));
                start("relay-down", () -> pump(broker, client, false));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void pump(Socket from, Socket to, boolean pausable) {
        byte[] buffer = new byte[8192];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (;;) {
                int n = in.read(buffer);
                if (pausable) {
                    synchronized (gate) { // after the read: what is written after pause() stays here
                        while (paused && !closed) {
                            gate.wait();
                        }
                    }
                }
                if (n < 0 || closed) {
                    break;
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException | InterruptedException e) {
            // a socket closed: the other end learns it below
        }
        closeQuietly(from);
        closeQuietly(to);
    }

    private void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        synchronized (gate) {
            gate.notifyAll();
        }
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join(); // its sockets are closed: it ends
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing
        }
    }
}
