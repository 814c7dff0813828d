package org.ysuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.IoEventLoop;
import io.netty.channel.socket.SocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP echo server and a client that keeps it busy, both on one event loop: the client
 * writes chunks of a byte pattern, checks every echoed byte against the pattern and writes the next
 * chunk as soon as one comes back, so the loop always has socket work.
 */
final class EchoTraffic implements AutoCloseable {

    static final int CHUNK = 16 * 1024;

    private final Channel server;
    private final Channel client;
    private volatile long echoedBytes;
    private volatile String failure;
    private volatile boolean stopped;
    private final CountDownLatch flowing = new CountDownLatch(1);

    EchoTraffic(IoEventLoop loop, Transport transport) throws InterruptedException {
        InetAddress localhost = InetAddress.getLoopbackAddress();
        server = new ServerBootstrap().group(loop).channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ctx.writeAndFlush(msg); // echo
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress(localhost, 0)).sync().channel();
        client = new Bootstrap().group(loop).channel(transport.clientChannel())
                .handler(new ChannelInboundHandlerAdapter() {
                    private long sent;
                    private long received;

                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        writeChunk(ctx);
                        writeChunk(ctx);
                    }

                    private void writeChunk(ChannelHandlerContext ctx) {
                        ByteBuf buf = ctx.alloc().buffer(CHUNK);
                        for (int i = 0; i < CHUNK; i++) {
                            buf.writeByte((int) (sent++ % 251));
                        }
                        ctx.writeAndFlush(buf);
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        try {
                            while (buf.isReadable()) {
                                int b = buf.readUnsignedByte();
                                if (b != (int) (received % 251) && failure == null) {
                                    failure = "echo byte " + received + " is " + b;
                                }
                                received++;
                            }
                        } finally {
                            buf.release();
                        }
                        echoedBytes = received;
                        flowing.countDown();
                        synchronized (EchoTraffic.this) {
                            EchoTraffic.this.notifyAll();
                        }
                        while (!stopped && sent - received < 2L * CHUNK) {
                            writeChunk(ctx);
                        }
                    }
                })
                .connect(server.localAddress()).sync().channel();
    }

    /** Waits until the first echoed bytes came back, failing after {@code seconds}. */
    void awaitFlowing(long seconds) throws InterruptedException {
        if (!flowing.await(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("no echo within " + seconds + " s");
        }
    }

    /** Waits until {@code bytes} more bytes than now have been echoed, failing after {@code seconds}. */
    synchronized void awaitMoreEchoed(long bytes, long seconds) throws InterruptedException {
        long target = echoedBytes + bytes;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (echoedBytes < target) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("the echo did not move " + bytes + " bytes in " + seconds + " s");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    long echoedBytes() {
        return echoedBytes;
    }

    /** Null while every echoed byte matched. */
    String failure() {
        return failure;
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        if (!client.close().await(5, TimeUnit.SECONDS) || !server.close().await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("echo channels did not close in 5 s");
        }
    }
}
