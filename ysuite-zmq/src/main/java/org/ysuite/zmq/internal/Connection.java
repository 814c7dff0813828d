package org.ysuite.zmq.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import java.util.ArrayList;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.wire.ZmtpConnection;
import org.ysuite.zmq.wire.ZmtpEngine;
import org.ysuite.zmq.wire.ZmtpListener;
import org.ysuite.zmq.wire.ZmtpPeer;

/**
 * One TCP/IPC connection of a socket: the ZMTP engine below, the peer's two {@link Lane}s above.
 *
 * <p>Outbound: the socket's thread writes whole messages into the peer's out lane; when a flush finds the
 * loop asleep on it, the loop is woken once ({@link #drain} scheduled). The drain reads the lane in a batch
 * and frames the messages into one buffer ({@link ZmtpConnection#writeFrameHeader}, then
 * {@link ZmtpConnection#writeFramed}; a large frame goes out as a wrapped array, not copied), one flush per
 * batch, and stops while the channel is not writable: {@code channelWritabilityChanged} resumes it.
 *
 * <p>Inbound: each complete message is appended to the in lane, and the lane is flushed once per read
 * ({@link #readComplete}), so the application thread is woken at most once per batch; when that lane reaches the receive mark, the
 * engine's input is suspended ({@link ZmtpConnection#suspendInput}: no more frames, no reads, heartbeat
 * limits wait) and the socket's reader resumes it once it took a message — TCP's flow control does the rest.
 *
 * <p>Recycling: for socket types whose every message goes to one peer (PUSH, DEALER, PAIR, ROUTER), the
 * arrays of small frames the drain copied into its batch go back to the application thread through the
 * peer's {@link Peer#recycle} lane, so a sender of same-sized messages allocates nothing per message.
 *
 * <p>Every method runs on the channel's event loop except {@link #wakeDrain} and {@link #wakeReader}.
 */
final class Connection implements ZmtpListener {

    /** Frames at least this large are written as their own wrapped buffer, not copied into the batch. */
    private static final int COPY_LIMIT = 8192;
    /** A batch buffer is handed to the engine once it holds this much. */
    private static final int BATCH_BYTES = 64 * 1024;
    /** Messages per drain before the loop lets other channels run. */
    private static final int BATCH_MESSAGES = 4096;

    /** Frames up to this size have their arrays recycled (a peer keeps at most sendHwm + 512 of them). */
    private static final int RECYCLE_LIMIT = 1024;
    /**
     * Recycled arrays are published every this many messages of a drain, not only at its end: the out lane
     * wakes a sender at the mark once half the mark is drained, mid-drain, and the sender must find the
     * arrays those messages freed, or it allocates.
     */
    private static final int RECYCLE_PUBLISH = 256;

    private final SocketBridge socket;
    private final String endpoint;
    private final Channel channel;
    private final Connector connector;
    private final ZmtpConnection zmtp;
    private final boolean subscriber;
    /** Whether each message written here is this peer's alone (no fan-out), so its arrays may be reused. */
    private final boolean recycling;
    private final Runnable drainTask = this::drain;
    private final Runnable resumeTask = this::resumeReading;
    private final ArrayList<byte[]> parts = new ArrayList<>();
    private Peer peer;
    /** The connection speaks CURVE: each frame is boxed on its own (event loop only). */
    private boolean sealed;
    private boolean readPaused;
    /** Whether the transport connected: a connect that failed is the connector's to report, not a handshake. */
    private boolean active;
    private volatile boolean draining;

