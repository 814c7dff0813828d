package org.ysuite;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.ysuite.internal.Futex;

/**
 * {@link SharedYPipe}'s shared-memory protocol: the steps of {@link SharedWords} (the very methods
 * the pipe calls) on the header words of a slot of a memory-mapped file, as two processes would
 * run them. In package {@code org.ysuite} because SharedWords is package-private (the races run
 * on the class path, where a split package is fine).
 *
 * <p>Each state takes a fresh 512-byte slot of one file mapped once per VM ({@code c} at 128,
 * {@code head} at 256, a "payload" long at 384 standing for the ring's bytes), zeroed: positions
 * 0, nobody asleep.
 */
public final class SharedWordsRaces {

    /** Upper bound of a futex sleep in an actor: a wait that lasts it slept through its wake-up. */
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final int PAYLOAD_AT = 384;
    static final long PAYLOAD = 0x5EED_F00DL;
    /** The flushed end of the one 8-byte "record". */
    static final long F = 8;

    private SharedWordsRaces() {
    }

    /** Slots of one mapped file, handed out round robin (far more than the states alive at once). */
    static final class Slots {
        static final int SLOT = 512;
        static final int COUNT = 1 << 15;
        static final ByteBuffer MAP = map();
        static final AtomicInteger NEXT = new AtomicInteger();

        private static ByteBuffer map() {
            try {
                Path shm = Path.of("/dev/shm");
                Path file = Files.createTempFile(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                        "ysuite-jcstress", ".map");
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    return ch.map(FileChannel.MapMode.READ_WRITE, 0, (long) SLOT * COUNT)
                            .order(ByteOrder.nativeOrder());
                } finally {
                    Files.delete(file); // the mapping stays
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        static ByteBuffer next() {
            int i = NEXT.getAndIncrement() & (COUNT - 1);
            ByteBuffer slot = MAP.slice(i * SLOT, SLOT).order(ByteOrder.nativeOrder());
            for (int at = 0; at < SLOT; at += 8) {
                slot.putLong(at, 0L);
            }
            return slot;
        }
    }

    /** A slot, the futex addresses of its words (their low halves: little-endian platforms). */
    abstract static class Base {
        final ByteBuffer shared = Slots.next();
        final long cWord = Futex.address(shared) + SharedPipeFile.C_AT;
        final long headWord = Futex.address(shared) + SharedPipeFile.HEAD_AT;

        /** The writer's record: a plain store, published by the flush. */
        void writeRecord() {
            shared.putLong(PAYLOAD_AT, PAYLOAD);
        }

        /** 1 if the record's bytes are visible (read plainly after an acquire of c that saw F). */
        int recordVisible() {
            return shared.getLong(PAYLOAD_AT) == PAYLOAD ? 1 : 0;
        }
    }

    /**
     * The writer's flush of one record racing the reader's check-read that finds nothing and
     * goes to sleep (CAS of c to front|1). r1 = 1 if the flush found the reader awake, r2 = 1 if
     * the reader saw the record (else it went asleep), r3 = 1 if it saw the record's bytes.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the flush came first: the reader saw the record, no wake-up")
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the reader slept first: the flush found the bit and woke it")
    @Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "LOST WAKE-UP: the reader sleeps, the flush thought it awake")
    @Outcome(expect = FORBIDDEN, desc = "the reader saw c but not the record's bytes, or worse")
    @State
    public static class FlushVsSleep extends Base {
        @Actor
        public void writer(III_Result r) {
            writeRecord();
            r.r1 = SharedWords.flush(shared, cWord, 0, F) ? 1 : 0;
        }

        @Actor
        public void reader(III_Result r) {
            long seen = SharedWords.c(shared);
            if (seen == 0) {
                seen = SharedWords.sleep(shared, 0);
            }
            if (seen == F) {
                r.r2 = 1;
                r.r3 = recordVisible();
            }
        }
    }

    /**
     * The same race with the futex: a reader that went asleep sleeps in FUTEX_WAIT on c's low
     * half (expecting 1) until c changes, at most 5 s; the flush wakes it. r1 = 1 if the reader
     * got the record with its bytes, r2 = 1 if it slept the whole 5 s (slept through the wake).
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
            SharedWords.flush(shared, cWord, 0, F);
        }

        @Actor
        public void reader(II_Result r) {
            long start = System.nanoTime();
            long seen = SharedWords.c(shared);
            if (seen == 0) {
                seen = SharedWords.sleep(shared, 0);
            }
            while ((seen & ~SharedWords.ASLEEP) == 0) {
                long left = TIMEOUT_NANOS - (System.nanoTime() - start);
                if (left <= 0) {
                    break;
                }
                futex.await(cWord, (int) (seen | SharedWords.ASLEEP), left);
                seen = SharedWords.c(shared);
            }
            r.r1 = seen == F ? recordVisible() : 0;
            r.r2 = System.nanoTime() - start >= TIMEOUT_NANOS ? 1 : 0;
        }
    }

    /**
     * The reader's head publication (getAndSet) racing a writer that finds no room at head 0 and
     * raises WRITER_WAITING (CAS expecting the head it judged by). r1 = 1 if the reader saw the
     * bit (and woke the writer); r2 = 1 if the writer raised the bit (it would sleep), 2 if it saw
     * the new head at once, 3 if its CAS failed and its second look saw the new head.
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the writer raised first: the reader saw the bit and woke it")
    @Outcome(id = {"0, 2", "0, 3"}, expect = ACCEPTABLE, desc = "the reader published first: the writer saw the room")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "LOST WAKE-UP: the writer sleeps, the reader missed its bit")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class HeadVsWaitingWriter extends Base {
        @Actor
        public void reader(II_Result r) {
            r.r1 = SharedWords.publishHead(shared, headWord, F) ? 1 : 0;
        }

        @Actor
        public void writer(II_Result r) {
            long seen = SharedWords.head(shared);
            if (seen >= F) {
                r.r2 = 2;
            } else if (SharedWords.raiseWaiting(shared, seen)) {
                r.r2 = 1;
            } else {
                r.r2 = SharedWords.head(shared) == F ? 3 : 4;
            }
        }
    }
}
