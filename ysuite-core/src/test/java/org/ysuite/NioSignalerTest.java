package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** The selector side of {@link NioSignaler}. */
class NioSignalerTest {

    @Test
    void channelIsSelectableArmedByAnEmptyCheckAndLevelTriggered() throws IOException {
        try (NioSignaler s = new NioSignaler(); Selector selector = Selector.open()) {
            assertFalse(s.channel().isBlocking());
            SelectionKey key = s.channel().register(selector, SelectionKey.OP_READ);
            assertEquals(0, selector.selectNow());
            assertEquals(0, s.check(id -> { }));
            s.signal(42);
            assertEquals(1, selector.select(5_000));
            assertTrue(selector.selectedKeys().contains(key));
            selector.selectedKeys().clear();
            assertEquals(1, selector.selectNow(), "level-triggered: selected again until drained");
            selector.selectedKeys().clear();
            BitSet got = new BitSet();
            assertEquals(1, s.check(got::set));
            assertTrue(got.get(42));
            assertEquals(0, selector.selectNow(), "the drain read the wake-up back");
            s.signal(1); // busy owner: no wake-up written
            assertEquals(0, selector.selectNow());
            assertEquals(1, s.check(id -> { }));
        }
    }

    @Test
    void aSignallerWithItsInterruptStatusSetDoesNotBreakThePipe() throws IOException {
        try (NioSignaler s = new NioSignaler(); Selector selector = Selector.open()) {
            s.channel().register(selector, SelectionKey.OP_READ);
            assertEquals(0, s.check(id -> { }));
            Thread.currentThread().interrupt();
            s.signal(17); // writes the wake-up with the interrupt status set
            assertTrue(Thread.interrupted(), "interrupt status preserved");
            assertTrue(s.channel().isOpen());
            assertEquals(1, selector.select(5_000));
            BitSet got = new BitSet();
            assertEquals(1, s.check(got::set));
            assertTrue(got.get(17));
        }
    }

    @Test
    void channelAfterCloseIsAnErrorAndThePipeIsClosed() {
        NioSignaler s = new NioSignaler();
        var ch = s.channel();
        s.close();
        assertFalse(ch.isOpen());
        assertThrows(IllegalStateException.class, s::channel);
    }
}
