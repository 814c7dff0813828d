package org.ysuite.zmq.wire;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A connection's security mechanism and its settings (ZeroMQ RFC 23 "Security"): NULL, or PLAIN
 * (RFC 24) as client (username and password) or as server (a ZAP domain and the
 * {@link ZmtpAuthenticator} that checks the client's credentials). Immutable.
 *
 * <p>PLAIN sends the password in clear: use it on a trusted network, or under TLS.
 *
 * @param mechanism {@code "NULL"} or {@code "PLAIN"}
 * @param server whether this side is the mechanism's server (announced in the greeting's as-server flag)
 * @param username the PLAIN client's username, at most 255 bytes (empty otherwise)
 * @param password the PLAIN client's password, at most 255 bytes (empty otherwise)
 * @param zapDomain the PLAIN server's ZAP domain (empty for none)
 * @param authenticator the PLAIN server's ZAP client; null refuses every client (no handler to ask)
 */
public record ZmtpSecurity(String mechanism, boolean server, byte[] username, byte[] password, String zapDomain,
                           ZmtpAuthenticator authenticator) {

    /** The NULL mechanism: no security. */
    public static final ZmtpSecurity NULL = new ZmtpSecurity("NULL", false, new byte[0], new byte[0], "", null);

    /**
     * Checks the arguments.
     *
     * @throws NullPointerException if an argument other than {@code authenticator} is null
     * @throws IllegalArgumentException naming the argument and its limit
     */
    public ZmtpSecurity {
        Objects.requireNonNull(mechanism, "mechanism");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(zapDomain, "zapDomain");
        if (!mechanism.equals("NULL") && !mechanism.equals("PLAIN")) {
            throw new IllegalArgumentException("mechanism: \"" + mechanism + "\", NULL or PLAIN");
        }
        if (username.length > 255 || password.length > 255) {
            throw new IllegalArgumentException("username and password: " + username.length + " and "
                    + password.length + " bytes, at most 255 each (RFC 24 HELLO)");
        }
        username = username.clone();
        password = password.clone();
    }

    /** A PLAIN client sending {@code username} and {@code password} (at most 255 UTF-8 bytes each). */
    public static ZmtpSecurity plainClient(String username, String password) {
        return new ZmtpSecurity("PLAIN", false, username.getBytes(StandardCharsets.UTF_8),
                password.getBytes(StandardCharsets.UTF_8), "", null);
    }

    /** A PLAIN server asking {@code authenticator} (null: refuse everyone) under ZAP domain {@code zapDomain}. */
    public static ZmtpSecurity plainServer(String zapDomain, ZmtpAuthenticator authenticator) {
        return new ZmtpSecurity("PLAIN", true, new byte[0], new byte[0], zapDomain, authenticator);
    }

    /** Whether this is PLAIN. */
    public boolean isPlain() {
        return mechanism.equals("PLAIN");
    }

    /** The username (a copy). */
    @Override
    public byte[] username() {
        return username.clone();
    }

    /** The password (a copy). */
    @Override
    public byte[] password() {
        return password.clone();
    }

    /** Leaves the password out. */
    @Override
    public String toString() {
        return "ZmtpSecurity[" + mechanism + (server ? ", server, domain \"" + zapDomain + "\"" : isPlain()
                ? ", client, username " + new String(username, StandardCharsets.UTF_8) : "") + "]";
    }
}
