package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * The ledger's settling in tag order, with the answers in the orders brokers send them (Broker-J
 * acks single tags out of order). The ledger alone: the writers here have no pipe.
 */
class ConfirmLedgerTest {

    private static PublisherWriter writer(Fates fates) {
        return new PublisherWriter(null, null, null, fates, 0);
    }

    @Test
    void outOfOrderSingleAcksSettleEverythingOnceTheGapCloses() {
        ConfirmLedger ledger = new ConfirmLedger(8);
        Fates fates = new Fates(3);
        PublisherWriter w = writer(fates);
        for (int i = 0; i < 3; i++) {
            ledger.record(w);
        }
        ledger.answer(3, false, true);
        ledger.answer(2, false, false);
        assertEquals(0, w.settled()); // tag 1 is unanswered: nothing settles past it
        ledger.answer(1, false, true);
        assertEquals(3, w.settled());
        assertEquals(Fate.CONFIRMED, fates.bySequence[1]);
        assertEquals(Fate.NACKED, fates.bySequence[2]);
        assertEquals(Fate.CONFIRMED, fates.bySequence[3]);
        assertEquals(0, ledger.outstanding());
        assertNull(fates.error.get());
    }

    @Test
    void multipleAckReturnAndLossSettleInOrderPerWriter() {
        ConfirmLedger ledger = new ConfirmLedger(4);
        Fates a = new Fates(4);
        Fates b = new Fates(4);
        PublisherWriter wa = writer(a);
        PublisherWriter wb = writer(b);
        ledger.record(wa); // 1
        ledger.record(wb); // 2
        ledger.record(wa); // 3
        ledger.record(wb); // 4
        assertEquals(0, ledger.room());
        ledger.returned(2);
        ledger.answer(2, true, true);
        assertEquals(2, ledger.room());
        ledger.record(wa); // 5, in slot 1 again
        ledger.answer(4, false, true);
        ledger.settleAll(); // the channel went down: 3 and 5 were never answered
        assertEquals(Fate.CONFIRMED, a.bySequence[1]);
        assertEquals(Fate.LOST, a.bySequence[2]);
        assertEquals(Fate.LOST, a.bySequence[3]);
        assertEquals(Fate.RETURNED, b.bySequence[1]);
        assertEquals(Fate.CONFIRMED, b.bySequence[2]);
        assertEquals(3, wa.settled());
        assertEquals(2, wb.settled());
        assertEquals(2, wa.lost());
        assertNull(a.error.get());
        assertNull(b.error.get());
        ledger.answer(5, true, true); // a late answer after the loss changes nothing
        assertEquals(2, wa.lost());
    }
}
