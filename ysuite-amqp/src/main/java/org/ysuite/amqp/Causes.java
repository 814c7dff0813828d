package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * Failures told as text (a loss's cause) with what caused them: amqp-client's IOExceptions often
 * say nothing themselves, and its {@code ShutdownSignalException} for a broken socket says only
 * {@code "connection error"}, the socket's own exception being its cause.
 */
final class Causes {

    /** The most causes told after the failure itself. */
    private static final int MAX_CAUSES = 4;

    private Causes() {
    }

    /**
     * Opens a connection named {@code name} with {@code factory}. A broker that refuses it while
     * it opens (a virtual host that does not exist or is not allowed: 530 NOT_ALLOWED) makes
     * amqp-client throw an {@code IOException} with no message, the broker's reply in its cause;
     * that one is thrown again with a message that names the virtual host, the broker and its reply.
     *
     * @throws IOException if the connection cannot be opened
     * @throws TimeoutException if it times out
     */
    static Connection connect(ConnectionFactory factory, String name) throws IOException, TimeoutException {
        try {
            return factory.newConnection(name);
        } catch (IOException e) {
            AMQP.Connection.Close reply = brokersClose(e);
            if (reply == null || e instanceof PossibleAuthenticationFailureException) {
                throw e; // amqp-client's message says it already
            }
            throw new IOException("cannot open virtual host '" + factory.getVirtualHost() + "' on "
                    + factory.getHost() + ":" + factory.getPort() + ": the broker answered "
                    + reply.getReplyCode() + " " + reply.getReplyText(), e);
        }
    }

    /** The broker's {@code connection.close} among {@code e}'s causes, or {@code null}. */
    private static AMQP.Connection.Close brokersClose(Throwable e) {
        Throwable c = e;
        for (int i = 0; i <= MAX_CAUSES && c != null; i++, c = c.getCause()) {
            if (c instanceof ShutdownSignalException s && s.getReason() instanceof AMQP.Connection.Close close) {
                return close;
            }
        }
        return null;
    }

    /** {@code e} as its {@code toString}, then what caused it ({@link #appendCauses}). */
    static String describe(Throwable e) {
        return appendCauses(new StringBuilder(String.valueOf(e)), e).toString();
    }

    /**
     * Why a connection or channel went down: the signal's message (the broker's close with its
     * reply code and text, or {@code "connection error"}), then what caused it (the socket's
     * {@code EOFException} or {@code SocketException}, a missed heartbeat).
     */
    static String ofShutdown(ShutdownSignalException signal) {
        return appendCauses(new StringBuilder(String.valueOf(signal.getMessage())), signal).toString();
    }

    /**
     * The reason that {@code e} or one of its causes gives: the first message in its chain
     * ({@code e} itself if none has one). amqp-client's {@code IOException} for a refused command
     * has no message; its cause, the channel's close, names the reply (e.g. {@code NOT_FOUND}).
     */
    static String reason(Throwable e) {
        Throwable c = e;
        for (int i = 0; i <= MAX_CAUSES && c != null; i++, c = c.getCause()) {
            if (c.getMessage() != null) {
                return c.getMessage();
            }
        }
        return String.valueOf(e);
    }

    /**
     * Appends {@code ", caused by "} and each of {@code e}'s causes (at most four) as its
     * {@code toString}, passing over those that add nothing: a wrapper with no message of its own,
     * or one whose message is told already.
     */
    private static StringBuilder appendCauses(StringBuilder b, Throwable e) {
        Throwable c = e.getCause();
        for (int i = 0; i < MAX_CAUSES && c != null && c != e; i++, c = c.getCause()) {
            String m = c.getMessage();
            boolean adds = m == null ? c.getCause() == null : b.indexOf(m) < 0;
            if (adds) {
                b.append(", caused by ").append(c);
            }
        }
        return b;
    }
}
