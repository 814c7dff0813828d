package org.ysuite.zmq.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqError;
import org.ysuite.zmq.ZmqException;
import org.ysuite.zmq.wire.ZmtpAuthenticator;
import org.ysuite.zmq.wire.ZmtpOptions;
import org.ysuite.zmq.wire.ZmtpSecurity;

/**
 * A socket's options with libzmq 4.3's defaults, and their names as libzmq spells them without the
 * {@code ZMQ_} prefix. Written by the socket's thread; the transports read them when a connection is set
 * up (volatile fields), so a change applies to later connections, as in libzmq.
 */
public final class SocketOptions {

    /** ZMQ_SNDHWM, messages per peer; 0 for no limit. */
    public volatile int sendHwm = 1000;
    /** ZMQ_RCVHWM, messages per peer; 0 for no limit. */
    public volatile int receiveHwm = 1000;
    /** ZMQ_LINGER, ms; -1 waits forever (libzmq 4.3's default). */
    public volatile int linger = -1;
    /** ZMQ_ROUTING_ID. */
    public volatile byte[] identity = new byte[0];
    /** ZMQ_ROUTER_MANDATORY. */
    public volatile boolean routerMandatory;
    /** ZMQ_RECONNECT_IVL, ms; -1 for no reconnect. */
    public volatile int reconnectInterval = 100;
    /** ZMQ_RECONNECT_IVL_MAX, ms; 0 keeps the interval constant. */
    public volatile int reconnectIntervalMax;
    /** ZMQ_MAXMSGSIZE, bytes; -1 for no limit. */
    public volatile long maxMessageSize = -1;
    /** ZMQ_RCVTIMEO, ms; -1 forever. */
    public volatile int receiveTimeout = -1;
    /** ZMQ_SNDTIMEO, ms; -1 forever. */
    public volatile int sendTimeout = -1;
    /** ZMQ_HEARTBEAT_IVL, ms; 0 for none. */
    public volatile int heartbeatInterval;
    /** ZMQ_HEARTBEAT_TIMEOUT, ms; 0 for the interval. */
    public volatile int heartbeatTimeout;
    /** ZMQ_HEARTBEAT_TTL, ms. */
    public volatile int heartbeatTtl;
    /** ZMQ_HANDSHAKE_IVL, ms; 0 for no limit. */
    public volatile int handshakeInterval = ZmtpOptions.DEFAULT_HANDSHAKE_MILLIS;
    /** ZMQ_IMMEDIATE (accepted; connections are attached once their handshake completes either way). */
    public volatile boolean immediate;
    /**
     * The security settings as one value (ZMQ_PLAIN_SERVER, ZMQ_PLAIN_USERNAME, ZMQ_PLAIN_PASSWORD,
     * ZMQ_ZAP_DOMAIN; ZMQ_MECHANISM reads its mechanism): replaced whole, so a connection set up meanwhile
     * sees one consistent setting.
     */
    public volatile ZmtpSecurity security = ZmtpSecurity.NULL;
    /** The context's ZAP client, which a PLAIN or CURVE server (or a NULL socket with a ZAP domain) asks. */
    public volatile ZmtpAuthenticator authenticator;

    // ---- CURVE (ZMQ_CURVE_SERVER, _PUBLICKEY, _SECRETKEY, _SERVERKEY): kept in one place, CurveOptions ----
    /** The CURVE options; while they are active they replace {@link #security}'s mechanism. */
    public final CurveOptions curve = new CurveOptions();

    /** The ZMTP engine's options for a connection of a socket of {@code type}. */
    public ZmtpOptions zmtp(SocketType type, boolean asServer) {
        ZmtpSecurity s = security;
        if (curve.active()) {
            s = curve.security(s.zapDomain(), authenticator);
        } else if (s.isPlain() && s.server()) {
            s = ZmtpSecurity.plainServer(s.zapDomain(), authenticator);
        } else if (!s.isPlain() && !s.zapDomain().isEmpty()) {
            s = s.withAuthenticator(authenticator); // libzmq 4.3 asks ZAP about NULL peers once a domain is set
        }
        return new ZmtpOptions(type, identity, maxMessageSize, heartbeatInterval, heartbeatTimeout,
                heartbeatTtl, handshakeInterval, asServer, s);
    }

