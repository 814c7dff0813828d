package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.ysuite.zmq.SocketType;

/**
 * The ZMTP engine of one connection (libzmq's zmtp_engine): the phases (greeting, the mechanism's
 * handshake, traffic), the commands of the traffic phase, and every way the connection ends. It owns a
 * {@link ZmtpDecoder} (bytes in), a {@link ZmtpEncoder} (bytes out), a {@link ZmtpMechanism} and the
 * {@link ZmtpHeartbeats}, and is the {@link ZmtpConnection} the socket above writes through.
 *
 * <p>Every drop goes through {@link #finish}: the listener is told {@link ZmtpListener#closed} exactly
 * once, the timers are cancelled, the buffers released and the channel closed; a handshake failure
 * sends the peer an ERROR command first.
 */
final class ZmtpHandler extends ChannelInboundHandlerAdapter implements ZmtpConnection, ZmtpMechanism.Output {

    private static final System.Logger LOG = System.getLogger(ZmtpHandler.class.getName());

    private final Channel channel;
    private final ZmtpOptions options;
    private final ZmtpListener listener;
    private final ZmtpMechanism mechanism;
    private final ZmtpDecoder decoder;
    /** Whether our socket takes subscriptions (PUB, XPUB). */
    private final boolean takesSubscriptions;

    private ChannelHandlerContext ctx;
    private ZmtpEncoder encoder;
    private ZmtpHeartbeats heartbeats;
    private ScheduledFuture<?> handshakeTimer;
    private boolean started;
    private boolean ready;
    private boolean closed;
    /** The previous frame from the peer had MORE set. */
    private boolean inMessage;
    /** A PONG was queued during this read: flush once when the read's frames are decoded. */
    private boolean flushAfterRead;
    /**
     * The channel closed while input was suspended with frames kept: they are still handed over on
     * {@link #resumeInput}, and "peer closed" is told after the last of them.
     */
    private boolean peerGone;
    private int minorVersion;
    private volatile ZmtpPeer peer;
    /** CURVE's traffic phase once its handshake is done; null for NULL and PLAIN (frames go in clear). */
    private CurveTraffic curve;

    ZmtpHandler(Channel channel, ZmtpOptions options, ZmtpListener listener) {
        this.channel = channel;
        this.options = options;
        this.listener = listener;
        ZmtpSecurity security = options.security();
        this.mechanism = security.isCurve()
                ? security.server() ? new CurveServerMechanism(options) : new CurveClientMechanism(options)
                : !security.isPlain() ? new NullMechanism(options)
                : security.server() ? new PlainServerMechanism(options) : new PlainClientMechanism(options);
        this.decoder = new ZmtpDecoder(this, options.maxMessageSize());
        SocketType type = options.socketType();
        this.takesSubscriptions = type == SocketType.PUB || type == SocketType.XPUB;
    }

