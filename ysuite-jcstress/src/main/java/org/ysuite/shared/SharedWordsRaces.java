package org.ysuite.shared;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.internal.Futex;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * {@link SharedYPipe}'s shared-memory protocol: the steps of {@link SharedWords} (the very methods
 * the pipe calls: publish a position, look at the peer's sleep counter and wake it; arm a sleep
 * and look at the position again) on the header words of a slot of a memory-mapped file, as two
 * processes would run them. In package {@code org.ysuite} because SharedWords is package-private
 * (the races run on the class path, where a split package is fine).
 *
 * <p>Each state takes a fresh 1024-byte slot of one file mapped once per VM, laid out as the
 * pipe file's header ({@code c} at 128, {@code head} at 256, the sleep counters and wake words at
 * 384/392 and 512/520, the writer's state at 64), plus a "payload" long at 768 standing for the
 * ring's bytes; zeroed: positions 0, nobody asleep.
 */
public final class SharedWordsRaces {

    /** Upper bound of a futex sleep in an actor: a wait that lasts it slept through its wake-up. */
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final int PAYLOAD_AT = 768;
    static final long PAYLOAD = 0x5EED_F00DL;
    /** The flushed end of the one 8-byte "record". */
    static final long F = 8;

    private SharedWordsRaces() {
    }

    /** 1024-byte slots: the header's words up to the payload long at 768. */
    static final MappedSlots SLOTS = new MappedSlots(1024, 1 << 14);

    /** A slot, and both sides' sleeps and wakes over it, as the pipe builds them. */
    abstract static class Base {
        final ByteBuffer shared = SLOTS.next();
        final long base = Futex.address(shared);
        final SharedWords.Sleep readerSleep =
                new SharedWords.Sleep(shared, SharedPipeDescriptor.READER_SLEEP_AT, SharedPipeDescriptor.READER_WAKE_AT);
        final SharedWords.Wake writerWakesReader = new SharedWords.Wake(shared, SharedPipeDescriptor.READER_SLEEP_AT,
                SharedPipeDescriptor.READER_WAKE_AT, base + SharedPipeDescriptor.READER_WAKE_AT);
        final SharedWords.Sleep writerSleep =
                new SharedWords.Sleep(shared, SharedPipeDescriptor.WRITER_SLEEP_AT, SharedPipeDescriptor.WRITER_WAKE_AT);
        final SharedWords.Wake readerWakesWriter = new SharedWords.Wake(shared, SharedPipeDescriptor.WRITER_SLEEP_AT,
                SharedPipeDescriptor.WRITER_WAKE_AT, base + SharedPipeDescriptor.WRITER_WAKE_AT);

        /** The writer's record: a plain store, published by the flush. */
        void writeRecord() {
            shared.putLong(PAYLOAD_AT, PAYLOAD);
        }

        /** 1 if the record's bytes are visible (read plainly after a load of c that saw F). */
        int recordVisible() {
            return shared.getLong(PAYLOAD_AT) == PAYLOAD ? 1 : 0;
        }

        /** The writer's flush of [0, F): c, then the look at the reader's sleep counter. */
        boolean flush() {
            SharedWords.publish(shared, SharedPipeDescriptor.C_AT, F);
            return writerWakesReader.ifAsleep();
        }

        /** The reader finding nothing at 0: arm, then c again; the end it saw. */
        long readerLooksThenArms() {
            long seen = SharedWords.position(shared, SharedPipeDescriptor.C_AT);
            if (seen == 0) {
                readerSleep.arm();
                seen = SharedWords.positionAfterArm(shared, SharedPipeDescriptor.C_AT);
            }
            return seen;
        }
    }

