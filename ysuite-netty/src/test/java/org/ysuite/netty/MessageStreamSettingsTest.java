package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ysuite.WaitPolicy;

/** The settings added for the fast paths: the reader's spin and a wait policy per writer. */
@Timeout(120)
class MessageStreamSettingsTest {

    /** An adaptive policy keeps its waiter's state: every writer gets one of its own. */
    @Test
    void eachWriterGetsAPolicyOfItsOwn() throws Exception {
        List<WaitPolicy> given = new ArrayList<>();
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(Transport.NIO, b -> b.writerWaitPolicy(() -> {
            WaitPolicy w = WaitPolicy.adaptive();
            given.add(w);
            return w;
        }), b -> { }, 0)) {
            for (int i = 0; i < 3; i++) {
                p.client.newWriter().send(new byte[] {(byte) i}, 0, 1);
            }
            assertEquals(3, given.size(), "policies made for 3 writers");
            IdentityHashMap<WaitPolicy, Boolean> distinct = new IdentityHashMap<>();
            given.forEach(w -> distinct.put(w, true));
            assertEquals(3, distinct.size(), "the writers share a policy");
            byte[] in = new byte[1];
            for (int i = 0; i < 3; i++) {
                assertEquals(1, p.accepted.receive(in));
            }
        }
    }

    @Test
    void badSettingsNameTheArgumentAndTheLimit() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MessageStream.builder().readerSpin(-1));
        assertTrue(e.getMessage().contains("readerSpin must be from 0 to 1000000 ns, not -1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> MessageStream.builder().readerSpin(MessageStreamBuilder.MAX_READER_SPIN_NANOS + 1));
        assertTrue(e.getMessage().contains("not 1000001"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> MessageStream.builder().replySpin(MessageStreamBuilder.MAX_READER_SPIN_NANOS + 1));
        assertTrue(e.getMessage().contains("replySpin must be from 0 to 1000000 ns, not 1000001"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MessageStream.builder().loopLinger(-1));
        assertTrue(e.getMessage().contains("loopLinger must be from 0 to 1000000 ns, not -1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MessageStream.builder().lingerMillis(-1));
        assertTrue(e.getMessage().contains("lingerMillis must be from 0 to 3600000 ms, not -1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> MessageStream.builder().lingerMillis(Long.MAX_VALUE)); // close's wait would overflow
        assertTrue(e.getMessage().contains("not 9223372036854775807"), e.getMessage());
        MessageStream.builder().lingerMillis(MessageStreamBuilder.MAX_LINGER_MILLIS);
        NullPointerException n = assertThrows(NullPointerException.class,
                () -> MessageStream.builder().writerWaitPolicy(null));
        assertEquals("policies", n.getMessage());
    }
}
