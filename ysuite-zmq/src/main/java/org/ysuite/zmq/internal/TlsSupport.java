package org.ysuite.zmq.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.net.SocketAddress;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * TLS under ZMTP on {@code tcp://} connections ({@code ZmqSocket.setTls}): Netty's {@link SslHandler},
 * made from the socket's {@link SslContext}, first in the channel's pipeline, so that the greeting, the
 * mechanism's handshake (NULL, PLAIN: unchanged) and every frame travel inside TLS. Rules decided here:
 * <ul>
 * <li>The handler is installed before the ZMTP engine, in the channel's initializer: the engine writes its
 * greeting as soon as it is added, and that write must already go through TLS ({@code SslHandler} holds
 * it until the TLS handshake completes).</li>
 * <li>One clock for the whole handshake: {@code SslHandler}'s own handshake timeout is switched off, and the
 * engine's {@code ZMQ_HANDSHAKE_IVL} timer, which starts when the TCP connection is up, covers the TLS
 * handshake, the ZMTP greeting and the mechanism's commands up to READY.</li>
 * <li>A client verifies the server's host name against the connect endpoint's host (the "HTTPS"
 * endpoint identification of RFC 2818/6125: DNS names and IP addresses in the certificate's
 * subjectAltName) unless the socket turned it off.</li>
 * <li>A failed TLS handshake ends the connection with the reason "TLS handshake with &lt;address&gt;
 * failed: &lt;cause&gt;" (a {@code HANDSHAKE_FAILED} event), before the close that follows it.</li>
 * </ul>
 * Netty's SSL types are touched only here and in the socket's setter. Runs on the channel's event loop.
 */
public final class TlsSupport {

    /** The pipeline name of the connection's {@link SslHandler}. */
    public static final String HANDLER_NAME = "zmq-tls";

    /**
     * A socket's TLS setting, replaced whole.
     *
     * @param context a client ({@code SslContextBuilder.forClient}) or server ({@code forServer}) context
     * @param verifyHostname whether a client checks the server certificate's names against the endpoint's host
     */
    public record Settings(SslContext context, boolean verifyHostname) {

        /** Checks that {@code context} is not null. */
        public Settings {
            Objects.requireNonNull(context, "context");
        }
    }

    private TlsSupport() {
    }

    /**
     * Puts the TLS handler first in an accepted connection's pipeline (before the ZMTP engine is added).
     * A client context on a bound socket runs the client side of TLS: the TLS roles follow the context,
     * the ZMTP roles follow bind and connect.
     */
    static void accepted(Channel channel, Settings tls) {
        SslHandler h = tls.context().newHandler(channel.alloc());
        if (!tls.context().isServer()) {
            identify(h.engine(), ""); // no connect endpoint to verify a name against
        }
        install(channel, h);
    }

    /**
     * Puts the TLS handler first in a connecting channel's pipeline, for a server at {@code host}:{@code port}
     * (the connect endpoint's host, which hostname verification checks the certificate against).
     */
    static void connecting(Channel channel, Settings tls, String host, int port) {
        SslContext c = tls.context();
        SslHandler h = c.newHandler(channel.alloc(), host, port);
        if (!c.isServer()) {
            identify(h.engine(), tls.verifyHostname() ? "HTTPS" : "");
        }
        install(channel, h);
    }

    private static void install(Channel channel, SslHandler h) {
        h.setHandshakeTimeoutMillis(0); // ZMQ_HANDSHAKE_IVL covers it: see the class comment
        channel.pipeline().addFirst(HANDLER_NAME, h);
        channel.pipeline().addAfter(HANDLER_NAME, HANDLER_NAME + "-outcome", new Outcome());
    }

    /**
     * Sets the engine's endpoint identification; {@code ""} turns it off (the JDK's engine ignores a
     * {@code null}, which would leave the context's default, "HTTPS" in Netty 4.2, in force).
     */
    private static void identify(SSLEngine engine, String algorithm) {
        SSLParameters p = engine.getSSLParameters();
        p.setEndpointIdentificationAlgorithm(algorithm);
        engine.setSSLParameters(p);
    }

    /** Turns a failed TLS handshake into the reason the ZMTP engine reports, then removes itself. */
    private static final class Outcome extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent e) {
                if (!e.isSuccess()) {
                    Throwable c = e.cause();
                    String why = c.getMessage() != null ? c.getMessage() : c.getClass().getName();
                    SocketAddress peer = ctx.channel().remoteAddress();
                    ctx.fireExceptionCaught(new SSLException("TLS handshake with " + peer + " failed: " + why, c));
                }
                ctx.pipeline().remove(this);
            }
            ctx.fireUserEventTriggered(evt);
        }
    }
}
