package org.ysuite.zmq.wire;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Who decides whether a PLAIN or CURVE client (or, where a ZAP domain is set, a NULL peer) may in: the ZAP client of a server-side connection (ZeroMQ RFC 27
 * "ZMQ Authentication Protocol"). {@code org.ysuite.zmq.ZmqContext} implements it over the handler a user
 * binds at {@code inproc://zeromq.zap.01}, as libzmq does; a test may give its own.
 *
 * <p>The answer is asynchronous: {@link #authenticate} must not block (it runs on an I/O thread). The
 * connection waits in its handshake until {@code reply} is called, from any thread, or until its
 * handshake timeout; a reply after the connection ended is ignored.
 */
public interface ZmtpAuthenticator {

    /**
     * Asks about one peer.
     *
     * @param request what RFC 27's request carries
     * @param reply to be called once with the answer, on any thread (or never: the handshake then times out)
     * @return cancels the request (called when the connection ends before the reply); never null
     */
    Runnable authenticate(Request request, Consumer<Reply> reply);

    /**
     * Whether a handler is there to ask (libzmq's {@code zap_connect} succeeding). libzmq 4.3 lets CURVE
     * clients and NULL peers in without ZAP when no handler is bound, and refuses PLAIN clients.
     */
    default boolean available() {
        return true;
    }

    /**
     * RFC 27's request, less its version and id (the authenticator numbers its requests).
     *
     * @param domain the server socket's ZAP domain (libzmq's {@code ZMQ_ZAP_DOMAIN}; empty for none)
     * @param address the peer's IP address as text, empty where the transport has none (ipc)
     * @param identity the server socket's routing id (as libzmq sends it)
     * @param mechanism {@code "NULL"}, {@code "PLAIN"} or {@code "CURVE"}
     * @param credentials the mechanism's credentials: PLAIN's username and password; CURVE's client public
     *                    key (32 bytes); none for NULL
     */
    record Request(String domain, String address, byte[] identity, String mechanism, List<byte[]> credentials) {

        /** Checks that no argument is null. */
        public Request {
            Objects.requireNonNull(domain, "domain");
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(mechanism, "mechanism");
            credentials = List.copyOf(credentials);
        }
    }

    /**
     * RFC 27's reply, less its version and id.
     *
     * @param statusCode {@code "200"} (allowed), {@code "300"} (temporary error), {@code "400"} (refused),
     *                   {@code "500"} (internal error)
     * @param statusText why, in words
     * @param userId the user the handler says the peer is (exposed as the peer's {@code User-Id} property)
     * @param metadata RFC 23 metadata the handler adds to the peer's properties (empty for none)
     */
    record Reply(String statusCode, String statusText, byte[] userId, byte[] metadata) {

        /** Checks that no argument is null. */
        public Reply {
            Objects.requireNonNull(statusCode, "statusCode");
            Objects.requireNonNull(statusText, "statusText");
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(metadata, "metadata");
        }

        /** A refusal with {@code code} and {@code text}, no user id, no metadata. */
        public static Reply refused(String code, String text) {
            return new Reply(code, text, new byte[0], new byte[0]);
        }
    }
}
