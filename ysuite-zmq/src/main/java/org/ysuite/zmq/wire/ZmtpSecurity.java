package org.ysuite.zmq.wire;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A connection's security mechanism and its settings (ZeroMQ RFC 23 "Security"): NULL, PLAIN (RFC 24)
 * as client (username and password) or as server (a ZAP domain and the {@link ZmtpAuthenticator} that
 * checks the client's credentials), or CURVE (RFC 25/26) as client (its key pair and the server's public
 * key) or as server (its key pair, a ZAP domain and the authenticator that checks client keys). Immutable.
 *
 * <p>PLAIN sends the password in clear: use it on a trusted network, or under TLS. CURVE encrypts and
 * authenticates every frame after its handshake; it needs libsodium.
 *
 * @param mechanism {@code "NULL"}, {@code "PLAIN"} or {@code "CURVE"}
 * @param server whether this side is the mechanism's server (announced in the greeting's as-server flag)
 * @param username the PLAIN client's username, at most 255 bytes (empty otherwise)
 * @param password the PLAIN client's password, at most 255 bytes (empty otherwise)
 * @param zapDomain the server's ZAP domain (empty for none; a NULL socket asks ZAP only when it is set)
 * @param authenticator the server's ZAP client; for PLAIN null refuses every client (no handler to ask),
 *                      for CURVE null (or one with no handler) accepts every client whose handshake is valid
 * @param curve CURVE's keys; null for NULL and PLAIN
 */
public record ZmtpSecurity(String mechanism, boolean server, byte[] username, byte[] password, String zapDomain,
                           ZmtpAuthenticator authenticator, CurveKeys curve) {

    /** The NULL mechanism: no security. */
    public static final ZmtpSecurity NULL = new ZmtpSecurity("NULL", false, new byte[0], new byte[0], "", null);

    /**
     * CURVE's keys (RFC 26: the long-term keys C, c of a client, S, s of a server; a client also knows S).
     *
     * @param publicKey this side's public key, 32 bytes
     * @param secretKey this side's secret key, 32 bytes
     * @param serverKey the server's public key (a client's setting), 32 bytes; empty on a server
     */
    public record CurveKeys(byte[] publicKey, byte[] secretKey, byte[] serverKey) {

        /**
         * Checks the lengths.
         *
         * @throws IllegalArgumentException naming the key and its length
         */
        public CurveKeys {
            if (publicKey.length != 32 || secretKey.length != 32) {
                throw new IllegalArgumentException("publicKey and secretKey: " + publicKey.length + " and "
                        + secretKey.length + " bytes, 32 each");
            }
            if (serverKey.length != 32 && serverKey.length != 0) {
                throw new IllegalArgumentException("serverKey: " + serverKey.length + " bytes, 32 (or 0 on a server)");
            }
            publicKey = publicKey.clone();
            secretKey = secretKey.clone();
            serverKey = serverKey.clone();
        }

        /** This side's public key (a copy). */
        @Override
        public byte[] publicKey() {
            return publicKey.clone();
        }

        /** This side's secret key (a copy; zero it after use). */
        @Override
        public byte[] secretKey() {
            return secretKey.clone();
        }

        /** The server's public key (a copy). */
        @Override
        public byte[] serverKey() {
            return serverKey.clone();
        }

        /** Leaves the secret key out. */
        @Override
        public String toString() {
            return "CurveKeys[public " + java.util.HexFormat.of().formatHex(publicKey) + "]";
        }
    }

    /** A NULL or PLAIN setting; see the canonical constructor. */
    public ZmtpSecurity(String mechanism, boolean server, byte[] username, byte[] password, String zapDomain,
                        ZmtpAuthenticator authenticator) {
        this(mechanism, server, username, password, zapDomain, authenticator, null);
    }

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
        if (!mechanism.equals("NULL") && !mechanism.equals("PLAIN") && !mechanism.equals("CURVE")) {
            throw new IllegalArgumentException("mechanism: \"" + mechanism + "\", NULL, PLAIN or CURVE");
        }
        if (mechanism.equals("CURVE") != (curve != null)) {
            throw new IllegalArgumentException("curve: " + (curve == null ? "null for CURVE (it needs keys)"
                    : "keys given for " + mechanism));
        }
        if (curve != null && !server && curve.serverKey.length != 32) {
            throw new IllegalArgumentException("curve.serverKey: a CURVE client needs the server's public key");
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

    /**
     * A CURVE server with the key pair {@code publicKey}/{@code secretKey}, asking {@code authenticator}
     * (null: no ZAP, every client with a valid handshake is in) under ZAP domain {@code zapDomain}.
     */
    public static ZmtpSecurity curveServer(byte[] publicKey, byte[] secretKey, String zapDomain,
                                           ZmtpAuthenticator authenticator) {
        return new ZmtpSecurity("CURVE", true, new byte[0], new byte[0], zapDomain, authenticator,
                new CurveKeys(publicKey, secretKey, new byte[0]));
    }

    /** A CURVE client with the key pair {@code publicKey}/{@code secretKey}, trusting the server key {@code serverKey}. */
    public static ZmtpSecurity curveClient(byte[] publicKey, byte[] secretKey, byte[] serverKey) {
        return new ZmtpSecurity("CURVE", false, new byte[0], new byte[0], "", null,
                new CurveKeys(publicKey, secretKey, serverKey));
    }

    /** Whether this is CURVE. */
    public boolean isCurve() {
        return curve != null;
    }

    /** These settings with {@code authenticator} instead of theirs. */
    public ZmtpSecurity withAuthenticator(ZmtpAuthenticator authenticator) {
        return new ZmtpSecurity(mechanism, server, username, password, zapDomain, authenticator, curve);
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
        return "ZmtpSecurity[" + mechanism + (server ? ", server, domain \"" + zapDomain + "\"" : isCurve()
                ? ", client, " + curve : isPlain()
                ? ", client, username " + new String(username, StandardCharsets.UTF_8) : "") + "]";
    }
}
