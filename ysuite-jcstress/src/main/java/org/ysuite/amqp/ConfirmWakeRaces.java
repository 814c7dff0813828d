package org.ysuite.amqp;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The jcstress race of {@link ConfirmWake}: the publisher's thread about to sleep on a full
 * confirm window while the connection's thread settles confirms. In the package
 * {@code org.ysuite.amqp} (in this module's jar) because {@code ConfirmWake} and
 * {@link ConfirmLedger} are package-private there; it opens no connection.
 */
public final class ConfirmWakeRaces {

    /** The confirm window: 32 slots, so {@link ConfirmWake#resumeRoom} is 2. */
    static final int WINDOW = 32;

    private ConfirmWakeRaces() {
    }

    /**
     * A real {@link ConfirmLedger} of {@link #WINDOW} slots, all published (room 0), and a real
     * {@link ConfirmWake} of the same window (resume at 2 free slots). The publisher's thread, as
     * {@code AmqpPublisher.sleep} runs it: {@link ConfirmWake#want}, then looks at the ledger's room
     * (r1 = 1: room enough, it would not sleep). Racing it, the connection's thread, as
     * {@code AmqpPublisher.answered} runs it for two single acks: {@link ConfirmLedger#answer} of tag
     * 1, then {@link ConfirmWake#wakes} (r2 = 1: it would wake the publisher), the same for tag 2 (r3).
     *
     * <p>Acceptable: the publisher saw the room, or the second confirm (the one making room 2) woke
     * it, or both. Forbidden: neither (a lost wake-up: the publisher would sleep on a window with
     * room, and nothing would wake it once the broker has answered all), and a wake at the first
     * confirm (room 1, under the resume threshold).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the publisher looked after both confirms: no sleep, no wake")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "the publisher looked first: the second confirm wakes it")
    @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "both: the publisher saw the room and is woken too")
    @Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: no room seen, no wake")
    @Outcome(expect = FORBIDDEN, desc = "woken at the first confirm, under the resume threshold")
    @State
    public static class ConfirmsVsSleep {
        final ConfirmLedger ledger = new ConfirmLedger(WINDOW);
        final ConfirmWake wake = new ConfirmWake(WINDOW, AmqpPublisherBuilder.MAX_BATCH);

        public ConfirmsVsSleep() {
            PublisherWriter writer = new PublisherWriter(null, null, null, null, 0); // settle() needs no more
            for (int i = 0; i < WINDOW; i++) {
                ledger.record(writer);
            }
        }

        @Actor
        public void publisher(III_Result r) {
            wake.want();
            r.r1 = ledger.room() >= wake.resumeRoom ? 1 : 0;
        }

        @Actor
        public void connection(III_Result r) {
            ledger.answer(1, false, true);
            r.r2 = wake.wakes(ledger, false) ? 1 : 0;
            ledger.answer(2, false, true);
            r.r3 = wake.wakes(ledger, false) ? 1 : 0;
        }
    }
}
