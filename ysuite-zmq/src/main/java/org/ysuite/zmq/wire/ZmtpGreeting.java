package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * ZMTP 3.x's 64-byte greeting (ZeroMQ RFC 23 "Greeting"): the signature {@code 0xFF}, eight pad bytes,
 * {@code 0x7F}; the version (major 3, minor 1); the mechanism's name in 20 NUL-padded bytes; the
 * as-server flag; 31 bytes of filler.
 *
 * <p>Reading is incremental and robust to any split: {@link #check} looks at whatever prefix has
 * arrived and refuses a peer as soon as its bytes say it cannot be a ZMTP 3.x peer.
 *
 * <p><b>Older peers are refused.</b> RFC 23's "Backwards Interoperability" lets a 3.x peer downgrade to
 * ZMTP 1.0 (a first byte other than {@code 0xFF}, or byte 9 with its low bit clear) or 2.0 (major
 * version below 3). This engine does not: such a peer is dropped with a reason that names its version.
 * Every libzmq since 4.0 (2013), JeroMQ since 0.3.5 and pyzmq speak 3.x, so only libzmq 3.2 and older
 * are affected. A peer whose first bytes are a TLS record (0x15 or 0x16, then 0x03) is refused as a TLS
 * peer, so that a socket without TLS that meets one says so.
 */
final class ZmtpGreeting {

    /** The greeting's length. */
    static final int LENGTH = 64;
    /** The bytes up to and including the major version. */
    static final int VERSION_MAJOR_OFFSET = 10;
    static final int VERSION_MINOR_OFFSET = 11;
    static final int MECHANISM_OFFSET = 12;
    static final int MECHANISM_LENGTH = 20;
    static final int AS_SERVER_OFFSET = 32;
    /** The minor version this engine speaks: 3.1 (RFC 37). */
    static final int OUR_MINOR = 1;

    private ZmtpGreeting() {
    }

    /** Writes our greeting announcing {@code mechanism} (at most 20 ASCII bytes). */
    static void write(ByteBuf out, String mechanism, boolean asServer) {
        byte[] name = mechanism.getBytes(StandardCharsets.US_ASCII);
        out.writeByte(0xFF);
        out.writeZero(8);
        out.writeByte(0x7F);
        out.writeByte(3);
        out.writeByte(OUR_MINOR);
        out.writeBytes(name);
        out.writeZero(MECHANISM_LENGTH - name.length);
        out.writeByte(asServer ? 1 : 0);
        out.writeZero(31);
    }

    /**
     * Checks the part of a peer's greeting that has arrived: the {@code available} bytes from
     * {@code offset} (possibly fewer than 64).
     *
     * @throws ZmtpProtocolException if those bytes cannot begin a ZMTP 3.x greeting
     */
    static void check(ByteBuf in, int offset, int available) throws ZmtpProtocolException {
        int first = available >= 1 ? in.getUnsignedByte(offset) : 0xFF;
        if (first == 0x15 || first == 0x16) { // a TLS alert or handshake record (RFC 8446 5.1), version 3.x next
            if (available < 2) {
                return;
            }
            if (in.getUnsignedByte(offset + 1) == 0x03) {
                throw new ZmtpProtocolException("the peer speaks TLS (a TLS " + (first == 0x16 ? "handshake" : "alert")
                        + " record where ZMTP's greeting belongs): give this socket a TLS context"
                        + " (ZmqSocket.setTls) as the peer has", false);
            }
        }
        if (first != 0xFF) {
            throw new ZmtpProtocolException("ZMTP 1.0 peer refused (first byte 0x"
                    + Integer.toHexString(in.getUnsignedByte(offset)) + ", not the 3.x signature's 0xFF):"
                    + " this engine speaks ZMTP 3.0/3.1 only", false);
        }
        if (available >= 10 && (in.getByte(offset + 9) & 0x01) == 0) {
            throw new ZmtpProtocolException("ZMTP 1.0 peer refused (signature byte 9 is 0x"
                    + Integer.toHexString(in.getUnsignedByte(offset + 9)) + ", not 0x7F):"
                    + " this engine speaks ZMTP 3.0/3.1 only", false);
        }
        if (available > VERSION_MAJOR_OFFSET) {
            int major = in.getUnsignedByte(offset + VERSION_MAJOR_OFFSET);
            if (major < 3) {
                throw new ZmtpProtocolException("ZMTP " + (major + 1) + ".0 peer refused (version major "
                        + major + "): this engine speaks ZMTP 3.0/3.1 only", false);
            }
        }
    }

    /** The minor version the connection speaks with a peer whose greeting is at {@code offset}: the lower one. */
    static int negotiatedMinor(ByteBuf in, int offset) {
        int major = in.getUnsignedByte(offset + VERSION_MAJOR_OFFSET);
        int minor = in.getUnsignedByte(offset + VERSION_MINOR_OFFSET);
        return major > 3 ? OUR_MINOR : Math.min(minor, OUR_MINOR);
    }

    /**
     * The peer's mechanism name for a reason: its 20 bytes without the trailing NULs, every byte that is
     * not printable ASCII (an interior NUL included) escaped as {@code \xNN}.
     */
    static String mechanism(ByteBuf in, int offset) {
        int base = offset + MECHANISM_OFFSET;
        int end = MECHANISM_LENGTH;
        while (end > 0 && in.getByte(base + end - 1) == 0) {
            end--;
        }
        StringBuilder sb = new StringBuilder(end);
        for (int i = 0; i < end; i++) {
            int b = in.getUnsignedByte(base + i);
            if (b >= 0x20 && b < 0x7F) {
                sb.append((char) b);
            } else {
                sb.append(String.format("\\x%02x", b));
            }
        }
        return sb.toString();
    }

    /** Whether the peer's 20 mechanism bytes are exactly {@code name} NUL-padded, as libzmq compares them. */
    static boolean mechanismIs(ByteBuf in, int offset, String name) {
        for (int i = 0; i < MECHANISM_LENGTH; i++) {
            int expected = i < name.length() ? name.charAt(i) : 0;
            if (in.getUnsignedByte(offset + MECHANISM_OFFSET + i) != expected) {
                return false;
            }
        }
        return true;
    }
}