    Connection(SocketBridge socket, String endpoint, Channel channel, boolean asServer, Connector connector) {
        this.socket = socket;
        this.endpoint = endpoint;
        this.channel = channel;
        this.connector = connector;
        SocketType t = socket.type();
        this.subscriber = t == SocketType.SUB || t == SocketType.XSUB;
        this.recycling = t == SocketType.PUSH || t == SocketType.DEALER || t == SocketType.PAIR
                || t == SocketType.ROUTER;
        this.active = channel.isActive(); // accepted: already; connecting: once the connect succeeds
        channel.pipeline().addFirst("zmq-writability", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                active = true;
                ctx.fireChannelActive();
            }

            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                if (ctx.channel().isWritable() && peer != null) {
                    drain();
                }
                ctx.fireChannelWritabilityChanged();
            }
        });
        this.zmtp = ZmtpEngine.install(channel, socket.options().zmtp(t, asServer), this);
    }

    @Override
    public void ready(ZmtpConnection connection, ZmtpPeer zpeer) {
        SocketOptions o = socket.options();
        sealed = "CURVE".equals(zpeer.mechanism());
        Lane out = new Lane(o.sendHwm, this::wakeDrain, socket::wake);
        Lane in = new Lane(o.receiveHwm, socket::wake, this::wakeReader);
        out.checkRead(); // the loop reads it: asleep from the start, so the first flush wakes the loop
        Peer p = new Peer(out, in, endpoint, zpeer.identity(), channel::close);
        if (recycling) {
            // written by this loop, read by the application thread, which never waits on it
            // as many as the out lane may hold, plus those drained but not yet published: a sender at the mark
            // finds one for each message drained
            p.recycle = new Lane((o.sendHwm > 0 ? Math.min(o.sendHwm, 16_384) : 1024) + 2 * RECYCLE_PUBLISH,
                    () -> { }, () -> { });
        }
        p.drainedCheck = () -> out.queued() == 0 && !draining && pendingBytes() == 0;
        peer = p;
        if (connector != null) {
            connector.connected();
        }
        socket.attach(p);
        socket.event(new ZmqEvent(ZmqEvent.Kind.CONNECTED, endpoint, ""));
    }

    private long pendingBytes() {
        // totalPendingWriteBytes reads a volatile counter: safe from the closing thread
        ChannelOutboundBuffer ob = channel.unsafe().outboundBuffer();
        return ob == null ? 0 : ob.totalPendingWriteBytes();
    }

    @Override
    public void frame(ByteBuf data, boolean more) {
        frame(data, data.readerIndex(), data.readableBytes(), more);
    }

    @Override
    public void frame(ByteBuf in, int offset, int length, boolean more) {
        byte[] b = new byte[length];
        in.getBytes(offset, b);
        if (more) {
            parts.add(b);
            return;
        }
        if (parts.isEmpty()) {
            deliver(b);
        } else {
            byte[][] m = parts.toArray(new byte[parts.size() + 1][]);
            m[m.length - 1] = b;
            parts.clear();
            deliver(m);
        }
    }

    @Override
    public void subscription(ByteBuf topic, boolean subscribe) {
        byte[] m = new byte[topic.readableBytes() + 1];
        m[0] = (byte) (subscribe ? 1 : 0);
        topic.getBytes(topic.readerIndex(), m, 1, m.length - 1);
        deliver(m);
    }

    private void deliver(Object message) {
        Peer p = peer;
        if (p == null) {
            return;
        }
        p.in.append(message);
        if (!readPaused && !p.in.tryReserve()) {
            readPaused = true;
            zmtp.suspendInput();
        }
    }

    @Override
    public void readComplete() {
        Peer p = peer;
        if (p != null) {
            p.in.flush();
        }
    }

    /** The socket's thread took a message while the loop waited for room: resume reading (any thread). */
    private void wakeReader() {
        channel.eventLoop().execute(resumeTask);
    }

    private void resumeReading() {
        Peer p = peer;
        // tryReserve, not hasRoom: if the loop delivered more after the pause (already-decoded frames), one
        // message taken may not be enough, and the application must be asked to wake us again
        if (readPaused && p != null && p.in.tryReserve()) {
            readPaused = false;
            zmtp.resumeInput();
        }
    }

    /** The socket's thread flushed into the out lane while the loop slept on it (any thread). */
    private void wakeDrain() {
        channel.eventLoop().execute(drainTask);
    }

    private void drain() {
        Peer p = peer;
        if (p == null) {
            return;
        }
        if (!channel.isActive()) {
            while (p.out.read() != null) {
                // the connection is gone: what was queued for it is dropped
            }
            return;
        }
        draining = true;
        ByteBuf batch = null;
        int count = 0;
        boolean more = false;
        while (channel.isWritable()) {
            Object m = p.out.read();
            if (m == null) {
                break;
            }
            if (subscriber && m instanceof byte[] b && b.length > 0 && (b[0] == 0 || b[0] == 1)) {
                if (batch != null) {
                    zmtp.writeFramed(batch);
                    batch = null;
                }
                zmtp.writeSubscription(Unpooled.wrappedBuffer(b, 1, b.length - 1), b[0] == 1);
            } else if (m instanceof byte[] b) {
                batch = append(batch, b, false);
                if (recycling && b.length <= RECYCLE_LIMIT && p.recycle.hasRoom()) {
                    p.recycle.append(b); // copied into the batch: the application may reuse it
                }
            } else {
                byte[][] frames = (byte[][]) m;
                for (int i = 0; i < frames.length; i++) {
                    batch = append(batch, frames[i], i < frames.length - 1);
                }
            }
            if (batch != null && batch.readableBytes() >= BATCH_BYTES) {
                zmtp.writeFramed(batch);
                batch = null;
            }
            if (++count % RECYCLE_PUBLISH == 0 && recycling) {
                p.recycle.flush();
            }
            if (count >= BATCH_MESSAGES) {
                more = true;
                break;
            }
        }
        if (batch != null) {
            zmtp.writeFramed(batch);
        }
        if (count > 0) {
            if (recycling) {
                p.recycle.flush(); // the rest of this drain's; its reader is never woken (it never waits)
            }
            zmtp.flush();
        }
        draining = false;
        if (more) {
            channel.eventLoop().execute(drainTask);
        }
    }

    private ByteBuf append(ByteBuf batch, byte[] frame, boolean more) {
        if (sealed) {
            // CURVE boxes each frame (one copy, on this loop): no batch to copy it into first
            zmtp.writeFrame(Unpooled.wrappedBuffer(frame), more);
            return null;
        }
        if (batch == null) {
            batch = channel.alloc().directBuffer(frame.length >= COPY_LIMIT ? 9 : 8192);
        }
        ZmtpConnection.writeFrameHeader(batch, frame.length, more);
        if (frame.length >= COPY_LIMIT) {
            zmtp.writeFramed(batch);
            zmtp.writeFramed(Unpooled.wrappedBuffer(frame));
            return null;
        }
        batch.writeBytes(frame);
        return batch;
    }

    @Override
    public void closed(String reason, Throwable cause) {
        Peer p = peer;
        if (p != null) {
            p.in.flush(); // what was decoded before the end is delivered
            p.gone = true;
            socket.detach(p);
            while (p.out.read() != null) {
                // dropped with the connection, as libzmq drops a terminated pipe's messages
            }
            boolean protocol = reason != null && reason.startsWith("protocol error");
            socket.event(new ZmqEvent(protocol ? ZmqEvent.Kind.PROTOCOL_ERROR : ZmqEvent.Kind.DISCONNECTED,
                    endpoint, reason == null ? "" : reason));
        } else if (active) {
            socket.event(new ZmqEvent(ZmqEvent.Kind.HANDSHAKE_FAILED, endpoint, reason == null ? "" : reason));
        }
        if (connector != null) {
            connector.lost(channel);
        }
    }
}
