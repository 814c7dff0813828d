package org.ysuite.shared;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.internal.Futex;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * The pollable shared pipe's wake-up ({@link SharedPipeReader#prepareToPoll()} and the writer's
 * doorbell, {@link SharedPipeWakeFifo.WriterBell}) over the real {@link SharedWords} steps on a
 * mapped slot, with the FIFO modelled by a counter of bytes: the doorbell's write adds one, the
 * reader's drain takes them all (the FIFO's own lock makes both atomic), and the choice between the
 * futex and the FIFO made by the real {@link SharedPipeWakeFifo.WriterBell#how} logic over the
 * slot's {@code READER_POLLS_AT} word. The reader, which waited in the futex last, announces the
 * poll, drains, arms, looks at {@code c}; the writer publishes {@code c}, looks at the sleep
 * counter and wakes the way the word says.
 */
public final class PollableWakeRaces {

    private PollableWakeRaces() {
    }

    /**
     * r1 = 1 if the reader saw the flush (it reads, no poll), r2 = the bytes left in the FIFO
     * after both (what the reader's poll would find). A reader that saw nothing with an empty
     * FIFO would poll forever.
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the flush came first: the reader saw it, no byte")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both saw the other: the reader saw it, a spare byte")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the reader armed first: the byte wakes its poll")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: the reader polls an empty FIFO")
    @Outcome(expect = FORBIDDEN, desc = "more than one byte for one flush")
    @State
    public static class FlushVsPrepareToPoll {
        final ByteBuffer shared = SharedWordsRaces.SLOTS.next();
        final AtomicInteger fifo = new AtomicInteger(1); // a stale byte from an earlier wake-up
        final SharedWords.Sleep readerSleep =
                new SharedWords.Sleep(shared, SharedPipeDescriptor.READER_SLEEP_AT, SharedPipeDescriptor.READER_WAKE_AT);
        /** The writer's doorbell: the real choice, the FIFO modelled. */
        final SharedWords.Doorbell bell = new SharedWords.Doorbell() {
            @Override
            public int how(boolean always) {
                int mode = (int) SharedPipeDescriptor.INT.getVolatile(shared, SharedPipeDescriptor.READER_POLLS_AT);
                return SharedPipeWakeFifo.WriterBell.choose(mode, always);
            }

            @Override
            public boolean ring() {
                fifo.incrementAndGet();
                return true;
            }
        };
        final SharedWords.Wake writerWakesReader = new SharedWords.Wake(shared, SharedPipeDescriptor.READER_SLEEP_AT,
                SharedPipeDescriptor.READER_WAKE_AT, Futex.address(shared) + SharedPipeDescriptor.READER_WAKE_AT, bell);

        public FlushVsPrepareToPoll() {
            SharedPipeDescriptor.INT.setVolatile(shared, SharedPipeDescriptor.READER_POLLS_AT, SharedPipeWakeFifo.IN_FUTEX);
        }

        @Actor
        public void writer() {
            SharedWords.publish(shared, SharedPipeDescriptor.C_AT, SharedWordsRaces.F);
            writerWakesReader.ifAsleep();
        }

        @Actor
        public void reader(II_Result r) {
            SharedPipeDescriptor.INT.setVolatile(shared, SharedPipeDescriptor.READER_POLLS_AT, SharedPipeWakeFifo.IN_POLL);
            fifo.set(0); // the drain, before the arm
            readerSleep.arm();
            r.r1 = SharedWords.positionAfterArm(shared, SharedPipeDescriptor.C_AT) == SharedWordsRaces.F ? 1 : 0;
        }

        @Arbiter
        public void fifo(II_Result r) {
            r.r2 = fifo.get();
        }
    }
}
