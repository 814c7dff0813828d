package org.ysuite.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YPollset;

/**
 * YMailbox: a writer's send racing {@link YMailbox#close()} (the CAS of each pipe's {@code c} to
 * CLOSED against the flush's CAS). r1: 1 if the send was accepted, 0 if it was rejected. r2: the
 * messages the reader gets after the close (poll until it returns 0). An accepted message must be
 * delivered, a rejected one never.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "sent before the close: delivered")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "closed first: rejected, not delivered")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "LOST: accepted but never delivered")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "rejected, yet delivered")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class YMailboxCloseVsSend {

    private final YMailbox<Integer> mailbox = new YMailbox<>(new YPollset(), WaitPolicy.purePark());
    private final YMailbox.Writer<Integer> writer = mailbox.newWriter();

    @Actor
    public void writer(II_Result r) {
        try {
            writer.send(1);
            r.r1 = 1;
        } catch (IllegalStateException closed) {
            r.r1 = 0;
        }
    }

    @Actor
    public void closer() {
        mailbox.close();
    }

    @Arbiter
    public void reader(II_Result r) {
        int[] got = new int[1];
        try {
            while (mailbox.poll(m -> got[0]++) > 0) {
                // drain
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        r.r2 = got[0];
    }
}
