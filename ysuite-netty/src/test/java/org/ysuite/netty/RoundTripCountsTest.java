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

    /**
     * Round trips per test: {@code -Dysuite.netty.roundTrips=N}, default (what CI runs) 5,000. The
     * bounds are per message, so a loop or reader that wakes twice per hop exceeds them within a
     * few rounds; on a machine with more runnable threads than CPUs each round trip waits for the
     * scheduler, which is what the count must stay far below the timeout for.
     */
    static final int ROUNDS = Integer.getInteger("ysuite.netty.roundTrips", 5_000);

    /**
     * Also: the client's loop lingers for its reader's next request. The client reader spins up
     * to 1 ms for each reply (the longest replySpin), so it is awake when the loop hands it the
     * reply, and the loop queues its linger then (counted, not timed: whether a linger ends with
     * the next request depends on timing, so hits are printed only).
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void aRoundTripWakesEachSideAtMostOncePerHop(Transport t) throws Exception {
        int rounds = ROUNDS;
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t,
                b -> b.replySpin(MessageStreamBuilder.MAX_READER_SPIN_NANOS))) {
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
            double clientReader = p.client.readerWaits() / (double) rounds; // parks
            double serverReader = p.accepted.readerWaits() / (double) rounds;
            System.out.printf(Locale.ROOT, "[round-trip counts] %s, %d round trips of 16 B: per round trip,"
                    + " client loop woken by its writer %.3f, server loop woken by its writer %.3f,"
                    + " client reader slept %.3f, server reader slept %.3f%n",
                    t, rounds, clientLoop, serverLoop, clientReader, serverReader);
            assertTrue(clientLoop <= 1.0 + 2.0 / rounds && serverLoop <= 1.0 + 2.0 / rounds, "more loop wake-ups than messages");
            assertTrue(clientReader <= 1.0 && serverReader <= 1.0 + 1.0 / rounds, "more reader sleeps than messages");
            assertConsistent(p.client.readerWait(), rounds);
            LoopLinger linger = p.client.loopLinger();
            System.out.printf(Locale.ROOT, "[round-trip counts] %s: client loop lingered %d times, %d ended with"
                    + " the next request%n", t, linger.lingers(), linger.hits());
            assertTrue(linger.lingers() > 0, "the client's loop never lingered for its spinning reader");
            assertTrue(linger.lingers() <= rounds, "more lingers (" + linger.lingers() + ") than replies");
        }
    }

    /**
     * The same round trips against a server that answers on its loop
     * ({@link MessageStreamBuilder#onLoop}): the server side wakes no thread but its loop, by the
     * socket (its writers' mailbox never fires, it has no reader). How often the spinning client
     * reader still sleeps depends on timing: printed, not asserted (the benchmark's figure).
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void anOnLoopServerWakesNoThreadOfItsOwn(Transport t) throws Exception {
        int rounds = ROUNDS;
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t, b -> { },
                b -> b.onLoop((buffer, offset, length, reply) -> reply.send(buffer, offset, length)), 0)) {
            MessageWriter w = p.client.newWriter();
            byte[] msg = new byte[16];
            byte[] in = new byte[16];
            for (int i = 0; i < rounds; i++) {
                msg[0] = (byte) i;
                w.send(msg, 0, 16);
                assertEquals(16, p.client.receive(in));
                assertEquals((byte) i, in[0]);
            }
            ReaderWait client = p.client.readerWait();
            System.out.printf(Locale.ROOT, "[round-trip counts] %s, on-loop server, %d round trips of 16 B: per round"
                    + " trip, client loop woken by its writer %.3f, client reader waited %.3f, slept %.3f;"
                    + " server loop woken by its writers %d times, server reader waits %d%n",
                    t, rounds, p.client.outboundWakeups() / (double) rounds, client.waits() / (double) rounds,
                    client.sleeps() / (double) rounds, p.accepted.outboundWakeups(), p.accepted.readerWait().waits());
            assertEquals(0, p.accepted.outboundWakeups(), "the server's loop was woken by its writers' mailbox");
            assertEquals(0, p.accepted.readerWait().waits(), "a server reader waited");
            assertConsistent(client, rounds);
        }
    }

    /** A reader's counters: at most one wait per message, and a sleep only in a wait. */
    private static void assertConsistent(ReaderWait r, int rounds) {
        assertTrue(r.waits() <= rounds, "more reader waits (" + r.waits() + ") than messages (" + rounds + ")");
        assertTrue(r.sleeps() <= r.waits(), "more sleeps (" + r.sleeps() + ") than waits (" + r.waits() + ")");
    }
}
