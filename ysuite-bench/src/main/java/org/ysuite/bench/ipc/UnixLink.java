package org.ysuite.bench.ipc;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An AF_UNIX stream socket (the JDK's {@code SocketChannel} with a
 * {@code UnixDomainSocketAddress}, blocking mode): each message a 4-byte length and the bytes,
 * sent with one {@code write}; the reader reads as much as has arrived and takes the frames out
 * of its buffer, so a backlog is read in few system calls.
 */
final class UnixLink implements Link {

    private final SocketChannel ch;
    private final ByteBuffer out = ByteBuffer.allocateDirect(4 + MAX_MESSAGE);
    private final ByteBuffer in = ByteBuffer.allocateDirect(16 * (4 + MAX_MESSAGE));

    private UnixLink(SocketChannel ch) {
        this.ch = ch;
        in.flip(); // empty, in read mode
    }

    static Link.Pending listen(Path dir) throws IOException {
        Path socket = dir.resolve("sock");
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        return new Link.Pending() {
            @Override
            public Link accept() throws IOException {
                try {
                    return new UnixLink(server.accept()); // the child connected before it said READY
                } finally {
                    close();
                }
            }

            @Override
            public void close() throws IOException {
                server.close();
                Files.deleteIfExists(socket);
            }
        };
    }

    static Link connect(Path dir) throws IOException {
        return new UnixLink(SocketChannel.open(UnixDomainSocketAddress.of(dir.resolve("sock"))));
    }

    @Override
    public void send(byte[] msg, int length) throws IOException {
        out.clear();
        out.putInt(length).put(msg, 0, length).flip();
        while (out.hasRemaining()) {
            ch.write(out);
        }
    }

    @Override
    public int receive(byte[] dst) throws IOException {
        for (;;) {
            if (in.remaining() >= 4) {
                int length = in.getInt(in.position());
                if (in.remaining() >= 4 + length) {
                    in.getInt();
                    in.get(dst, 0, length);
                    return length;
                }
            }
            in.compact();
            int n = ch.read(in);
            in.flip();
            if (n < 0) {
                if (in.hasRemaining()) {
                    throw new EOFException("the peer closed in the middle of a frame");
                }
                return -1;
            }
        }
    }

    @Override
    public void closeOutput() throws IOException {
        ch.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
