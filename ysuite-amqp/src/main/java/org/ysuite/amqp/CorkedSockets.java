package org.ysuite.amqp;

import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * The publisher's sockets: one write to the socket per batch of messages instead of one per
 * message. amqp-client flushes its socket after every command ({@code basicPublish} included), so a
 * batch of {@code n} messages would cost {@code n} {@code write(2)} calls, each a TCP segment the
 * broker reads on its own. While the publisher's thread has its socket <em>corked</em>, its flushes
 * leave the bytes in the socket's stream ({@link CorkedStream}, up to {@value #BUFFER} bytes, beyond
 * which they are written); {@link Cork#uncork()} at the end of the batch writes them in one call.
 *
 * <p>Only the corking thread's flushes are held back: a flush from any other thread (amqp-client's
 * heartbeat, the connection's own replies) writes everything buffered, in order, as before. Bytes
 * reach the stream in the order amqp-client writes its frames (its frame lock and its
 * {@code BufferedOutputStream} serialise them); the stream adds no reordering, only a later write.
 *
 * <p>Installed only where the application's factory uses plain sockets (no {@code SocketFactory}
 * of its own, no TLS); elsewhere a {@link #NONE} cork does nothing and every message is flushed by
 * amqp-client as usual.
 */
final class CorkedSockets extends SocketFactory {

    /** Bytes a corked stream holds before it writes them anyway. */
    static final int BUFFER = 64 * 1024;

    /** A cork that does nothing (sockets not ours: a factory of the application's, TLS). */
    static final Cork NONE = new Cork() {
        @Override
        public void cork() {
        }

        @Override
        public void uncork() {
        }
    };

    /** The cork of the last socket this factory made (one connection at a time per publisher). */
    private volatile CorkedStream last;

    private CorkedSockets() {
    }

    /**
     * Makes {@code own}'s sockets corkable, where it uses plain sockets.
     *
     * @return the factory installed, or {@code null} if {@code own} has sockets of its own
     */
    static CorkedSockets install(ConnectionFactory own) {
        if (own.getSocketFactory() != null || own.isSSL()) {
            return null;
        }
        CorkedSockets sockets = new CorkedSockets();
        own.setSocketFactory(sockets);
        return sockets;
    }

    /**
     * The cork of the connection just opened with this factory's socket, or {@link #NONE} if that
     * connection did not use one (NIO mode).
     */
    Cork takeLast() {
        CorkedStream s = last;
        last = null;
        return s == null ? NONE : s;
    }

    @Override
    public Socket createSocket() {
        return new CorkedSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket s = new CorkedSocket();
        s.connect(new java.net.InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        Socket s = new CorkedSocket();
        s.bind(new java.net.InetSocketAddress(localHost, localPort));
        s.connect(new java.net.InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket s = new CorkedSocket();
        s.connect(new java.net.InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        Socket s = new CorkedSocket();
        s.bind(new java.net.InetSocketAddress(localAddress, localPort));
        s.connect(new java.net.InetSocketAddress(address, port));
        return s;
    }

    /** Holding back one thread's flushes. */
    interface Cork {
        /** From now on the calling thread's flushes leave the bytes buffered. */
        void cork();

        /**
         * Ends {@link #cork()} and writes what is buffered.
         *
         * @throws IOException if the write fails
         */
        void uncork() throws IOException;
    }

    /** A plain socket whose output stream is a {@link CorkedStream}. */
    private final class CorkedSocket extends Socket {
        private CorkedStream stream;

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (stream == null) {
                stream = new CorkedStream(super.getOutputStream());
                last = stream;
            }
            return stream;
        }
    }

    /**
     * A socket's output stream that holds the corking thread's flushes back. Every method holds the
     * stream's lock, so bytes leave in the order they came, whichever thread wrote them.
     */
    static final class CorkedStream extends OutputStream implements Cork {
        private final OutputStream out;
        private final byte[] buffer = new byte[BUFFER];
        private int count;
        /** The thread whose flushes are held back, or {@code null}. */
        private Thread corker;

        CorkedStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public synchronized void cork() {
            corker = Thread.currentThread();
        }

        @Override
        public synchronized void uncork() throws IOException {
            corker = null;
            drain();
        }

        @Override
        public synchronized void write(int b) throws IOException {
            if (count == buffer.length) {
                drain();
            }
            buffer[count++] = (byte) b;
            if (corker == null) {
                drain();
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (corker == null || len > buffer.length - count) {
                drain();
                if (corker == null || len >= buffer.length) {
                    out.write(b, off, len);
                    return;
                }
            }
            System.arraycopy(b, off, buffer, count, len);
            count += len;
        }

        @Override
        public synchronized void flush() throws IOException {
            if (corker == Thread.currentThread()) {
                return; // the corking thread's batch goes on: uncork writes it
            }
            drain();
            out.flush();
        }

        @Override
        public synchronized void close() throws IOException {
            try {
                drain();
            } finally {
                out.close();
            }
        }

        private void drain() throws IOException {
            if (count > 0) {
                int n = count;
                count = 0; // nothing written twice if the write fails: the connection is lost then
                out.write(buffer, 0, n);
            }
        }
    }
}