    /**
     * Sets an option by libzmq's name ({@code "SNDHWM"}, {@code "ZMQ_SNDHWM"}, case-insensitive).
     *
     * @return false if the name is not one of these options (the socket handles the rest)
     * @throws ZmqException EINVAL naming the option if the value has the wrong type or range
     */
    public boolean set(String name, Object value) {
        switch (key(name)) {
            case "SNDHWM": sendHwm = atLeast(name, intOf(name, value), 0); return true;
            case "RCVHWM": receiveHwm = atLeast(name, intOf(name, value), 0); return true;
            case "LINGER": linger = atLeast(name, intOf(name, value), -1); return true;
            case "ROUTING_ID": case "IDENTITY": identity = identityOf(value); return true;
            case "ROUTER_MANDATORY": routerMandatory = boolOf(name, value); return true;
            case "RECONNECT_IVL": reconnectInterval = atLeast(name, intOf(name, value), -1); return true;
            case "RECONNECT_IVL_MAX": reconnectIntervalMax = atLeast(name, intOf(name, value), 0); return true;
            case "MAXMSGSIZE":
                long v = value instanceof Number n ? n.longValue() : intOf(name, value);
                if (v < -1) {
                    throw new ZmqException(ZmqError.EINVAL, name + ": " + v + ", -1 (no limit) or at least 0");
                }
                maxMessageSize = v;
                return true;
            case "RCVTIMEO": receiveTimeout = atLeast(name, intOf(name, value), -1); return true;
            case "SNDTIMEO": sendTimeout = atLeast(name, intOf(name, value), -1); return true;
            case "HEARTBEAT_IVL": heartbeatInterval = atLeast(name, intOf(name, value), 0); return true;
            case "HEARTBEAT_TIMEOUT": heartbeatTimeout = atLeast(name, intOf(name, value), 0); return true;
            case "HEARTBEAT_TTL":
                int ttl = atLeast(name, intOf(name, value), 0);
                if (ttl > 6_553_500) {
                    throw new ZmqException(ZmqError.EINVAL, name + ": " + ttl + " ms, at most 6553500");
                }
                heartbeatTtl = ttl;
                return true;
            case "HANDSHAKE_IVL": handshakeInterval = atLeast(name, intOf(name, value), 0); return true;
            case "IMMEDIATE": immediate = boolOf(name, value); return true;
            case "PLAIN_SERVER": security = plainServer(boolOf(name, value)); curve.off(); return true;
            case "PLAIN_USERNAME": security = plainClient(bytesOf(name, value), null); curve.off(); return true;
            case "PLAIN_PASSWORD": security = plainClient(null, bytesOf(name, value)); curve.off(); return true;
            case "ZAP_DOMAIN":
                ZmtpSecurity z = security;
                security = new ZmtpSecurity(z.mechanism(), z.server(), z.username(), z.password(),
                        new String(bytesOf(name, value), StandardCharsets.UTF_8), null);
                return true;
            default: return curve.set(key(name), name, value);
        }
    }

    /**
     * Reads an option by libzmq's name.
     *
     * @return the value, or null if the name is not one of these options
     */
    public Object get(String name) {
        switch (key(name)) {
            case "SNDHWM": return sendHwm;
            case "RCVHWM": return receiveHwm;
            case "LINGER": return linger;
            case "ROUTING_ID": case "IDENTITY": return identity.clone();
            case "ROUTER_MANDATORY": return routerMandatory;
            case "RECONNECT_IVL": return reconnectInterval;
            case "RECONNECT_IVL_MAX": return reconnectIntervalMax;
            case "MAXMSGSIZE": return maxMessageSize;
            case "RCVTIMEO": return receiveTimeout;
            case "SNDTIMEO": return sendTimeout;
            case "HEARTBEAT_IVL": return heartbeatInterval;
            case "HEARTBEAT_TIMEOUT": return heartbeatTimeout;
            case "HEARTBEAT_TTL": return heartbeatTtl;
            case "HANDSHAKE_IVL": return handshakeInterval;
            case "IMMEDIATE": return immediate;
            case "MECHANISM": return curve.active() ? "CURVE" : security.mechanism();
            case "PLAIN_SERVER": return security.isPlain() && security.server();
            case "PLAIN_USERNAME": return new String(security.username(), StandardCharsets.UTF_8);
            case "PLAIN_PASSWORD": return new String(security.password(), StandardCharsets.UTF_8);
            case "ZAP_DOMAIN": return security.zapDomain();
            default: return curve.get(key(name));
        }
    }