    // ---- channel events ----

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.encoder = new ZmtpEncoder(ctx);
        this.heartbeats = new ZmtpHeartbeats(this, ctx, options);
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start();
        ctx.fireChannelActive();
    }

    private void start() {
        if (started) {
            return;
        }
        started = true;
        ByteBuf greeting = ctx.alloc().buffer(ZmtpGreeting.LENGTH);
        ZmtpSecurity security = options.security();
        ZmtpGreeting.write(greeting, mechanism.name(),
                security.isPlain() || security.isCurve() ? security.server() : options.asServer());
        encoder.command(greeting);
        encoder.flush();
        int limit = options.handshakeMillis();
        if (limit > 0) {
            handshakeTimer = ctx.executor().schedule(
                    () -> drop("handshake timeout: not done within " + limit + " ms"), limit, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closed || !(msg instanceof ByteBuf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        heartbeats.heard();
        try {
            decoder.read(ctx.alloc(), (ByteBuf) msg);
            listener.readComplete();
            if (flushAfterRead) {
                flushAfterRead = false;
                flush();
            }
        } catch (ZmtpProtocolException e) {
            protocolError(e);
        } catch (RuntimeException e) {
            finish("failed on input: " + e, e, null);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!closed && ready && decoder.isSuspended() && decoder.hasKept()) {
            peerGone = true;
            heartbeats.stop();
            encoder.release();
        } else {
            finish("peer closed", null, null);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        finish("I/O error: " + cause, cause, null);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (!peerGone) {
            finish("ZMTP handler removed", null, null);
        }
    }

    // ---- what the decoder hands over ----

    boolean isReady() {
        return ready;
    }

    /** The peer's whole greeting is at {@code offset}; its prefix already passed {@link ZmtpGreeting#check}. */
    void greeting(ByteBuf in, int offset) throws ZmtpProtocolException {
        minorVersion = ZmtpGreeting.negotiatedMinor(in, offset);
        String ours = mechanism.name();
        if (!ZmtpGreeting.mechanismIs(in, offset, ours)) {
            String theirs = ZmtpGreeting.mechanism(in, offset);
            boolean known = theirs.equals("NULL") || theirs.equals("PLAIN") || theirs.equals("CURVE")
                    || theirs.equals("GSSAPI");
            throw new ZmtpProtocolException(known
                    ? "mechanism mismatch: the peer offers " + theirs + ", this side speaks " + ours
                    : "unknown mechanism \"" + theirs + "\" in the peer's greeting", false);
        }
        // The peer's as-server flag is not checked: libzmq 4.3's PLAIN server announces 0. Two PLAIN clients
        // meet a HELLO where WELCOME is expected (a protocol error); two servers wait for the handshake timeout.
        mechanism.start(this);
    }

    /** One command's body ({@code length} bytes at {@code offset}). */
    void command(ByteBuf in, int offset, int length) throws ZmtpProtocolException {
        if (!ready && ZmtpCommands.isLibzmq43Error(in, offset, length)) {
            peerError(ZmtpCommands.libzmq43ErrorReason(in, offset, length));
            return;
        }
        if (length < 1 || in.getUnsignedByte(offset) > length - 1) {
            throw new ZmtpProtocolException("malformed command: a name of "
                    + (length < 1 ? "no" : Integer.toString(in.getUnsignedByte(offset))) + " B in a body of "
                    + length + " B", !ready);
        }
        if (ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.ERROR)) {
            peerError(ZmtpCommands.errorReason(in, offset, length));
            return;
        }
        if (!ready) {
            if (mechanism.command(in, offset, length, this)) {
                handshakeComplete();
            }
        } else if (curve != null) {
            curve.received(in, offset, length);
        } else {
            trafficCommand(in, offset, length);
        }
    }

    void trafficCommand(ByteBuf in, int offset, int length) throws ZmtpProtocolException {
        if (ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.PING)) {
            ping(in, offset, length);
        } else if (ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.SUBSCRIBE)) {
            subscriptionCommand(in, offset, length, ZmtpCommands.SUBSCRIBE.length, true);
        } else if (ZmtpCommands.isNamed(in, offset, length, ZmtpCommands.CANCEL)) {
            subscriptionCommand(in, offset, length, ZmtpCommands.CANCEL.length, false);
        }
        // PONG: its arrival already counted as traffic. Other commands are ignored, as libzmq ignores them.
    }

    void peerError(String reason) {
        // RFC 27's status codes, as libzmq's servers send them when ZAP refuses a peer
        drop("peer error: " + reason + (reason.matches("[345]00")
                ? " (the server's ZAP handler refused this side's credentials)" : ""));
    }

    private void subscriptionCommand(ByteBuf in, int offset, int length, int nameLength, boolean subscribe) {
        if (takesSubscriptions) {
            int at = offset + 1 + nameLength;
            listener.subscription(in.slice(at, offset + length - at), subscribe);
        }
    }

    private void ping(ByteBuf in, int offset, int length) throws ZmtpProtocolException {
        int at = offset + 1 + ZmtpCommands.PING.length;
        int remaining = offset + length - at;
        if (remaining < 2) {
            throw new ZmtpProtocolException("PING without its 2-byte TTL", false);
        }
        int ttl = in.getUnsignedShort(at);
        int contextLength = Math.min(remaining - 2, ZmtpCommands.MAX_PING_CONTEXT);
        int body = 1 + ZmtpCommands.PONG.length + contextLength;
        ByteBuf pong = ctx.alloc().buffer(2 + body);
        ZmtpCommands.writeHeader(pong, body);
        pong.writeByte(ZmtpCommands.PONG.length);
        pong.writeBytes(ZmtpCommands.PONG);
        pong.writeBytes(in, at + 2, contextLength);
        queueCommand(pong);
        flushAfterRead = true;
        heartbeats.peerPing(ttl);
    }

    @Override
    public void complete() throws ZmtpProtocolException {
        if (!ready && !closed) {
            handshakeComplete();
        }
    }

    private void handshakeComplete() throws ZmtpProtocolException {
        java.util.Map<String, byte[]> properties = mechanism.peerProperties();
        byte[] typeName = ZmtpCommands.property(properties, NullMechanism.SOCKET_TYPE);
        if (typeName == null) {
            throw new ZmtpProtocolException("the peer's READY has no Socket-Type", true);
        }
        SocketType type = SocketType.fromZmtpName(typeName);
        if (type == null) {
            throw new ZmtpProtocolException("unknown socket type \""
                    + new String(typeName, StandardCharsets.US_ASCII).replaceAll("[^\\x20-\\x7e]", "?")
                    + "\" in the peer's READY", true);
        }
        if (!options.socketType().isCompatible(type)) {
            throw new ZmtpProtocolException("incompatible socket type " + type + " for "
                    + options.socketType(), true);
        }
        byte[] identity = ZmtpCommands.property(properties, NullMechanism.IDENTITY);
        ZmtpPeer p = new ZmtpPeer(type, identity == null ? new byte[0] : identity, minorVersion,
                mechanism.name(), properties);
        CurveCodec codec = mechanism.codec();
        curve = codec == null ? null : new CurveTraffic(this, codec, encoder, ctx.alloc(), options.maxMessageSize());
        ready = true;
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
            handshakeTimer = null;
        }
        peer = p;
        heartbeats.start();
        listener.ready(this, p);
    }

    /** One message frame from the decoder ({@code size} bytes at {@code offset}); under CURVE a MESSAGE box. */
    void frame(ByteBuf in, int offset, int size, boolean more) throws ZmtpProtocolException {
        if (curve != null) {
            curve.received(in, offset, size);
        } else {
            plainFrame(in, offset, size, more);
        }
    }

    void plainFrame(ByteBuf in, int offset, int size, boolean more) {
        if (takesSubscriptions && !inMessage && !more && size > 0) {
            byte first = in.getByte(offset);
            if (first == 0 || first == 1) {
                listener.subscription(in.slice(offset + 1, size - 1), first == 1);
                return;
            }
        }
        inMessage = more;
        listener.frame(in, offset, size, more);
    }

    // ---- sending ----

    @Override
    public ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    @Override
    public void send(ByteBuf commandFrame) {
        sendCommand(commandFrame);
    }

    /** Queues a whole command frame (after the message being written, if any) and flushes. */
    void sendCommand(ByteBuf commandFrame) {
        if (closed || peerGone) {
            commandFrame.release();
            return;
        }
        queueCommand(commandFrame);
        encoder.flush();
    }

    /** Queues a whole command frame: in clear, or under CURVE (after its handshake) in a MESSAGE box. */
    private void queueCommand(ByteBuf commandFrame) {
        if (curve == null) {
            encoder.command(commandFrame);
        } else {
            curve.command(commandFrame);
        }
    }

    @Override
    public void later(ZmtpMechanism.Task task) {
        ctx.executor().execute(() -> {
            if (closed || ready) {
                return;
            }
            try {
                task.run();
            } catch (ZmtpProtocolException e) {
                protocolError(e);
            } catch (RuntimeException e) {
                finish("failed in the handshake: " + e, e, null);
            }
        });
    }

    @Override
    public String peerAddress() {
        return channel.remoteAddress() instanceof java.net.InetSocketAddress a && a.getAddress() != null
                ? a.getAddress().getHostAddress() : "";
    }

    @Override
    public Channel channel() {
        return channel;
    }

    @Override
    public ZmtpPeer peer() {
        return peer;
    }

    private boolean writable(ByteBuf data, String method) {
        assert ctx == null || ctx.executor().inEventLoop() : method + " called off the connection's event loop";
        if (closed || peerGone) {
            data.release();
            return false;
        }
        if (!ready) {
            data.release();
            throw new IllegalStateException(method + ": the handshake has not completed (wait for ZmtpListener.ready)");
        }
        return true;
    }

    @Override
    public void writeFrame(ByteBuf data, boolean more) {
        if (writable(data, "writeFrame")) {
            if (curve == null) {
                encoder.frame(data, more);
            } else {
                curve.frame(data, more);
            }
        }
    }

    @Override
    public void writeSubscription(ByteBuf topic, boolean subscribe) {
        if (writable(topic, "writeSubscription")) {
            if (curve == null) {
                encoder.subscription(topic, subscribe, minorVersion);
            } else {
                curve.subscription(topic, subscribe);
            }
        }
    }

    @Override
    public void writeFramed(ByteBuf framed) {
        if (writable(framed, "writeFramed")) {
            if (curve == null) {
                encoder.framed(framed);
            } else {
                curve.framed(framed);
            }
        }
    }

    @Override
    public void flush() {
        if (!closed && !peerGone) {
            encoder.flush();
        }
    }

    @Override
    public void suspendInput() {
        if (ctx.executor().inEventLoop()) {
            if (!closed && !decoder.isSuspended()) {
                decoder.suspend();
                channel.config().setAutoRead(false);
            }
        } else {
            ctx.executor().execute(this::suspendInput);
        }
    }

    @Override
    public void resumeInput() {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(this::resumeInput);
            return;
        }
        if (closed || !decoder.isSuspended()) {
            return;
        }
        try {
            decoder.resume();
            listener.readComplete();
            if (flushAfterRead) {
                flushAfterRead = false;
                flush();
            }
        } catch (ZmtpProtocolException e) {
            protocolError(e);
            return;
        } catch (RuntimeException e) {
            finish("failed on input: " + e, e, null);
            return;
        }
        if (!closed && !decoder.isSuspended()) {
            if (peerGone) {
                finish("peer closed", null, null);
            } else {
                channel.config().setAutoRead(true);
            }
        }
    }

    /** Whether input is suspended (then a silent peer is not held against it by the heartbeat timeout). */
    boolean isInputSuspended() {
        return decoder.isSuspended();
    }

    private void protocolError(ZmtpProtocolException e) {
        ByteBuf error = e.tellPeer() ? ZmtpCommands.error(ctx.alloc(), e.peerReason()) : null;
        finish(e.isRefusal() ? e.getMessage() : "protocol error: " + e.getMessage(), e, error);
    }

    @Override
    public void close() {
        if (ctx == null) {
            channel.close();
        } else if (ctx.executor().inEventLoop()) {
            closeNow();
        } else {
            ctx.executor().execute(this::closeNow);
        }
    }

    private void closeNow() {
        if (!closed) {
            if (!peerGone) {
                encoder.flush();
            }
            finish("closed by the socket", null, null);
        }
    }

    // ---- the end ----

    /** Drops the connection with {@code reason} (no ERROR to the peer). */
    void drop(String reason) {
        finish(reason, null, null);
    }

    private void finish(String reason, Throwable cause, ByteBuf error) {
        if (closed) {
            if (error != null) {
                error.release();
            }
            return;
        }
        closed = true;
        try {
            mechanism.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cancelling the mechanism's pending work threw", e);
        }
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
            handshakeTimer = null;
        }
        decoder.release();
        if (curve != null) {
            curve.release();
        }
        if (peerGone) {
            channel.close();
        } else if (encoder != null) {
            heartbeats.stop();
            encoder.release();
            if (error != null) {
                ctx.writeAndFlush(error);
                error = null;
            }
            ctx.close();
        } else {
            channel.close();
        }
        if (error != null) {
            error.release();
        }
        try {
            listener.closed(reason, cause);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "ZmtpListener.closed threw", e);
        }
    }
}
