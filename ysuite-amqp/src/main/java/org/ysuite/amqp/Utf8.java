package org.ysuite.amqp;

import java.nio.ByteBuffer;

/**
 * UTF-8 without allocation, for the exchange and routing key a writer puts into its pipe
 * ({@code String.getBytes} would allocate per message), and the check of an AMQP short string's
 * length. Same bytes as
 * {@code getBytes(StandardCharsets.UTF_8)}, a lone surrogate included (it becomes {@code '?'}).
 */
final class Utf8 {

    private Utf8() {
    }

    /** The most bytes of an AMQP short string (a queue's or exchange's name, a routing key). */
    static final int MAX_SHORT_STRING = 255;

    /**
     * Checks that {@code value}, the argument {@code name}, fits an AMQP short string.
     *
     * @return its length in UTF-8 bytes
     * @throws IllegalArgumentException naming the argument and the limit if it is longer than
     *     {@value #MAX_SHORT_STRING} UTF-8 bytes
     */
    static int shortString(String name, String value) {
        int n = length(value);
        if (n > MAX_SHORT_STRING) {
            throw new IllegalArgumentException(name + " is " + n + " UTF-8 bytes: at most "
                    + MAX_SHORT_STRING + " (an AMQP short string)");
        }
        return n;
    }

    /** The number of bytes {@code s} takes in UTF-8. */
    static int length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n++; // '?'
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** Writes {@code s} at {@code index} (absolute puts); returns the index after it. */
    static int put(ByteBuffer buf, int index, String s) {
        int at = index;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buf.put(at++, (byte) c);
            } else if (c < 0x800) {
                buf.put(at++, (byte) (0xC0 | (c >> 6)));
                buf.put(at++, (byte) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                buf.put(at++, (byte) (0xF0 | (cp >> 18)));
                buf.put(at++, (byte) (0x80 | ((cp >> 12) & 0x3F)));
                buf.put(at++, (byte) (0x80 | ((cp >> 6) & 0x3F)));
                buf.put(at++, (byte) (0x80 | (cp & 0x3F)));
            } else if (Character.isSurrogate(c)) {
                buf.put(at++, (byte) '?');
            } else {
                buf.put(at++, (byte) (0xE0 | (c >> 12)));
                buf.put(at++, (byte) (0x80 | ((c >> 6) & 0x3F)));
                buf.put(at++, (byte) (0x80 | (c & 0x3F)));
            }
        }
        return at;
    }
}
