package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * ZMTP's commands (ZeroMQ RFC 23 "Commands", RFC 37 for SUBSCRIBE/CANCEL/PING/PONG): the names, how a
 * command is framed, and the bodies this engine builds and reads. A command's body is a one-byte name
 * length, the name, then its data.
 */
final class ZmtpCommands {

    static final byte[] READY = ascii("READY");
    static final byte[] ERROR = ascii("ERROR");
    static final byte[] PING = ascii("PING");
    static final byte[] PONG = ascii("PONG");
    static final byte[] SUBSCRIBE = ascii("SUBSCRIBE");
    static final byte[] CANCEL = ascii("CANCEL");
    /** PLAIN's commands (RFC 24). */
    static final byte[] HELLO = ascii("HELLO");
    static final byte[] WELCOME = ascii("WELCOME");
    static final byte[] INITIATE = ascii("INITIATE");
    /** CURVE's traffic command (RFC 26). */
    static final byte[] MESSAGE = ascii("MESSAGE");

    /** The flags of a command frame (RFC 23: bit 2), short and long. */
    static final int FLAG_COMMAND = 0x04;
    static final int FLAG_LONG = 0x02;
    static final int FLAG_MORE = 0x01;

    /** The most context bytes a PING carries and a PONG echoes (RFC 37). */
    static final int MAX_PING_CONTEXT = 16;

    private ZmtpCommands() {
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes the header of a command frame whose body is {@code size} bytes. */
    static void writeHeader(ByteBuf out, int size) {
        if (size <= 255) {
            out.writeByte(FLAG_COMMAND);
            out.writeByte(size);
        } else {
            out.writeByte(FLAG_COMMAND | FLAG_LONG);
            out.writeLong(size);
        }
    }

    /**
     * Whether the command body of {@code length} bytes at {@code offset} has the name {@code name}.
     * A body too short to hold its announced name matches nothing.
     */
    static boolean isNamed(ByteBuf in, int offset, int length, byte[] name) {
        if (length < 1 + name.length || in.getUnsignedByte(offset) != name.length) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (in.getByte(offset + 1 + i) != name[i]) {
                return false;
            }
        }
        return true;
    }

