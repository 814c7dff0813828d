package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Padding before the writer's positions. */
abstract class PipePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

/** The writer's positions: written and read by the writer thread only. */
abstract class PipeWriterPositions extends PipePad0 {
    /** Writer: first item not yet flushed. */
    long w;
    /** Writer: end of the last complete item. */
    long f;
    /** Writer: end of the last written item. */
    long tail;
}

/** Padding between the writer's and the reader's positions. */
abstract class PipePad1 extends PipeWriterPositions {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}

/** The reader's positions: written and read by the reader thread only. */
abstract class PipeReaderPositions extends PipePad1 {
    /** Reader: next item to read. */
    long front;
    /** Reader: end of what the reader has prefetched. */
    long r;
    /** Reader: how long the reader spins on c before it swaps in ASLEEP (set by the constructor). */
    WaitPolicy readerPolicy;
    /** Reader: pauses before its first look at c after a batch ({@link BatchDelay}). */
    int batchPauses;
}

/** Padding between the reader's positions and the shared word. */
abstract class PipePad2 extends PipeReaderPositions {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}

/** The shared word {@code c} and its accessors. */
abstract class PipeShared extends PipePad2 {
    /** The value of {@code c} while the reader is asleep. */
    static final long ASLEEP = -1L;
    /** The value of {@code c} once the pipe is closed to its writer. */
    static final long CLOSED = -2L;

    private static final VarHandle C;

