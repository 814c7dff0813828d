package org.ysuite.bench.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.ysuite.netty.MessageStream;

/**
 * Where a 16 B round trip's time goes: client and server in this one JVM (so that every stage
 * can be stamped with {@link System#nanoTime()} into shared arrays), the same peers as the report
 * written the same way, each stage of every round trip stamped by the thread that reaches it:
 *
 * <pre>
 * T0 client app: before send      T1 client app: send returned    T2 client loop: writes to the socket
 * T3 server loop: read the bytes  T4 server app/handler: has the request
 * T5 server: reply sent (returned) T6 server loop: writes the reply to the socket
 * T7 client loop: read the reply  T8 client app: has the reply
 * </pre>
 *
 * A stage a peer does not have (raw TCP has no loops) is left out. The loops' stamps come from a
 * handler first in each channel's pipeline (inbound {@code channelRead}, outbound {@code write}).
 * Beside the stage medians and means (and the means over the slowest 1 % of round trips: where a
 * tail's time goes) it reads, per thread, the voluntary context switches per round trip
 * from {@code /proc/self/task/TID/status}: each is one sleep and one wake-up of that thread.
 *
 * <p>{@code java -cp ysuite-bench.jar org.ysuite.bench.net.RoundTripProfile --profile [n [peer,...]]}
 * (default 20,000 round trips after as many untimed; peers {@code tcp,netty_flush,ysuite,ysuite_loop}).
 * Benchmark-only: the stamps cost a few tens of ns per stage.
 */
public final class RoundTripProfile {

    private static final int SIZE = 16;
    private static final String[] STAGES = {"client send call", "client send -> client loop writes",
        "client loop -> server loop reads", "server loop -> server app has it", "server app -> reply sent",
        "reply sent -> server loop writes", "server loop -> client loop reads", "client loop -> client app has it"};
    private static final String[] THREADS = {"rt-client", "rt-cloop", "rt-sloop", "rt-server"};

    /** Stamps, [stage][round trip]; 0: not reached. */
    private final long[][] t;
    private final int n;
    /** Round trip index per stamping site: each site is reached once per round trip, in order. */
    private final int[] next = new int[9];

    private RoundTripProfile(int n) {
        this.n = n;
        this.t = new long[9][n];
    }

    private void stamp(int stage) {
        int i = next[stage]++;
        if (i < n) {
            t[stage][i] = System.nanoTime();
        }
    }

    /**
     * Runs the profile and prints one table per peer.
     *
     * @param args {@code --profile [n [peer,...]]}
     * @throws Exception if a run fails
     */
    public static void main(String[] args) throws Exception {
        int a = args.length > 0 && "--profile".equals(args[0]) ? 1 : 0;
        int n = args.length > a ? Integer.parseInt(args[a]) : 20_000;
        String[] peers = args.length > a + 1 ? args[a + 1].split(",") : new String[] {"tcp", "netty_flush", "ysuite", "ysuite_loop"};
        System.out.printf(Locale.ROOT, "load average %s", new String(java.nio.file.Files.readAllBytes(
                java.nio.file.Paths.get("/proc/loadavg"))));
        for (String p : peers) {
            RoundTripProfile prof = new RoundTripProfile(n);
            double[] switches = prof.run(p, n);
            prof.print(p, switches);
        }
        System.exit(0);
    }

    private void print(String peer, double[] switches) {
        System.out.printf(Locale.ROOT, "%n%s: %d round trips of %d B; median, mean, and mean over the slowest 1 %% [us]%n",
                peer, n, SIZE);
        boolean[] slow = slowest(0.01);
        int last = 0;
        for (int s = 1; s <= 8; s++) {
            if (t[s][0] == 0) {
                continue;
            }
            System.out.printf(Locale.ROOT, "  T%d-T%d %-60s %8.2f %8.2f %8.2f%n", last, s, label(last, s),
                    median(last, s) / 1e3, mean(last, s, null) / 1e3, mean(last, s, slow) / 1e3);
            last = s;
        }
        System.out.printf(Locale.ROOT, "  T0-T8 %-60s %8.2f %8.2f %8.2f%n", "round trip", median(0, 8) / 1e3,
                mean(0, 8, null) / 1e3, mean(0, 8, slow) / 1e3);
        StringBuilder b = new StringBuilder("  voluntary context switches per round trip:");
        for (int i = 0; i < THREADS.length; i++) {
            if (switches[i] >= 0) {
                b.append(String.format(Locale.ROOT, " %s %.2f", THREADS[i], switches[i]));
            }
        }
        System.out.println(b);
    }

    private static String label(int from, int to) {
        return to == from + 1 ? STAGES[from] : STAGES[from] + " .. " + STAGES[to - 1];
    }