    /** The name of the command at {@code offset}, printable bytes only, for a reason. */
    static String name(ByteBuf in, int offset, int length) {
        if (length < 1) {
            return "(empty)";
        }
        int n = Math.min(in.getUnsignedByte(offset), length - 1);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            int b = in.getUnsignedByte(offset + 1 + i);
            sb.append(b >= 0x20 && b < 0x7F ? (char) b : '?');
        }
        return sb.toString();
    }

    /** A whole command frame: header, name, data. */
    static ByteBuf command(ByteBufAllocator alloc, byte[] name, byte[] data) {
        int size = 1 + name.length + data.length;
        ByteBuf out = alloc.buffer(9 + size);
        writeHeader(out, size);
        out.writeByte(name.length);
        out.writeBytes(name);
        out.writeBytes(data);
        return out;
    }

    /** An ERROR command whose reason is {@code reason}, cut to the 255 bytes RFC 23 allows. */
    static ByteBuf error(ByteBufAllocator alloc, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, 255);
        byte[] data = new byte[1 + n];
        data[0] = (byte) n;
        System.arraycopy(text, 0, data, 1, n);
        return command(alloc, ERROR, data);
    }

    /** The reason an ERROR command's body carries (RFC 23: a one-byte length, then the text), hostile lengths cut. */
    static String errorReason(ByteBuf in, int offset, int length) {
        int at = 1 + ERROR.length;
        if (length <= at) {
            return "";
        }
        int n = Math.min(in.getUnsignedByte(offset + at), length - at - 1);
        return in.toString(offset + at + 1, n, StandardCharsets.UTF_8);
    }

    /**
     * libzmq 4.3's ERROR command as it is on the wire (seen from 4.3.4's PLAIN server): its name written from the C literal
     * {@code "\x05ERROR"}, which C reads as the byte 0x5E ({@code ^}) then {@code RROR}, so the body is
     * {@code ^RROR}, the reason's length, the reason (9 bytes for a ZAP status code). libzmq 4.3 clients
     * recognise only this form; this engine reads it as the ERROR it means, and sends RFC 23's.
     */
    static final byte[] LIBZMQ43_ERROR = ascii("^RROR");

    /** Whether the body is libzmq 4.3's malformed ERROR (see {@link #LIBZMQ43_ERROR}). */
    static boolean isLibzmq43Error(ByteBuf in, int offset, int length) {
        if (length < LIBZMQ43_ERROR.length) {
            return false;
        }
        for (int i = 0; i < LIBZMQ43_ERROR.length; i++) {
            if (in.getByte(offset + i) != LIBZMQ43_ERROR[i]) {
                return false;
            }
        }
        return true;
    }

    /** The reason libzmq 4.3's malformed ERROR carries, hostile lengths cut. */
    static String libzmq43ErrorReason(ByteBuf in, int offset, int length) {
        int at = LIBZMQ43_ERROR.length;
        if (length <= at) {
            return "";
        }
        int n = Math.min(in.getUnsignedByte(offset + at), length - at - 1);
        return in.toString(offset + at + 1, n, StandardCharsets.UTF_8);
    }

    /** A READY command carrying {@code properties} as RFC 23's metadata. */
    static ByteBuf ready(ByteBufAllocator alloc, Map<String, byte[]> properties) {
        return withMetadata(alloc, READY, properties);
    }

    /** A command named {@code commandName} (READY, or PLAIN's INITIATE) whose data is {@code properties} as RFC 23's metadata. */
    static ByteBuf withMetadata(ByteBufAllocator alloc, byte[] commandName, Map<String, byte[]> properties) {
        int size = 1 + commandName.length;
        for (Map.Entry<String, byte[]> e : properties.entrySet()) {
            size += 1 + e.getKey().length() + 4 + e.getValue().length;
        }
        ByteBuf out = alloc.buffer(9 + size);
        writeHeader(out, size);
        out.writeByte(commandName.length);
        out.writeBytes(commandName);
        for (Map.Entry<String, byte[]> e : properties.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.US_ASCII);
            out.writeByte(name.length);
            out.writeBytes(name);
            out.writeInt(e.getValue().length);
            out.writeBytes(e.getValue());
        }
        return out;
    }

    /** {@code properties} as RFC 23's metadata alone (CURVE boxes them in INITIATE and READY). */
    static byte[] metadataBytes(Map<String, byte[]> properties) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (Map.Entry<String, byte[]> e : properties.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.US_ASCII);
            byte[] value = e.getValue();
            out.write(name.length);
            out.writeBytes(name);
            out.write(value.length >>> 24);
            out.write(value.length >>> 16);
            out.write(value.length >>> 8);
            out.write(value.length);
            out.writeBytes(value);
        }
        return out.toByteArray();
    }

    /**
     * Reads RFC 23's metadata: properties from {@code offset} to {@code end}, each a one-byte name length,
     * the name, a four-byte network-order value length, the value.
     *
     * @return the properties in the order sent (unmodifiable); a name sent twice keeps its last value
     * @throws ZmtpProtocolException if a length announces more bytes than the command carries, or a name is empty
     */
    static Map<String, byte[]> metadata(ByteBuf in, int offset, int end) throws ZmtpProtocolException {
        Map<String, byte[]> properties = new LinkedHashMap<>();
        int at = offset;
        while (at < end) {
            int nameLength = in.getUnsignedByte(at++);
            if (nameLength == 0) {
                throw new ZmtpProtocolException("malformed metadata: a property with an empty name", true);
            }
            if (nameLength > end - at) {
                throw new ZmtpProtocolException("malformed metadata: a property name of " + nameLength
                        + " B where " + (end - at) + " B remain", true);
            }
            String name = in.toString(at, nameLength, StandardCharsets.US_ASCII);
            at += nameLength;
            if (end - at < 4) {
                throw new ZmtpProtocolException("malformed metadata: property " + name
                        + " lacks its 4-byte value length", true);
            }
            long valueLength = in.getUnsignedInt(at);
            at += 4;
            if (valueLength > end - at) {
                throw new ZmtpProtocolException("malformed metadata: property " + name + " announces "
                        + valueLength + " B where " + (end - at) + " B remain", true);
            }
            byte[] value = new byte[(int) valueLength];
            in.getBytes(at, value);
            at += (int) valueLength;
            properties.put(name, value);
        }
        return Collections.unmodifiableMap(properties);
    }

    /** The value of {@code name} in {@code properties}, matched ignoring case as RFC 23 asks; null if absent. */
    static byte[] property(Map<String, byte[]> properties, String name) {
        for (Map.Entry<String, byte[]> e : properties.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }
}
