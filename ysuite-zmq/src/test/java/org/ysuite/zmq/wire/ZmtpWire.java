package org.ysuite.zmq.wire;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Test-side ZMTP bytes, built by hand from RFC 23/37 (independently of the engine's own writers). */
final class ZmtpWire {

    private ZmtpWire() {
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** A 64-byte greeting: signature, version, mechanism NUL-padded, as-server, filler. */
    static byte[] greeting(int major, int minor, String mechanism, boolean asServer) {
        byte[] g = new byte[64];
        g[0] = (byte) 0xFF;
        g[9] = 0x7F;
        g[10] = (byte) major;
        g[11] = (byte) minor;
        byte[] m = ascii(mechanism);
        System.arraycopy(m, 0, g, 12, m.length);
        g[32] = (byte) (asServer ? 1 : 0);
        return g;
    }

    static byte[] greeting(int minor) {
        return greeting(3, minor, "NULL", false);
    }

    /** A frame with {@code flags} (LONG chosen by size unless set) and {@code body}. */
    static byte[] frame(int flags, byte[] body) {
        if (body.length > 255 || (flags & 0x02) != 0) {
            return concat(new byte[] {(byte) (flags | 0x02)}, ByteBuffer.allocate(8).putLong(body.length).array(), body);
        }
        return concat(new byte[] {(byte) flags, (byte) body.length}, body);
    }

    static byte[] message(byte[] body, boolean more) {
        return frame(more ? 1 : 0, body);
    }

    /** A long frame header announcing {@code size}, whatever follows. */
    static byte[] longHeader(int flags, long size) {
        return concat(new byte[] {(byte) (flags | 0x02)}, ByteBuffer.allocate(8).putLong(size).array());
    }

    static byte[] commandBody(String name, byte[] data) {
        return concat(new byte[] {(byte) name.length()}, ascii(name), data);
    }

    static byte[] command(String name, byte[] data) {
        return frame(0x04, commandBody(name, data));
    }

    /** A property: name length, name, 4-byte value length, value. */
    static byte[] property(String name, byte[] value) {
        return concat(new byte[] {(byte) name.length()}, ascii(name),
                ByteBuffer.allocate(4).putInt(value.length).array(), value);
    }

    static byte[] ready(byte[]... properties) {
        return command("READY", concat(properties));
    }

    static byte[] readyOf(String socketType) {
        return ready(property("Socket-Type", ascii(socketType)));
    }
}
