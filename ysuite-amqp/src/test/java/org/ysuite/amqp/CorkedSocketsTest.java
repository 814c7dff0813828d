package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.rabbitmq.client.ConnectionFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import javax.net.SocketFactory;
import org.junit.jupiter.api.Test;

/** {@link CorkedSockets}: the corking thread's flushes wait for its uncork, nobody else's do. */
class CorkedSocketsTest {

    /** Records each write the socket would get (a write(2) each), in order. */
    static final class Writes extends ByteArrayOutputStream {
        final List<Integer> sizes = new ArrayList<>();

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            sizes.add(len);
            super.write(b, off, len);
        }
    }

    private static byte[] bytes(int from, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    @Test
    void aCorkedBatchReachesTheSocketInOneWriteAtTheUncork() throws IOException {
        Writes socket = new Writes();
        CorkedSockets.CorkedStream s = new CorkedSockets.CorkedStream(socket);
        s.cork();
        for (int i = 0; i < 100; i++) {
            s.write(bytes(i, 30), 0, 30); // a command's frames, then amqp-client's flush
            s.flush();
        }
        assertEquals(List.of(), socket.sizes, "the corking thread's flushes wrote");
        s.uncork();
        assertEquals(List.of(3000), socket.sizes);
    }

    @Test
    void uncorkedEveryWriteGoesThrough() throws IOException {
        Writes socket = new Writes();
        CorkedSockets.CorkedStream s = new CorkedSockets.CorkedStream(socket);
        s.write(bytes(0, 10), 0, 10);
        s.flush();
        s.write(bytes(10, 10), 0, 10);
        assertEquals(List.of(10, 10), socket.sizes);
        assertArrayEquals(bytes(0, 20), socket.toByteArray());
    }

    @Test
    void anotherThreadsFlushWritesWhatIsBufferedInOrder() throws Exception {
        Writes socket = new Writes();
        CorkedSockets.CorkedStream s = new CorkedSockets.CorkedStream(socket);
        s.cork();
        s.write(bytes(0, 50), 0, 50);
        s.flush();
        Thread heartbeat = new Thread(() -> {
            try {
                s.write(bytes(50, 8), 0, 8);
                s.flush();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        heartbeat.start();
        heartbeat.join();
        assertArrayEquals(bytes(0, 58), socket.toByteArray(), "another thread's flush must write everything, in order");
        s.write(bytes(58, 2), 0, 2);
        s.flush();
        assertEquals(58, socket.size());
        s.uncork();
        assertArrayEquals(bytes(0, 60), socket.toByteArray());
    }

    @Test
    void aCorkedStreamWritesWhenItsBufferIsFullAndPassesBigWritesThroughInOrder() throws IOException {
        Writes socket = new Writes();
        CorkedSockets.CorkedStream s = new CorkedSockets.CorkedStream(socket);
        int part = CorkedSockets.BUFFER / 2 + 1;
        s.cork();
        s.write(bytes(0, part), 0, part);
        s.write(bytes(part, part), 0, part); // does not fit: the first goes out
        s.write(bytes(2 * part, CorkedSockets.BUFFER), 0, CorkedSockets.BUFFER); // as big as the buffer: through
        s.uncork();
        byte[] all = bytes(0, 2 * part + CorkedSockets.BUFFER);
        assertArrayEquals(all, socket.toByteArray());
        assertEquals(List.of(part, part, CorkedSockets.BUFFER), socket.sizes);
    }

    @Test
    void installedOnlyOverPlainSockets() throws Exception {
        ConnectionFactory plain = new ConnectionFactory();
        CorkedSockets sockets = CorkedSockets.install(plain);
        assertSame(sockets, plain.getSocketFactory());
        assertSame(CorkedSockets.NONE, sockets.takeLast(), "no connection made yet");

        ConnectionFactory own = new ConnectionFactory();
        SocketFactory theirs = SocketFactory.getDefault();
        own.setSocketFactory(theirs);
        assertNull(CorkedSockets.install(own));
        assertSame(theirs, own.getSocketFactory());

        ConnectionFactory tls = new ConnectionFactory();
        tls.useSslProtocol();
        assertNull(CorkedSockets.install(tls));
    }
}
