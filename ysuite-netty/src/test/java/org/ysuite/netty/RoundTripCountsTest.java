package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The wake-ups of a 16 B request/response, counted (not timed): per round trip, how often each
 * side's loop was woken by its writers' mailbox and how often each side's reader went to sleep.
 * The passive protocol bounds both at one per message; the counts are printed for
 * docs/network.md.
 */
@Timeout(120)
class RoundTripCountsTest {

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void aRoundTripWakesEachSideAtMostOncePerHop(Transport t) throws Exception {
        int rounds = 20_000;
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t, b -> { })) {
            AtomicReference<Throwable> error = new AtomicReference<>();
            Thread echo = MessageStreamTest.echo(p.accepted, error);
            MessageWriter w = p.client.newWriter();
            byte[] msg = new byte[16];
            byte[] in = new byte[16];
            for (int i = 0; i < rounds; i++) {
                msg[0] = (byte) i;
                w.send(msg, 0, 16);
                assertEquals(16, p.client.receive(in));
                assertEquals((byte) i, in[0]);
            }
            p.client.close();
            MessageStreamTest.join(echo);
            assertNull(error.get());
            double clientLoop = p.client.outboundWakeups() / (double) rounds;
            double serverLoop = p.accepted.outboundWakeups() / (double) rounds;
            double clientReader = p.client.readerWaits() / (double) rounds;
            double serverReader = p.accepted.readerWaits() / (double) rounds;
            System.out.printf(Locale.ROOT, "[round-trip counts] %s, %d round trips of 16 B: per round trip,"
                    + " client loop woken by its writer %.3f, server loop woken by its writer %.3f,"
                    + " client reader slept %.3f, server reader slept %.3f%n",
                    t, rounds, clientLoop, serverLoop, clientReader, serverReader);
            assertTrue(clientLoop <= 1.0 + 2.0 / rounds && serverLoop <= 1.0 + 2.0 / rounds, "more loop wake-ups than messages");
            assertTrue(clientReader <= 1.0 && serverReader <= 1.0 + 1.0 / rounds, "more reader sleeps than messages");
        }
    }
}