    /** The mean of stage {@code from .. to} over the round trips {@code only} marks (all if null). */
    private double mean(int from, int to, boolean[] only) {
        double sum = 0;
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (only == null || only[i]) {
                sum += t[to][i] - t[from][i];
                count++;
            }
        }
        return sum / count;
    }

    /** Marks the round trips whose whole time is at or above its {@code 1 - fraction} quantile. */
    private boolean[] slowest(double fraction) {
        long[] d = new long[n];
        for (int i = 0; i < n; i++) {
            d[i] = t[8][i] - t[0][i];
        }
        long[] sorted = d.clone();
        Arrays.sort(sorted);
        long cut = sorted[Math.min(n - 1, (int) (n * (1 - fraction)))];
        boolean[] slow = new boolean[n];
        for (int i = 0; i < n; i++) {
            slow[i] = d[i] >= cut;
        }
        return slow;
    }

    private double median(int from, int to) {
        long[] d = new long[n];
        for (int i = 0; i < n; i++) {
            d[i] = t[to][i] - t[from][i];
        }
        Arrays.sort(d);
        return d[n / 2];
    }

    /** Warms up with {@code n} untimed round trips, then stamps {@code n}; returns switches per round trip. */
    private double[] run(String peer, int n) throws Exception {
        double[][] out = new double[1][];
        Exception[] failure = new Exception[1];
        // the client application thread gets a name of its own, for its context switches
        Thread client = new Thread(() -> {
            try {
                out[0] = runOn(peer, n);
            } catch (Exception e) {
                failure[0] = e;
            }
        }, "rt-client");
        client.start();
        client.join();
        if (failure[0] != null) {
            throw failure[0];
        }
        return out[0];
    }

    /** A two-sided peer: a request/response from the client application thread. */
    private interface Side extends AutoCloseable {
        void request(byte[] msg, byte[] reply) throws Exception;
    }

    private double[] runOn(String peer, int n) throws Exception {
        byte[] msg = new byte[SIZE];
        byte[] reply = new byte[NetServer.MAX];
        try (Side side = open(peer)) {
            boolean stamping = false;
            for (int pass = 0; pass < 2; pass++) {
                long[][] tids = new long[THREADS.length][];
                long[][] before = new long[THREADS.length][];
                for (int k = 0; k < THREADS.length; k++) {
                    tids[k] = NetCpu.tids(THREADS[k]);
                    before[k] = new long[tids[k].length];
                    for (int j = 0; j < tids[k].length; j++) {
                        before[k][j] = NetCpu.voluntarySwitches(tids[k][j]);
                    }
                }
                Arrays.fill(next, 0);
                for (int i = 0; i < n; i++) {
                    stamp(0);
                    side.request(msg, reply);
                    stamp(8);
                }
                double[] sw = new double[THREADS.length];
                for (int k = 0; k < THREADS.length; k++) {
                    if (tids[k].length == 0) {
                        sw[k] = -1;
                        continue;
                    }
                    long sum = 0;
                    for (int j = 0; j < tids[k].length; j++) {
                        sum += NetCpu.voluntarySwitches(tids[k][j]) - before[k][j];
                    }
                    sw[k] = sum / (double) n;
                }
                if (stamping) {
                    return sw;
                }
                stamping = true; // the first pass warmed up
                // the server stamps "reply sent" after its send returns, which can be after the client
                // has the reply: let the last warm-up round trip's stamps land before the counters restart
                Thread.sleep(200);
                for (long[] row : t) {
                    Arrays.fill(row, 0);
                }
            }
            throw new AssertionError("unreachable");
        }
    }

    private Side open(String peer) throws Exception {
        switch (Peer.of(peer)) {
            case TCP:
                return tcp();
            case NETTY_FLUSH:
                return netty();
            case YSUITE:
                return ysuite(false);
            case YSUITE_LOOP:
                return ysuite(true);
            default:
                throw new IllegalArgumentException("peer " + peer + ": not profiled (tcp, netty_flush, ysuite, ysuite_loop)");
        }
    }

    /** Stamps T2/T6 on the loop's outbound write and T3/T7 on its read; first in the pipeline. */
    private final class Probe extends ChannelDuplexHandler {
        private final int read;
        private final int write;

        Probe(int read, int write) {
            this.read = read;
            this.write = write;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            stamp(read);
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (!(msg instanceof ByteBuf) || ((ByteBuf) msg).isReadable()) {
                stamp(write);
            }
            ctx.write(msg, promise);
        }
    }

    private static MultiThreadIoEventLoopGroup group(String name) {
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name), EpollIoHandler.newFactory());
    }

    private Side tcp() throws Exception {
        ServerSocketChannel ss = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        SocketChannel c = SocketChannel.open(ss.getLocalAddress());
        SocketChannel s = ss.accept();
        ss.close();
        for (SocketChannel ch : new SocketChannel[] {c, s}) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        }
        Thread server = new Thread(() -> {
            ByteBuffer b = ByteBuffer.allocateDirect(4 + SIZE);
            try {
                for (;;) {
                    b.clear();
                    NetServer.readFully(s, b);
                    stamp(3);
                    b.flip();
                    while (b.hasRemaining()) {
                        s.write(b);
                    }
                    stamp(5);
                }
            } catch (Exception e) {
                // closed
            }
        }, "rt-server");
        server.start();
        ByteBuffer out = ByteBuffer.allocateDirect(4 + SIZE);
        ByteBuffer in = ByteBuffer.allocateDirect(4 + SIZE);
        return new Side() {
            @Override
            public void request(byte[] msg, byte[] reply) throws Exception {
                out.clear();
                out.putInt(SIZE).put(msg, 0, SIZE).flip();
                while (out.hasRemaining()) {
                    c.write(out);
                }
                stamp(1);
                in.clear();
                NetServer.readFully(c, in);
            }

            @Override
            public void close() throws Exception {
                c.close();
                server.join(5000);
                s.close();
            }
        };
    }

    private Side netty() throws Exception {
        MultiThreadIoEventLoopGroup cg = group("rt-cloop");
        MultiThreadIoEventLoopGroup sg = group("rt-sloop");
        Channel server = new ServerBootstrap().group(sg).channel(EpollServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Probe(3, 6), new FrameDecoder(NetServer.MAX),
                                new ChannelInboundHandlerAdapter() {
                                    @Override
                                    public void channelRead(ChannelHandlerContext ctx, Object m) {
                                        ByteBuf b = (ByteBuf) m;
                                        stamp(4);
                                        int len = b.readableBytes();
                                        ctx.write(ctx.alloc().buffer(4 + len).writeInt(len).writeBytes(b), ctx.voidPromise());
                                        b.release();
                                        stamp(5);
                                    }

                                    @Override
                                    public void channelReadComplete(ChannelHandlerContext ctx) {
                                        ctx.flush();
                                    }
                                });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        ArrayBlockingQueue<ByteBuf> replies = new ArrayBlockingQueue<>(16); // as the report's Netty client
        Channel ch = new Bootstrap().group(cg).channel(EpollSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        c.pipeline().addLast(new Probe(7, 2), new FrameDecoder(NetServer.MAX),
                                new ChannelInboundHandlerAdapter() {
                                    @Override
                                    public void channelRead(ChannelHandlerContext ctx, Object m) throws Exception {
                                        replies.put((ByteBuf) m); // the application thread waits in take()
                                    }
                                });
                    }
                }).connect(server.localAddress()).sync().channel();
        return new Side() {
            @Override
            public void request(byte[] msg, byte[] reply) throws Exception {
                ch.writeAndFlush(ch.alloc().buffer(4 + SIZE).writeInt(SIZE).writeBytes(msg, 0, SIZE), ch.voidPromise());
                stamp(1);
                ByteBuf r = replies.take();
                r.readBytes(reply, 0, r.readableBytes());
                r.release();
            }

            @Override
            public void close() throws Exception {
                ch.close().sync();
                server.close().sync();
                cg.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
                sg.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        };
    }

    private Side ysuite(boolean onLoop) throws Exception {
        MultiThreadIoEventLoopGroup cg = group("rt-cloop");
        MultiThreadIoEventLoopGroup sg = group("rt-sloop");
        CompletableFuture<MessageStream> accepted = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(sg).channel(EpollServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Probe(3, 6));
                        accepted.complete(onLoop ? MessageStream.builder().onLoop((buf, off, len, reply) -> {
                            stamp(4);
                            reply.send(buf, off, len);
                            stamp(5);
                        }).attach(ch) : MessageStream.builder().attach(ch));
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        CompletableFuture<MessageStream> connected = new CompletableFuture<>();
        new Bootstrap().group(cg).channel(EpollSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        c.pipeline().addLast(new Probe(7, 2));
                        connected.complete(MessageStream.builder().attach(c));
                    }
                }).connect(server.localAddress()).sync();
        MessageStream cs = connected.get(10, TimeUnit.SECONDS);
        MessageStream ss = accepted.get(10, TimeUnit.SECONDS);
        var cw = cs.newWriter();
        Thread echo = new Thread(() -> {
            byte[] in = new byte[NetServer.MAX];
            try {
                var sw = onLoop ? null : ss.newWriter();
                int len;
                while ((len = ss.receive(in)) >= 0) { // on an on-loop stream: the end only
                    stamp(4);
                    sw.send(in, 0, len);
                    stamp(5);
                }
            } catch (Exception e) {
                // the stream ended
            }
        }, onLoop ? "rt-wait-end" : "rt-server");
        echo.start();
        return new Side() {
            @Override
            public void request(byte[] msg, byte[] reply) throws Exception {
                cw.send(msg, 0, SIZE);
                stamp(1);
                if (cs.receive(reply) != SIZE) {
                    throw new IllegalStateException("short reply");
                }
            }

            @Override
            public void close() throws Exception {
                cs.close();
                echo.join(5000);
                ss.close();
                server.close().sync();
                cg.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
                sg.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        };
    }
}
