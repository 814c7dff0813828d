package org.ysuite.netty.outside;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.ysuite.netty.MessageStream;
import org.ysuite.netty.MessageWriter;

/**
 * The second JVM of {@link TwoJvmTest}, written against {@code MessageStream}'s public API only:
 * a server on an ephemeral loopback port (it prints {@code PORT <n>} first) that accepts one
 * connection and then, by mode:
 * <ul>
 *   <li>{@code echo}: checks every message (order and checksum) and sends it back; at the peer's
 *       close prints {@code DONE <count>} and exits 0; a bad message prints {@code FAIL ...}, exit 1.</li>
 *   <li>{@code flood}: sends checked messages flat out on one thread and checks the incoming ones
 *       on another, until the connection ends; prints {@code READER <how it ended>},
 *       {@code WRITER <how it ended>} and {@code RECEIVED <count>}, exit 0 (1 on a bad message).</li>
 *   <li>{@code sink}: checks the incoming messages until the stream ends; prints
 *       {@code RECEIVED <count>} and {@code END <how it ended>}, exit 0 (1 on a bad message). The
 *       hostile-frame test talks to it over a plain socket.</li>
 * </ul>
 */
public final class TwoJvmPeer {

    /** The longest message either side sends. */
    static final int MAX_LENGTH = MessageStream.DEFAULT_MAX_MESSAGE_LENGTH;

    private TwoJvmPeer() {
    }

    /**
     * Runs the peer.
     *
     * @param args {@code <echo|flood|sink>}
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        String mode = args.length == 1 ? args[0] : "";
        if (!mode.equals("echo") && !mode.equals("flood") && !mode.equals("sink")) {
            System.err.println("usage: TwoJvmPeer <echo|flood|sink>");
            System.exit(2);
        }
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        int status;
        try {
            CompletableFuture<MessageStream> accepted = new CompletableFuture<>();
            Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            accepted.complete(MessageStream.attach(ch));
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            System.out.println("PORT " + ((InetSocketAddress) server.localAddress()).getPort());
            System.out.flush();
            try (MessageStream s = accepted.get(60, TimeUnit.SECONDS)) {
                status = mode.equals("echo") ? echo(s) : mode.equals("flood") ? flood(s) : sink(s);
            } finally {
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
        System.out.flush();
        System.exit(status);
    }

    private static int echo(MessageStream s) throws Exception {
        CheckedMessages in = new CheckedMessages(MAX_LENGTH, 0);
        MessageWriter out = s.newWriter();
        byte[] buf = new byte[s.maxMessageLength()];
        for (int n; (n = s.receive(buf)) >= 0; ) {
            String bad = in.check(buf, n);
            if (bad != null) {
                System.out.println("FAIL " + bad);
                return 1;
            }
            out.send(buf, 0, n);
        }
        System.out.println("DONE " + in.count());
        return 0;
    }

    private static int sink(MessageStream s) throws Exception {
        CheckedMessages in = new CheckedMessages(MAX_LENGTH, 0);
        byte[] buf = new byte[s.maxMessageLength()];
        String end;
        try {
            for (int n; (n = s.receive(buf)) >= 0; ) {
                String bad = in.check(buf, n);
                if (bad != null) {
                    System.out.println("FAIL " + bad);
                    return 1;
                }
            }
            end = "end of stream (-1)";
        } catch (IOException e) {
            end = e.getClass().getName() + ": " + e.getMessage();
        }
        System.out.println("RECEIVED " + in.count());
        System.out.println("END " + end);
        return 0;
    }

    private static int flood(MessageStream s) throws Exception {
        String[] writerEnd = {"still running 30 s after the reader ended"};
        Thread writer = new Thread(() -> {
            try {
                MessageWriter out = s.newWriter();
                CheckedMessages msgs = new CheckedMessages(MAX_LENGTH, 2);
                byte[] buf = new byte[MAX_LENGTH];
                for (;;) {
                    out.send(buf, 0, msgs.fill(buf));
                }
            } catch (Throwable e) {
                writerEnd[0] = e.getClass().getName() + ": " + e.getMessage();
            }
        }, "flood-writer");
        writer.start();
        CheckedMessages in = new CheckedMessages(MAX_LENGTH, 1);
        byte[] buf = new byte[s.maxMessageLength()];
        String readerEnd;
        int status = 0;
        try {
            int n;
            while ((n = s.receive(buf)) >= 0) {
                String bad = in.check(buf, n);
                if (bad != null) {
                    System.out.println("FAIL " + bad);
                    status = 1;
                    break;
                }
            }
            readerEnd = "end of stream (-1)";
        } catch (IOException e) {
            readerEnd = e.getClass().getName() + ": " + e.getMessage();
        }
        writer.join(30_000);
        System.out.println("READER " + readerEnd);
        System.out.println("WRITER " + writerEnd[0]);
        System.out.println("RECEIVED " + in.count());
        return status;
    }
}
