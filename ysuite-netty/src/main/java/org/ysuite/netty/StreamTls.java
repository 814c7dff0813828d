package org.ysuite.netty;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The TLS of a {@link MessageStream} ({@link MessageStreamBuilder#tls}): puts Netty's
 * {@link SslHandler} first in the channel's pipeline, ahead of the frame decoder and encoder, and
 * ties the handshake's outcome to the stream. A server's handler is added by {@code attach}; a
 * client's once the peer's address is known (at {@code attach} for a connected channel, else when
 * the connect passes {@link StreamLifecycle}), since hostname verification needs the peer's host.
 *
 * <p>Until the handshake succeeds the encoder drains nothing (messages wait in the writers' windows,
 * as they wait for the connect); it then drains. A failed handshake records "TLS handshake with
 * &lt;address&gt; failed: &lt;cause&gt;" as the stream's failure, before the exception and the close that
 * follow it (the first failure recorded is the one reported). Netty types are touched only here, so
 * that a stream without TLS needs no {@code netty-handler} at run time. {@link #install} runs on the
 * event loop (at the connect) or on {@code attach}'s thread, before the stream's own handlers are
 * added; the handshake's listener runs on the event loop.
 */
final class StreamTls {

    /** The pipeline name of the stream's {@link SslHandler}. */
    static final String HANDLER_NAME = "ysuite-tls";

    private final SslContext context;
    private final boolean verifyHostname;
    private boolean installed;

    StreamTls(SslContext context, boolean verifyHostname) {
        this.context = context;
        this.verifyHostname = verifyHostname;
    }

    /** Whether the handler waits for the peer's address (a client not yet connected). */
    boolean needsPeer(Channel channel) {
        return !context.isServer() && channel.remoteAddress() == null;
    }

    /**
     * Adds the {@link SslHandler} first in the pipeline (once) and ties its handshake to the stream.
     *
     * @param remote the peer's address (a client's host for hostname verification); may be null for a server
     */
    void install(Channel channel, SocketAddress remote, FrameEncoder encoder, StreamStatus status) {
        if (installed) {
            return;
        }
        installed = true;
        SslHandler handler;
        if (context.isServer()) {
            handler = context.newHandler(channel.alloc());
        } else if (remote instanceof InetSocketAddress a) {
            handler = context.newHandler(channel.alloc(), a.getHostString(), a.getPort());
            identify(handler.engine(), verifyHostname ? "HTTPS" : "");
        } else {
            if (verifyHostname) {
                // No host to verify the certificate against: refuse rather than skip the check.
                channel.close();
                status.fail(new IOException("TLS hostname verification needs an InetSocketAddress peer, not "
                        + remote + " (see MessageStreamBuilder.insecureNoHostnameVerification)"));
                return;
            }
            handler = context.newHandler(channel.alloc());
            identify(handler.engine(), "");
        }
        encoder.awaitHandshake();
        channel.pipeline().addFirst(HANDLER_NAME, handler);
        handler.handshakeFuture().addListener(f -> {
            if (f.isSuccess()) {
                encoder.handshakeDone();
            } else {
                Throwable c = f.cause();
                String why = c.getMessage() != null ? c.getMessage() : c.getClass().getName();
                SocketAddress peer = channel.remoteAddress() != null ? channel.remoteAddress() : remote;
                status.fail(new IOException("TLS handshake with " + peer + " failed: " + why, c));
            }
        });
    }

    /**
     * Sets the engine's endpoint identification; {@code ""} turns it off (the JDK's engine ignores
     * a {@code null}, which would leave the context's default, "HTTPS" in Netty 4.2, in force).
     */
    private static void identify(SSLEngine engine, String algorithm) {
        SSLParameters p = engine.getSSLParameters();
        p.setEndpointIdentificationAlgorithm(algorithm);
        engine.setSSLParameters(p);
    }
}
