package org.ysuite;

import static org.ysuite.SharedPipeFile.C_AT;
import static org.ysuite.SharedPipeFile.HEAD_AT;
import static org.ysuite.SharedPipeFile.LONG;

import java.nio.ByteBuffer;
import org.ysuite.internal.Futex;

/**
 * {@link SharedYPipe}'s steps on its two shared words, each one atomic step of the protocol (the
 * jcstress races call exactly these). {@code shared} is the mapped header (any direct buffer laid
 * out the same way); {@code cWord} / {@code headWord} are the native addresses of the words' low
 * halves, the futex words.
 *
 * <pre>
 *   c    = end of the last flush | READER_ASLEEP (bit 0)    written by flush and the sleeping reader
 *   head = reader's consumed end | WRITER_WAITING (bit 0)  written by the reader and the waiting writer
 * </pre>
 */
final class SharedWords {

    /** Bit 0 of either word: its sleeper is (going) asleep. */
    static final long ASLEEP = 1L;

    private SharedWords() {
    }

    /**
     * Writer: publishes [w, f). The ring's bytes were written with plain stores before; the
     * release CAS orders them before the new c, and the reader's acquire load that sees it sees
     * them. c is w (reader awake) or w|1 (asleep: only the reader sets the bit, only when c equals
     * its front, i.e. w). So a failed CAS means asleep; the reader changes c no more while it
     * sleeps, so a release store of f suffices, then FUTEX_WAKE. f is even: a FUTEX_WAIT expecting
     * (int)(w|1) that starts after the store fails at once, one that started before is woken.
     *
     * @return {@code true} if the reader was awake; {@code false} if it slept (it is being woken)
     * @throws IllegalStateException if c holds neither (another process wrote it)
     */
    static boolean flush(ByteBuffer shared, long cWord, long w, long f) {
        long seen = (long) LONG.compareAndExchangeRelease(shared, C_AT, w, f);
        if (seen == w) {
            return true;
        }
        if (seen != (w | ASLEEP)) {
            throw corruptC(seen, w);
        }
        LONG.setRelease(shared, C_AT, f);
        Futex.wake(cWord, 1);
        return false;
    }

    static IllegalStateException corruptC(long seen, long w) {
        return new IllegalStateException("c is " + seen + ", the writer flushed up to " + w);
    }

    /** Reader: c, with acquire (pairs with the flush's release CAS or store). */
    static long c(ByteBuffer shared) {
        return (long) LONG.getAcquire(shared, C_AT);
    }

    /**
     * Reader, nothing past {@code front}: "nothing new" and "asleep" in one acquire CAS, so a
     * racing flush either lands first (we see its end) or finds the bit (and wakes us).
     *
     * @return c as it was: {@code front} (now {@code front|1}: asleep) or a later flush's end
     */
    static long sleep(ByteBuffer shared, long front) {
        return (long) LONG.compareAndExchangeAcquire(shared, C_AT, front, front | ASLEEP);
    }

    /**
     * Reader: publishes head, once per read call that consumed something. A volatile getAndSet:
     * its release orders our reads of the records before it (the writer's acquire of head may
     * then reuse their bytes); as a read-modify-write it is totally ordered with the writer's CAS
     * that raises WRITER_WAITING on this word: either that CAS came first and we see the bit (and
     * wake the writer), or it comes after and fails on our new head. The new head is even, so a
     * FUTEX_WAIT expecting (int)(seen|1) cannot sleep through it.
     *
     * @return {@code true} if a writer was waiting (it is being woken)
     */
    static boolean publishHead(ByteBuffer shared, long headWord, long head) {
        long before = (long) LONG.getAndSet(shared, HEAD_AT, head);
        if ((before & ASLEEP) != 0) {
            Futex.wake(headWord, 1);
            return true;
        }
        return false;
    }

    /** Writer: head, with acquire (pairs with the reader's getAndSet). */
    static long head(ByteBuffer shared) {
        return (long) LONG.getAcquire(shared, HEAD_AT);
    }

    /**
     * Writer without room at {@code seen}: raises WRITER_WAITING with a volatile CAS that expects
     * exactly the head it judged by (see {@link #publishHead}).
     *
     * @return {@code true} if raised: sleep on (int)(seen|1); {@code false} if head moved: look again
     */
    static boolean raiseWaiting(ByteBuffer shared, long seen) {
        return (long) LONG.compareAndExchange(shared, HEAD_AT, seen, seen | ASLEEP) == seen;
    }

    /** Writer: lowers the bit it raised, if the reader has not (a wait that timed out). */
    static void lowerWaiting(ByteBuffer shared, long seen) {
        LONG.compareAndSet(shared, HEAD_AT, seen | ASLEEP, seen & ~ASLEEP);
    }
}
