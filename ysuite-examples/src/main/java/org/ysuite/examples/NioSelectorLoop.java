package org.ysuite.examples;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.ysuite.NioSignaler;

/**
 * The same loop with a JDK {@link Selector}: a {@link ServerSocketChannel} on 127.0.0.1, its
 * connection and a {@link NioSignaler}'s channel in one {@code select()}.
 *
 * <pre>
 * java -jar ysuite-examples/target/ysuite-examples.jar nio [socketMessages [pipeMessagesPerWriter]]
 * </pre>
 */
public final class NioSelectorLoop {

    private NioSelectorLoop() {
    }

    /**
     * Runs the example.
     *
     * @param args optional: socket messages, pipe messages per writer
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        run(System.out, args);
    }

    /**
     * Runs the example, printing to {@code out}.
     *
     * @param out where the summary goes
     * @param args as for {@link #main}
     * @throws Exception if the example fails or exceeds its time limit
     */
    public static void run(PrintStream out, String[] args) throws Exception {
        LoopbackTraffic traffic = new LoopbackTraffic(args);
        int selects = 0;
        int wakeups = 0;
        ByteBuffer buf = ByteBuffer.allocate(4096);
        try (NioSignaler signals = new NioSignaler();
             Selector selector = Selector.open();
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
            SelectionKey signalKey = signals.channel().register(selector, SelectionKey.OP_READ);
            traffic.startWriters(signals);
            traffic.startClient(((InetSocketAddress) server.getLocalAddress()).getPort());
            SocketChannel conn = null;
            try {
                for (;;) {
                    traffic.drainSignalledPipes();
                    if (traffic.done()) {
                        break;
                    }
                    traffic.checkHealth();
                    int fired = signals.check(traffic.fired); // 0: none, and the channel is armed
                    if (fired > 0) {
                        selector.selectNow();
                    } else {
                        selector.select(traffic.waitMillis());
                    }
                    selects++;
                    for (SelectionKey key : selector.selectedKeys()) {
                        if (key == signalKey) {
                            wakeups++; // check() at the top of the loop reads the wake-up back
                        } else if (key.isAcceptable()) {
                            SocketChannel ch = server.accept();
                            if (ch != null) {
                                ch.configureBlocking(false);
                                ch.register(selector, SelectionKey.OP_READ);
                                conn = ch;
                            }
                        } else if (key.isReadable()) {
                            SocketChannel ch = (SocketChannel) key.channel();
                            int r;
                            while ((r = ch.read(buf.clear())) > 0) {
                                traffic.onSocketBytes(buf.array(), r);
                            }
                            if (r < 0) {
                                key.cancel();
                                ch.close();
                                conn = null;
                                traffic.onSocketEnd();
                            }
                        }
                    }
                    selector.selectedKeys().clear();
                }
                traffic.join();
            } finally {
                if (conn != null) {
                    conn.close();
                }
            }
        }
        out.println(traffic.summary("NioSelectorLoop", "Selector"));
        out.println("NioSelectorLoop: " + selects + " select calls, " + wakeups + " signaler wake-ups");
    }
}
