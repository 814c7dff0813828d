package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8Test {
    @Test
    void sameBytesAsGetBytes() {
        for (String s : new String[] {"", "orders.eu", "caf\u00e9", "\u20ac\u4e2d", "\ud83d\ude00x",
                "lone\ud800", "\udc00end", "\u007f\u0080\u07ff\u0800\uffff"}) {
            byte[] expected = s.getBytes(StandardCharsets.UTF_8);
            assertEquals(expected.length, Utf8.length(s), s);
            ByteBuffer buf = ByteBuffer.allocate(expected.length + 2);
            assertEquals(1 + expected.length, Utf8.put(buf, 1, s));
            byte[] got = new byte[expected.length];
            buf.get(1, got);
            assertArrayEquals(expected, got, s);
        }
    }
}
