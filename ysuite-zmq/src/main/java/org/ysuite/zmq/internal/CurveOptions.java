package org.ysuite.zmq.internal;

import java.nio.charset.StandardCharsets;
import org.ysuite.zmq.Z85;
import org.ysuite.zmq.ZmqError;
import org.ysuite.zmq.ZmqException;
import org.ysuite.zmq.wire.ZmtpAuthenticator;
import org.ysuite.zmq.wire.ZmtpSecurity;

/**
 * A socket's CURVE options as libzmq 4.3 names and applies them (ZeroMQ RFC 25/26):
 * <ul>
 *   <li>{@code CURVE_SERVER}: true makes the socket a CURVE server, false returns it to NULL;</li>
 *   <li>{@code CURVE_PUBLICKEY}, {@code CURVE_SECRETKEY}: this socket's key pair (a server needs the
 *       secret key; its public key is derived from it when not given);</li>
 *   <li>{@code CURVE_SERVERKEY}: makes the socket a CURVE client trusting that server key.</li>
 * </ul>
 * A key is 32 bytes, or 40 Z85 characters (a {@code String} or 40 ASCII bytes); reading one gives the 32
 * bytes. Setting a key selects CURVE, as in libzmq; setting a PLAIN option leaves it. Socket thread writes,
 * connection setup reads: each setting is replaced whole through a volatile field.
 */
public final class CurveOptions {

    /** One consistent CURVE setting. */
    private record Setting(int role, byte[] publicKey, byte[] secretKey, byte[] serverKey) {
    }

    private static final int OFF = 0;
    private static final int SERVER = 1;
    private static final int CLIENT = 2;
    private static final byte[] NONE = new byte[0];

    private volatile Setting setting = new Setting(OFF, NONE, NONE, NONE);

    /** Whether the socket speaks CURVE. */
    public boolean active() {
        return setting.role != OFF;
    }

    /** Leaves CURVE (a PLAIN option was set); the keys are kept, as libzmq keeps them. */
    void off() {
        Setting s = setting;
        setting = new Setting(OFF, s.publicKey, s.secretKey, s.serverKey);
    }

    /**
     * Sets one CURVE option (key is the name without {@code ZMQ_}, upper case).
     *
     * @return false if {@code key} is not a CURVE option
     * @throws ZmqException EINVAL naming the option for a bad value
     */
    boolean set(String key, String name, Object value) {
        Setting s = setting;
        switch (key) {
            case "CURVE_SERVER":
                if (!(value instanceof Boolean) && !(value instanceof Integer)) {
                    throw new ZmqException(ZmqError.EINVAL, name + ": a boolean or an int, not " + value);
                }
                boolean on = value instanceof Boolean b ? b : (Integer) value != 0;
                setting = new Setting(on ? SERVER : OFF, s.publicKey, s.secretKey, s.serverKey);
                return true;
            case "CURVE_PUBLICKEY":
                setting = new Setting(s.role == OFF ? CLIENT : s.role, key(name, value), s.secretKey, s.serverKey);
                return true;
            case "CURVE_SECRETKEY":
                setting = new Setting(s.role == OFF ? CLIENT : s.role, s.publicKey, key(name, value), s.serverKey);
                return true;
            case "CURVE_SERVERKEY":
                setting = new Setting(CLIENT, s.publicKey, s.secretKey, key(name, value));
                return true;
            default:
                return false;
        }
    }

    /** Reads one CURVE option; null if {@code key} is not one. */
    Object get(String key) {
        Setting s = setting;
        switch (key) {
            case "CURVE_SERVER": return s.role == SERVER;
            case "CURVE_PUBLICKEY": return s.publicKey.clone();
            case "CURVE_SECRETKEY": return s.secretKey.clone();
            case "CURVE_SERVERKEY": return s.serverKey.clone();
            default: return null;
        }
    }

    /**
     * Checks that the keys the role needs are set (before a bind or connect).
     *
     * @throws ZmqException EINVAL naming the missing option
     */
    public void check() {
        Setting s = setting;
        if (s.role == OFF) {
            return;
        }
        if (s.secretKey.length == 0) {
            throw new ZmqException(ZmqError.EINVAL, "CURVE without keys: ZMQ_CURVE_SECRETKEY is not set (a CURVE "
                    + (s.role == SERVER ? "server" : "client") + " needs its secret key)");
        }
        if (s.role == CLIENT && s.serverKey.length == 0) {
            throw new ZmqException(ZmqError.EINVAL, "CURVE without keys: ZMQ_CURVE_SERVERKEY is not set (a CURVE"
                    + " client needs the server's public key)");
        }
    }

    /** The engine's security for a connection; see {@link #check()} for the failure. */
    ZmtpSecurity security(String zapDomain, ZmtpAuthenticator authenticator) {
        check();
        Setting s = setting;
        byte[] publicKey = s.publicKey.length == 32 ? s.publicKey : CurvePublic.of(s.secretKey);
        return s.role == SERVER ? ZmtpSecurity.curveServer(publicKey, s.secretKey, zapDomain, authenticator)
                : ZmtpSecurity.curveClient(publicKey, s.secretKey, s.serverKey);
    }

    private static byte[] key(String name, Object value) {
        if (value instanceof byte[] b && b.length == 32) {
            return b.clone();
        }
        String text = value instanceof String str ? str
                : value instanceof byte[] b && b.length == 40 ? new String(b, StandardCharsets.US_ASCII) : null;
        if (text == null || text.length() != 40) {
            throw new ZmqException(ZmqError.EINVAL, name + ": a key of 32 bytes or 40 Z85 characters, not "
                    + (value instanceof byte[] b ? b.length + " bytes" : value instanceof String str
                    ? str.length() + " characters" : String.valueOf(value)));
        }
        try {
            return Z85.decode(text);
        } catch (IllegalArgumentException e) {
            throw new ZmqException(ZmqError.EINVAL, name + ": " + e.getMessage());
        }
    }

    /** The public key of a secret key, through libsodium. */
    private static final class CurvePublic {
        static byte[] of(byte[] secretKey) {
            byte[] pk = new byte[32];
            Sodium.lib().crypto_scalarmult_base(pk, secretKey);
            return pk;
        }
    }

    /** Leaves the secret key out. */
    @Override
    public String toString() {
        Setting s = setting;
        return "CurveOptions[" + (s.role == OFF ? "off" : s.role == SERVER ? "server" : "client")
                + ", public " + (s.publicKey.length == 0 ? "unset" : Z85.encode(s.publicKey)) + "]";
    }
}
