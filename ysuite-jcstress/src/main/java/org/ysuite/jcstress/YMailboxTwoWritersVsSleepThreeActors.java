package org.ysuite.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.ysuite.YMailbox;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * YMailbox, three actors (needs three CPUs): two writer threads each sending one message,
 * racing each other (both fire ids of the one YPollset word) and the reader going to sleep. As
 * {@link YMailboxTwoWritersVsSleep}: the next poll must reach whatever the racing reader missed.
 */
@JCStressTest
@Outcome(id = {"3, 0, 2", "1, 2, 2", "2, 1, 2", "0, 3, 2"}, expect = ACCEPTABLE, desc = "both messages, once each")
@Outcome(expect = FORBIDDEN, desc = "LOST WAKE-UP (a message stranded) or a duplicate")
@State
public class YMailboxTwoWritersVsSleepThreeActors {

    private final YMailbox<Integer> mailbox = new YMailbox<>();
    private final YMailbox.Writer<Integer> a = mailbox.newWriter();
    private final YMailbox.Writer<Integer> b = mailbox.newWriter();
    private int got;
    private int after;
    private int count;

    @Actor
    public void writerA() {
        a.send(1);
    }

    @Actor
    public void writerB() {
        b.send(2);
    }

    @Actor
    public void reader(III_Result r) {
        while (mailbox.check(v -> {
            got |= v;
            count++;
        }) > 0) {
            // until nothing: asleep on every pipe
        }
        r.r1 = got;
    }

    @Arbiter
    public void nextPoll(III_Result r) {
        try {
            while ((got | after) != 3 && mailbox.poll(v -> {
                after |= v;
                count++;
            }, Seq.TIMEOUT_MS, Seq.UNIT) > 0) {
                // until both are in, or the poll times out
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        r.r2 = after;
        r.r3 = count;
    }
}
