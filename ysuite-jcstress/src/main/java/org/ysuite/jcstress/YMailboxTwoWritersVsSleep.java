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
 * YMailbox over its YPollset: two writers (two pipes, two signal ids; driven from one actor thread
 * so that the race fits two CPUs) each sending one message, racing the reader draining until it
 * finds nothing, i.e. until it is asleep on every pipe. The arbiter is the reader's next
 * {@code poll} (bounded by {@link Seq#TIMEOUT_MS}): a message the reader did not get must be
 * reachable by it — a pipe asleep and not signalled with a message in it is the lost wake-up.
 *
 * <p>r1 = messages (as a bit mask: writer A = 1, B = 2) the racing reader got, r2 = the mask the
 * next poll got, r3 = how many messages in all (2, or duplicates were delivered).
 */
@JCStressTest
@Outcome(id = {"3, 0, 2", "1, 2, 2", "2, 1, 2", "0, 3, 2"}, expect = ACCEPTABLE, desc = "both messages, once each, whoever got them")
@Outcome(id = {"0, 0, 0", "1, 0, 1", "2, 0, 1", "0, 1, 1", "0, 2, 1"}, expect = FORBIDDEN, desc = "LOST WAKE-UP: a message stranded behind a sleeping reader")
@Outcome(expect = FORBIDDEN, desc = "message duplicated or corrupted")
@State
public class YMailboxTwoWritersVsSleep {

    private final YMailbox<Integer> mailbox = new YMailbox<>();
    private final YMailbox.Writer<Integer> a = mailbox.newWriter();
    private final YMailbox.Writer<Integer> b = mailbox.newWriter();
    private int got;
    private int after;
    private int count;

    @Actor
    public void writers() {
        a.send(1);
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
