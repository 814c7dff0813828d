package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * ZMTP 3.1's heartbeats for one connection (ZeroMQ RFC 37 "PING and PONG"; libzmq's
 * {@code ZMQ_HEARTBEAT_IVL}, {@code _TIMEOUT} and {@code _TTL}), on the channel's event loop:
 * <ul>
 * <li>every {@code heartbeatIntervalMillis} a PING goes out with our TTL (in tenths of a second) and an
 *     empty context;</li>
 * <li>the first PING with no timeout pending starts one of {@code heartbeatTimeoutMillis} (the interval
 *     when 0); when it expires and nothing at all arrived since it started, the connection is dropped
 *     ("heartbeat timeout");</li>
 * <li>a peer's PING with a TTL above 0 starts, if none is pending, a limit of that TTL; when it expires
 *     and nothing arrived since, the connection is dropped ("heartbeat TTL expired").</li>
 * </ul>
 * As in libzmq, any traffic ends a pending timeout; while the socket has suspended input (so that
 * nothing is read), neither limit drops the connection. Traffic is noted per read as a flag, so the hot path
 * neither reads a clock nor touches a timer.
 */
final class ZmtpHeartbeats {

    private final ZmtpHandler engine;
    private final ChannelHandlerContext ctx;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final int ttlDeciseconds;

    private ScheduledFuture<?> pinger;
    private ScheduledFuture<?> timeout;
    private ScheduledFuture<?> ttl;
    /** Something arrived since the pending timeout started. */
    private boolean heardSinceTimeout;
    /** Something arrived since the pending TTL limit started. */
    private boolean heardSinceTtl;
    private boolean stopped;

    ZmtpHeartbeats(ZmtpHandler engine, ChannelHandlerContext ctx, ZmtpOptions options) {
        this.engine = engine;
        this.ctx = ctx;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(options.heartbeatIntervalMillis());
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(options.heartbeatTimeoutMillis() > 0
                ? options.heartbeatTimeoutMillis() : options.heartbeatIntervalMillis());
        this.ttlDeciseconds = options.heartbeatTtlMillis() / 100;
    }

    /** Starts sending PINGs, if the options ask for them. */
    void start() {
        if (intervalNanos > 0 && !stopped) {
            pinger = ctx.executor().scheduleAtFixedRate(this::ping, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Something arrived from the peer. */
    void heard() {
        heardSinceTimeout = true;
        heardSinceTtl = true;
    }

    private void ping() {
        if (stopped) {
            return;
        }
        ByteBuf ping = ctx.alloc().buffer(2 + 1 + ZmtpCommands.PING.length + 2);
        int body = 1 + ZmtpCommands.PING.length + 2;
        ZmtpCommands.writeHeader(ping, body);
        ping.writeByte(ZmtpCommands.PING.length);
        ping.writeBytes(ZmtpCommands.PING);
        ping.writeShort(ttlDeciseconds);
        engine.sendCommand(ping);
        if (timeout == null) {
            heardSinceTimeout = false;
            timeout = ctx.executor().schedule(this::timeoutExpired, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void timeoutExpired() {
        timeout = null;
        if (!stopped && !heardSinceTimeout && !engine.isInputSuspended()) {
            engine.drop("heartbeat timeout: nothing from the peer for "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms after a PING");
        }
    }

    /** The peer sent a PING announcing {@code ttlDeciseconds} (0 for none). */
    void peerPing(int peerTtlDeciseconds) {
        if (peerTtlDeciseconds > 0 && ttl == null && !stopped) {
            heardSinceTtl = false;
            long millis = peerTtlDeciseconds * 100L;
            ttl = ctx.executor().schedule(() -> ttlExpired(millis), millis, TimeUnit.MILLISECONDS);
        }
    }

    private void ttlExpired(long millis) {
        ttl = null;
        if (!stopped && !heardSinceTtl && !engine.isInputSuspended()) {
            engine.drop("heartbeat TTL expired: nothing from the peer for the " + millis
                    + " ms its PING announced");
        }
    }

    /** Cancels every timer. */
    void stop() {
        stopped = true;
        cancel(pinger);
        cancel(timeout);
        cancel(ttl);
        pinger = null;
        timeout = null;
        ttl = null;
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }
}