    static {
        try {
            C = MethodHandles.lookup().findVarHandle(PipeShared.class, "c", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Shared: end of the last flush, ASLEEP or CLOSED. */
    private long c;
    /** Shared: c just before it became CLOSED; published by that CAS. */
    long closedAt;

    /**
     * Sets {@code c} at construction: the pipe reaches its threads through a happens-before edge
     * (thread start, a final or volatile field) like any other object.
     */
    final void initC(boolean readerAsleep) {
        c = readerAsleep ? ASLEEP : 0L;
    }

    final long casReleaseC(long expected, long value) {
        return (long) C.compareAndExchangeRelease(this, expected, value);
    }

    final long casAcquireC(long expected, long value) {
        return (long) C.compareAndExchangeAcquire(this, expected, value);
    }

    final long getAcquireC() {
        return (long) C.getAcquire(this);
    }

}

/** Padding after the shared word. */
abstract class PipePad3 extends PipeShared {
    long p30, p31, p32, p33, p34, p35, p36, p37, p38, p39, p3a, p3b, p3c, p3d, p3e, p3f;
}

/**
 * The ypipe protocol on positions, shared by {@link YPipe} and {@link OffHeapYPipe}; the storage
 * behind the positions is the subclass's. Positions count items (YPipe) or bytes (OffHeapYPipe)
 * from the pipe's creation and never wrap.
 *
 * <pre>
 *   w     (writer)  first item not yet flushed
 *   f     (writer)  end of the last complete item; incomplete items are never flushed
 *   tail  (writer)  end of the last written item
 *   front (reader)  next item to read
 *   r     (reader)  end of what the reader has prefetched
 *   c     (shared)  end of the last flush, or ASLEEP: the reader found nothing and went to sleep,
 *                   or CLOSED: no flush is accepted any more (a closed YMailbox's pipes)
 *   closedAt        c just before it became CLOSED (written once, by the closer)
 * </pre>
 * Each group sits on its own cache lines (padding by class layers, which HotSpot lays out
 * superclass first).
 */
abstract class PipeProtocol extends PipePad3 {

    static {
        // Loads BatchDelay with the pipe, not at its reader's first look: a class load in a
        // virtual thread can pin its carrier.
        BatchDelay.pause(0);
    }

    /**
     * Writer: publishes [w, f).
     *
     * @return false if the reader was asleep and must be signalled by the caller
     */
    final boolean flushPositions() {
        if (w == f) {
            return true;
        }
        // Release CAS: the writer's plain stores of the items happen-before the reader's acquire
        // of c. c is either w (reader awake) or ASLEEP, so the CAS fails only on ASLEEP.
        long seen = casReleaseC(w, f);
        if (seen == w) {
            w = f;
            return true;
        }
        // Reader asleep (or the pipe closed). Only the writer moves c away from ASLEEP, but a
        // closer may swap ASLEEP for CLOSED meanwhile, so this is a CAS too (release, as above);
        // the caller's signal orders the reader's wake-up after it. This path is taken once per
        // sleep of the reader, never while it keeps up.
        if (seen == ASLEEP) {
            seen = casReleaseC(ASLEEP, f);
        }
        if (seen == CLOSED) {
            throw new IllegalStateException("closed: nothing more is accepted (the unflushed "
                    + "messages were not sent)");
        }
        w = f;
        return false;
    }

    /**
     * Any one thread, once: closes the pipe to its writer. A flush that has not landed by now
     * fails with {@link IllegalStateException} and publishes nothing; the reader still gets every
     * item flushed before, then finds the pipe empty for good.
     *
     * <p>{@code closedAt} is written before the CAS that installs CLOSED and read by the reader
     * only after it saw CLOSED (acquire), so it is the value c held when the pipe closed. The CAS
     * is needed because the writer (flush) and the reader (sleep) may change c at any time.
     */
    final void closePositions() {
        for (;;) {
            long seen = getAcquireC();
            if (seen == CLOSED) {
                return;
            }
            closedAt = seen;
            if (casReleaseC(seen, CLOSED) == seen) {
                return;
            }
        }
    }

    /** Reader, having seen CLOSED: the end of everything flushed before the close. */
    private long closedEnd() {
        long at = closedAt;
        // ASLEEP: the reader had taken everything flushed (it sleeps only when c == front).
        return at == ASLEEP ? front : at;
    }

    /**
     * Reader: true if [front, r) is not empty, prefetching everything flushed when it is.
     * When nothing new was flushed the reader first spins on plain acquire loads of c, as its
     * {@link WaitPolicy} allows, and only then swaps c to ASLEEP: a false answer has done that
     * swap, and the reader must wait for a signal.
     *
     * <p>Why the spin needs no atomic: only the reader ever writes ASLEEP, and the writer only
     * ever moves c forward from the value it last wrote. While the reader spins, c is not ASLEEP,
     * so every flush's CAS succeeds (the writer pays no signal) and an acquire load that sees the
     * new c sees every item that flush released. The one step that must be atomic is the last:
     * "nothing past front" and "asleep" in one CAS, so a flush that lands between the reader's
     * last look and its sleep is either seen by the CAS or finds ASLEEP and signals.
     */
    final boolean checkReadPositions() {
        if (front != r) {
            return true;
        }
        int delay = batchPauses;
        BatchDelay.pause(delay); // see BatchDelay: lets a dense stream arrive as one batch
        // Acquire: pairs with the release of c in flushPositions (see there).
        long seen = getAcquireC();
        if (seen == front) {
            seen = spinThenSleep();
        } else {
            // No delay where the policy allows no spin (purePark, a virtual thread): the pauses
            // would spin on a carrier, or in a reader asked never to spin.
            batchPauses = seen == CLOSED || readerPolicy.neverSpins() ? 0
                    : BatchDelay.afterLook(delay, itemsBetween(front, seen));
        }
        if (seen == CLOSED) {
            seen = closedEnd();
        }
        if (seen == front || seen == ASLEEP) {
            // Nothing new, and c is ASLEEP: swapped in now, or still ASLEEP from an earlier
            // false answer whose signal the reader has not taken yet.
            return false;
        }
        r = seen;
        return true;
    }

    /**
     * Reader: like {@link #checkReadPositions()} but never spins and never sleeps: a false
     * answer leaves c as it was (the reader stays awake, so the writer will not signal, and the
     * caller must look again by itself). For a reader that spins over several pipes.
     */
    final boolean checkReadPositionsAwake() {
        if (front != r) {
            return true;
        }
        long seen = getAcquireC(); // acquire: as in checkReadPositions
        if (seen == CLOSED) {
            seen = closedEnd();
        }
        if (seen == front || seen == ASLEEP) {
            return false;
        }
        r = seen;
        return true;
    }

    /**
     * Reader: how many items lie in [from, to), flushed and acquired, exactly or as an estimate
     * (only {@link BatchDelay} uses it).
     */
    abstract long itemsBetween(long from, long to);

    /**
     * Reader, nothing new at its first look: spins on acquire loads of c for the policy's rounds,
     * then swaps c to ASLEEP. Returns the last value of c seen; {@code front} means the swap
     * succeeded and the reader is asleep.
     */
    private long spinThenSleep() {
        WaitPolicy policy = readerPolicy;
        int limit = policy.spins();
        for (int round = 1; round <= limit; round++) {
            Thread.onSpinWait();
            long seen = getAcquireC();
            if (seen != front) {
                batchPauses = BatchDelay.afterSpin(batchPauses);
                policy.spun(round);
                return seen;
            }
        }
        batchPauses = 0;
        policy.parked();
        // Acquire CAS: swaps c to ASLEEP only if nothing was flushed past front, atomically with
        // that check, so a racing flush either lands first (we see its end, with acquire) or
        // finds ASLEEP (and its caller signals us).
        return casAcquireC(front, ASLEEP);
    }
}
