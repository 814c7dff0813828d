package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.ysuite.internal.SpinWait;

/** Padding before the writer's positions. */
abstract class PipePad0 {
    byte p000, p001, p002, p003, p004, p005, p006, p007, p008, p009, p00a, p00b, p00c, p00d, p00e, p00f,
            p010, p011, p012, p013, p014, p015, p016, p017, p018, p019, p01a, p01b, p01c, p01d, p01e, p01f,
            p020, p021, p022, p023, p024, p025, p026, p027, p028, p029, p02a, p02b, p02c, p02d, p02e, p02f,
            p030, p031, p032, p033, p034, p035, p036, p037, p038, p039, p03a, p03b, p03c, p03d, p03e, p03f,
            p040, p041, p042, p043, p044, p045, p046, p047, p048, p049, p04a, p04b, p04c, p04d, p04e, p04f,
            p050, p051, p052, p053, p054, p055, p056, p057, p058, p059, p05a, p05b, p05c, p05d, p05e, p05f,
            p060, p061, p062, p063, p064, p065, p066, p067, p068, p069, p06a, p06b, p06c, p06d, p06e, p06f,
            p070, p071, p072, p073, p074, p075, p076, p077, p078, p079, p07a, p07b, p07c, p07d, p07e, p07f;
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
    byte p100, p101, p102, p103, p104, p105, p106, p107, p108, p109, p10a, p10b, p10c, p10d, p10e, p10f,
            p110, p111, p112, p113, p114, p115, p116, p117, p118, p119, p11a, p11b, p11c, p11d, p11e, p11f,
            p120, p121, p122, p123, p124, p125, p126, p127, p128, p129, p12a, p12b, p12c, p12d, p12e, p12f,
            p130, p131, p132, p133, p134, p135, p136, p137, p138, p139, p13a, p13b, p13c, p13d, p13e, p13f,
            p140, p141, p142, p143, p144, p145, p146, p147, p148, p149, p14a, p14b, p14c, p14d, p14e, p14f,
            p150, p151, p152, p153, p154, p155, p156, p157, p158, p159, p15a, p15b, p15c, p15d, p15e, p15f,
            p160, p161, p162, p163, p164, p165, p166, p167, p168, p169, p16a, p16b, p16c, p16d, p16e, p16f,
            p170, p171, p172, p173, p174, p175, p176, p177, p178, p179, p17a, p17b, p17c, p17d, p17e, p17f;
}

/** The reader's positions: written and read by the reader thread only. */
abstract class PipeReaderPositions extends PipePad1 {
    /** Reader: next item to read. */
    long front;
    /** Reader: end of what the reader has prefetched. */
    long r;
    /** Reader: how long the reader spins on c before it swaps in ASLEEP (set by the constructor). */
    WaitPolicy readerPolicy;
    /** Reader: the spin phase of its wait, over c (see {@link SpinWait}). */
    PipeReaderSpin readerSpin;
    /** Reader: pauses before its first look at c after a batch ({@link BatchDelay}). */
    int batchPauses;
}

/** Padding between the reader's positions and the shared word. */
abstract class PipePad2 extends PipeReaderPositions {
    byte p200, p201, p202, p203, p204, p205, p206, p207, p208, p209, p20a, p20b, p20c, p20d, p20e, p20f,
            p210, p211, p212, p213, p214, p215, p216, p217, p218, p219, p21a, p21b, p21c, p21d, p21e, p21f,
            p220, p221, p222, p223, p224, p225, p226, p227, p228, p229, p22a, p22b, p22c, p22d, p22e, p22f,
            p230, p231, p232, p233, p234, p235, p236, p237, p238, p239, p23a, p23b, p23c, p23d, p23e, p23f,
            p240, p241, p242, p243, p244, p245, p246, p247, p248, p249, p24a, p24b, p24c, p24d, p24e, p24f,
            p250, p251, p252, p253, p254, p255, p256, p257, p258, p259, p25a, p25b, p25c, p25d, p25e, p25f,
            p260, p261, p262, p263, p264, p265, p266, p267, p268, p269, p26a, p26b, p26c, p26d, p26e, p26f,
            p270, p271, p272, p273, p274, p275, p276, p277, p278, p279, p27a, p27b, p27c, p27d, p27e, p27f;
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
    byte p300, p301, p302, p303, p304, p305, p306, p307, p308, p309, p30a, p30b, p30c, p30d, p30e, p30f,
            p310, p311, p312, p313, p314, p315, p316, p317, p318, p319, p31a, p31b, p31c, p31d, p31e, p31f,
            p320, p321, p322, p323, p324, p325, p326, p327, p328, p329, p32a, p32b, p32c, p32d, p32e, p32f,
            p330, p331, p332, p333, p334, p335, p336, p337, p338, p339, p33a, p33b, p33c, p33d, p33e, p33f,
            p340, p341, p342, p343, p344, p345, p346, p347, p348, p349, p34a, p34b, p34c, p34d, p34e, p34f,
            p350, p351, p352, p353, p354, p355, p356, p357, p358, p359, p35a, p35b, p35c, p35d, p35e, p35f,
            p360, p361, p362, p363, p364, p365, p366, p367, p368, p369, p36a, p36b, p36c, p36d, p36e, p36f,
            p370, p371, p372, p373, p374, p375, p376, p377, p378, p379, p37a, p37b, p37c, p37d, p37e, p37f;
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
 * superclass first). The padding is 128 {@code byte} fields per layer, not 16 longs: since JDK 15
 * HotSpot puts a subclass's small fields into holes left in its superclasses' layout, and a layer
 * of longs leaves a 4-byte hole that the next group's int or reference took (the writer's
 * {@code backPos} sat on the reader's line, and every write and read paid a cache-line transfer).
 * Bytes fill every hole themselves; {@code FieldLayoutTest} checks the groups' distances.
 */
