package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
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

    /** As YSocketPairTest's native-poller test, with a JDK Selector waiting on channel(). */
    @Test
    void aSelectorFollowingTheRuleNeverMissesAWakeup() {
        assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            try (NioSignaler s = new NioSignaler(); Selector selector = Selector.open()) {
                s.channel().register(selector, SelectionKey.OP_READ);
                final int rounds = 10_000;
                AtomicIntegerArray pending = new AtomicIntegerArray(2);
                AtomicIntegerArray returned = new AtomicIntegerArray(2);
                AtomicBoolean stop = new AtomicBoolean();
                Thread[] signallers = new Thread[2];
                for (int t = 0; t < 2; t++) {
                    final int id = t * 200;
                    final int slot = t;
                    signallers[t] = new Thread(() -> {
                        for (int r = 0; r < rounds && !stop.get(); r++) {
                            returned.set(slot, 0);
                            pending.set(slot, 1);
                            s.signal(id);
                            returned.set(slot, 1); // this round's signal() has returned
                            while (pending.get(slot) != 0 && !stop.get()) {
                                Thread.yield();
                            }
                        }
                    });
                    signallers[t].start();
                }
                int[] delivered = new int[1];
                int sleeps = 0;
                try {
                    while (delivered[0] < 2 * rounds) {
                        int n = s.check(id -> {
                            assertEquals(1, pending.getAndSet(id / 200, 0), "id " + id + " without a fire");
                            delivered[0]++;
                        });
                        if (n == 0) {
                            sleeps++;
                            int ready = selector.select(5_000);
                            selector.selectedKeys().clear();
                            if (ready == 0) {
                                // Timed out. A signal whose signal() returned before now and that
                                // the owner has not taken must have made the channel readable.
                                boolean owed = YSocketPairTest.owed(pending, returned);
                                ready = selector.selectNow();
                                selector.selectedKeys().clear();
                                assertTrue(ready != 0 || !owed,
                                        "lost wake-up: a signal was sent and not taken, the channel is not readable");
                            }
                        }
                    }
                } finally {
                    stop.set(true);
                    for (Thread t : signallers) {
                        t.join(10_000);
                    }
                }
                assertEquals(2 * rounds, delivered[0]);
                assertTrue(sleeps > 0, "the owner never selected: test is void");
            }
        });
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