    /** The option's name as the switch spells it: upper case, no {@code ZMQ_} prefix. */
    public static String key(String name) {
        if (name == null) {
            throw new ZmqException(ZmqError.EINVAL, "option name: null");
        }
        String k = name.toUpperCase(Locale.ROOT);
        return k.startsWith("ZMQ_") ? k.substring(4) : k;
    }

    /** Checks an identity: 1 to 255 bytes, not starting with a zero byte (reserved for generated ids). */
    public static byte[] identityOf(Object value) {
        byte[] id = value instanceof String s ? s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
                : value instanceof byte[] b ? b.clone() : null;
        if (id == null) {
            throw new ZmqException(ZmqError.EINVAL, "ROUTING_ID: a byte[] or String, not " + value);
        }
        if (id.length > 255 || (id.length > 0 && id[0] == 0)) {
            throw new ZmqException(ZmqError.EINVAL, "ROUTING_ID: " + id.length
                    + " bytes; 1 to 255 bytes, the first not zero (ids starting with 0 are generated ones)");
        }
        return id;
    }

    /**
     * libzmq's ZMQ_PLAIN_SERVER: on, the socket is a PLAIN server; off, the NULL mechanism (the ZAP domain
     * is kept).
     */
    private ZmtpSecurity plainServer(boolean on) {
        ZmtpSecurity s = security;
        return new ZmtpSecurity(on ? "PLAIN" : "NULL", on, new byte[0], new byte[0], s.zapDomain(), null);
    }

    /**
     * libzmq's ZMQ_PLAIN_USERNAME and _PASSWORD (one of them null: unchanged): either makes the socket a
     * PLAIN client; an empty username makes it NULL again, as in libzmq.
     */
    private ZmtpSecurity plainClient(byte[] username, byte[] password) {
        ZmtpSecurity s = security;
        byte[] user = username != null ? username : s.isPlain() && !s.server() ? s.username() : new byte[0];
        byte[] pass = password != null ? password : s.isPlain() && !s.server() ? s.password() : new byte[0];
        if (user.length > 255 || pass.length > 255) {
            throw new ZmqException(ZmqError.EINVAL, (username != null ? "PLAIN_USERNAME: " + user.length
                    : "PLAIN_PASSWORD: " + pass.length) + " bytes, at most 255");
        }
        boolean none = username != null && username.length == 0;
        return new ZmtpSecurity(none ? "NULL" : "PLAIN", false, none ? new byte[0] : user,
                none ? new byte[0] : pass, s.zapDomain(), null);
    }

    private static byte[] bytesOf(String name, Object value) {
        if (value instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        if (value instanceof byte[] b) {
            return b.clone();
        }
        throw new ZmqException(ZmqError.EINVAL, name + ": a String or byte[], not " + value);
    }

    private static int intOf(String name, Object value) {
        if (value instanceof Integer i) {
            return i;
        }
        if (value instanceof Number n && n.longValue() == n.intValue()) {
            return n.intValue();
        }
        throw new ZmqException(ZmqError.EINVAL, name + ": an int, not " + value);
    }

    private static boolean boolOf(String name, Object value) {
        if (value instanceof Boolean b) {
            return b;
        }
        if (value instanceof Number n) {
            return n.intValue() != 0;
        }
        throw new ZmqException(ZmqError.EINVAL, name + ": a boolean or 0/1, not " + value);
    }

    private static int atLeast(String name, int v, int min) {
        if (v < min) {
            throw new ZmqException(ZmqError.EINVAL, name + ": " + v + ", at least " + min);
        }
        return v;
    }

    // ---- TLS: ysuite's own setting (libzmq has no TLS on tcp://), set by ZmqSocket.setTls; kept apart ----

    /** TLS for the tcp:// endpoints bound or connected from now on, or null (the default) for none. */
    public volatile TlsSupport.Settings tls;

}