abstract class PipeProtocol extends PipePad3 {

    static {
        BatchDelay.preload(); // with the pipe, not at its reader's first look
    }

    PipeProtocol() {
        readerSpin = new PipeReaderSpin(this);
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
        if (seen != ASLEEP) {
            throw secondWriter(seen);
        }
        w = f;
        return false;
    }

    /**
     * Writer: c held a position other than w. Only this writer moves c to a position, so another
     * thread has flushed this pipe (two writer threads, or a hand-over without a happens-before
     * edge). Found for free on the path where the CAS failed anyway; most such races go unseen.
     */
    private IllegalStateException secondWriter(long seen) {
        return new IllegalStateException("a pipe has one writer thread at a time: another thread"
                + " flushed it (the shared position is " + seen + ", this writer's is " + w + "),"
                + " so " + Thread.currentThread() + " may not write now; the pipe's contents are"
                + " no longer reliable");
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
     * Reader, nothing new at its first look: spins on acquire loads of c as the reader's policy
     * allows ({@link SpinWait}), then swaps c to ASLEEP. Returns the last value of c seen;
     * {@code front} means the swap succeeded and the reader is asleep.
     */
    private long spinThenSleep() {
        readerWaitBegins();
        long seen;
        PipeReaderSpin spin = readerSpin;
        if (spin.spin(readerPolicy)) {
            batchPauses = BatchDelay.afterSpin(batchPauses);
            seen = spin.seen;
        } else {
            batchPauses = 0;
            // Acquire CAS: swaps c to ASLEEP only if nothing was flushed past front, atomically
            // with that check, so a racing flush either lands first (we see its end, with
            // acquire) or finds ASLEEP (and its caller signals us).
            seen = casAcquireC(front, ASLEEP);
        }
        readerWaitEnds();
        return seen;
    }

    /**
     * Reader, about to spin and sleep (its slow path): a pipe that checks its reader thread
     * cheaply marks itself busy here ({@link YPipe}, see {@link ThreadCheck}); the others do
     * nothing. Touches no position and no ordering of the protocol.
     */
    void readerWaitBegins() {
    }

    /**
     * Reader, done spinning and sleeping: the end of the window {@link #readerWaitBegins()}
     * opened; may throw {@link IllegalStateException} if another reader thread came in meanwhile.
     */
    void readerWaitEnds() {
    }
}

/**
 * One look of a pipe reader's spin phase: has c moved away from front? Acquire loads only (see
 * {@link PipeProtocol#checkReadPositions()} for why the spin needs no atomic); the value seen is
 * kept for the caller. A final class, so the JIT inlines {@link #ready()} into
 * {@link SpinWait#spin(WaitPolicy)}.
 */
final class PipeReaderSpin extends SpinWait {
    private final PipeProtocol pipe;
    /** The last value of c this reader saw; read by the reader after a successful spin. */
    long seen;

    PipeReaderSpin(PipeProtocol pipe) {
        this.pipe = pipe;
    }

    @Override
    protected boolean ready() {
        long c = pipe.getAcquireC(); // acquire: pairs with the release of c in flushPositions
        seen = c;
        return c != pipe.front;
    }
}