    /**
     * The writer's flush of one record racing the reader that finds nothing and arms its sleep.
     * r1 = 1 if the flush found the reader awake, r2 = 1 if the reader saw the record (else it
     * would sleep), r3 = 1 if it saw the record's bytes.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the flush came first: the reader saw the record, no wake-up")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "both saw the other: the reader saw the record, one spare wake-up")
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the reader armed first: the flush saw it and woke it")
    @Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: the reader sleeps, the flush thought it awake")
    @Outcome(expect = FORBIDDEN, desc = "the reader saw c but not the record's bytes, or worse")
    @State
    public static class FlushVsSleep extends Base {
        @Actor
        public void writer(III_Result r) {
            writeRecord();
            r.r1 = flush() ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            if (readerLooksThenArms() == F) {
                r.r2 = 1;
                r.r3 = recordVisible();
            }
        }
    }

    /**
     * The same race with the futex: a reader that armed sleeps in FUTEX_WAIT on readerWake
     * (expecting the value its arm read) until c moves, at most 5 s; the flush wakes it. r1 = 1
     * if the reader got the record with its bytes, r2 = 1 if it slept the whole 5 s.
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the reader got the record, awake or woken in time")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "SLEPT THROUGH the flush's FUTEX_WAKE")
    @Outcome(expect = FORBIDDEN, desc = "the reader never got the record")
    @State
    public static class FutexWaitVsFlushWake extends Base {
        private final Futex futex = new Futex();

        @Actor
        public void writer() {
            writeRecord();
            flush();
        }

        @Actor
        public void reader(II_Result r) {
            long start = System.nanoTime();
            long seen = readerLooksThenArms();
            while (seen == 0) {
                long left = TIMEOUT_NANOS - (System.nanoTime() - start);
                if (left <= 0) {
                    break;
                }
                futex.await(base + SharedPipeDescriptor.READER_WAKE_AT, readerSleep.seq(), left);
                seen = readerLooksThenArms();
            }
            r.r1 = seen == F ? recordVisible() : 0;
            r.r2 = System.nanoTime() - start >= TIMEOUT_NANOS ? 1 : 0;
        }
    }

    /**
     * The reader's head publication racing a writer that finds no room at head 0 and arms its
     * sleep. r1 = 1 if the reader found the writer armed (and woke it); r2 = 1 if the writer,
     * after arming, still saw head 0 (it would sleep), 2 if it saw the new head at once, 3 if it
     * saw it after arming.
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the writer armed first: the reader saw it and woke it")
    @Outcome(id = {"0, 2", "0, 3", "1, 3"}, expect = ACCEPTABLE, desc = "the writer saw the room (maybe a spare wake-up)")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: the writer sleeps, the reader missed its arm")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class HeadVsWaitingWriter extends Base {
        @Actor
        public void reader(II_Result r) {
            SharedWords.publish(shared, SharedPipeDescriptor.HEAD_AT, F);
            r.r1 = readerWakesWriter.ifAsleep() ? 0 : 1;
        }

        @Actor
        public void writer(II_Result r) {
            if (SharedWords.position(shared, SharedPipeDescriptor.HEAD_AT) >= F) {
                r.r2 = 2;
                return;
            }
            writerSleep.arm();
            r.r2 = SharedWords.positionAfterArm(shared, SharedPipeDescriptor.HEAD_AT) == F ? 3 : 1;
        }
    }

    /**
     * The writer's close (CLOSED stored, then readerWake bumped and woken, as the pipe's close
     * does) racing a reader that finds nothing, arms, reads the writer's state and, if it is not
     * CLOSED, sleeps in FUTEX_WAIT at most 5 s. r1 = 1 if the reader saw CLOSED before sleeping,
     * r2 = 1 if it slept the whole 5 s.
     */
    @JCStressTest
    @Outcome(id = {"1, 0", "0, 0"}, expect = ACCEPTABLE, desc = "the reader saw the close, or was woken by it")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "SLEPT THROUGH the close")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class CloseVsSleep extends Base {
        private final Futex futex = new Futex();

        @Actor
        public void writer() {
            SharedPipeDescriptor.INT.setRelease(shared, SharedPipeDescriptor.WRITER_AT, SharedPipeDescriptor.CLOSED); // markClosed
            writerWakesReader.always();
        }

        @Actor
        public void reader(II_Result r) {
            long start = System.nanoTime();
            if (readerLooksThenArms() != 0) {
                r.r1 = 2; // nothing is ever flushed here
                return;
            }
            if ((int) SharedPipeDescriptor.INT.getAcquire(shared, SharedPipeDescriptor.WRITER_AT) == SharedPipeDescriptor.CLOSED) {
                r.r1 = 1;
                return;
            }
            futex.await(base + SharedPipeDescriptor.READER_WAKE_AT, readerSleep.seq(), TIMEOUT_NANOS);
            r.r2 = System.nanoTime() - start >= TIMEOUT_NANOS ? 1 : 0;
        }
    }
}
