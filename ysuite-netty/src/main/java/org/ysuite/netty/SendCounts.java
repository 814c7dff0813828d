package org.ysuite.netty;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One {@link LoopMailbox.Sender}'s counts, written by its thread only, and the hand-off sample it
 * has in flight; read by the loop and, racily, by anyone who asks the mailbox.
 *
 * <h2>Counting</h2>
 * {@code written} is the sender's plain count of the messages it wrote; {@code sent} is its copy
 * for other threads, stored with {@code setOpaque} after each flush. Opaque, not release: the count
 * orders nothing (no reader uses it to find data), it only has to be read untorn (a {@code long})
 * and become visible eventually. A message counts in {@code sent} once the flush that accepted it
 * returned, so {@code sent} may trail the loop's {@code delivered} for a moment (the loop can
 * deliver a message before its sender stored the count): depth is clamped at 0 for that.
 *
 * <h2>Hand-off samples</h2>
 * Every {@code interval}-th message (a power of two: message numbers {@code n} with
 * {@code (n & mask) == 0}, counting from 1) is a sample point. At a sample point the sender stamps
 * {@code System.nanoTime()} into {@code stampNanos} and then the message's number into
 * {@code stampSeq}, both before it writes and flushes the message; no other message reads the
 * clock. The loop, which counts each pipe's deliveries, looks at {@code stampSeq} when it delivers
 * a sample point's message ({@link #takeStamp}); if it holds that message's number, the stamp is
 * that message's, and the loop records now minus the stamp.
 *
 * <p>Why the loop never pairs a number with another message's time: only one sample is in flight
 * per sender. The sender stamps only when {@code taken} (the number of the last sample the loop
 * took, stored by the loop with {@code setRelease} after it read the stamp) equals its own
 * {@code stampSeq} (read with {@code getAcquire}); otherwise it skips that sample point. So the
 * stamp fields are never written while the loop may still read them for an earlier sample: the
 * loop's reads happen-before its release of {@code taken}, which happens-before the sender's next
 * stamp. And the stamp of message {@code n} is written before the flush that publishes {@code n}
 * (the flush's CAS on the pipe's shared position is a release; the loop's read of it, an acquire,
 * comes before it delivers {@code n}), so when the loop delivers {@code n} it sees
 * {@code stampSeq == n} if {@code n} was stamped. A sender that is far ahead of the loop (more
 * than {@code interval} messages waiting) skips sample points until the loop took the sample in
 * flight: under a backlog there are fewer samples, none is lost or mismatched. The stamp fields
 * are opaque because the loop reads {@code stampSeq} at every sample point, possibly while the
 * sender writes a later stamp: it must read an untorn value (one it then does not match).
 *
 * <p>Padded (128 bytes on each side, as the pipes are) so that the sender's per-message stores do
 * not share a cache line with the loop's fields of the pipe or with other objects.
 */
final class SendCounts extends SendCountsFields {
    byte p100, p101, p102, p103, p104, p105, p106, p107, p108, p109, p10a, p10b, p10c, p10d, p10e, p10f,
            p110, p111, p112, p113, p114, p115, p116, p117, p118, p119, p11a, p11b, p11c, p11d, p11e, p11f,
            p120, p121, p122, p123, p124, p125, p126, p127, p128, p129, p12a, p12b, p12c, p12d, p12e, p12f,
            p130, p131, p132, p133, p134, p135, p136, p137, p138, p139, p13a, p13b, p13c, p13d, p13e, p13f,
            p140, p141, p142, p143, p144, p145, p146, p147, p148, p149, p14a, p14b, p14c, p14d, p14e, p14f,
            p150, p151, p152, p153, p154, p155, p156, p157, p158, p159, p15a, p15b, p15c, p15d, p15e, p15f,
            p160, p161, p162, p163, p164, p165, p166, p167, p168, p169, p16a, p16b, p16c, p16d, p16e, p16f,
            p170, p171, p172, p173, p174, p175, p176, p177, p178, p179, p17a, p17b, p17c, p17d, p17e, p17f;

    /** {@link #takeStamp}'s answer when the message was not stamped. */
    static final long NO_STAMP = Long.MIN_VALUE;

    /** @param interval the sample interval, a power of two (checked by the builder) */
    SendCounts(int interval) {
        super(interval - 1);
    }

    /** Any thread: the messages accepted by {@code senders}, as far as each sender has stored it. */
    static long sent(LoopMailbox.Sender<?>[] senders) {
        long sum = 0;
        for (LoopMailbox.Sender<?> s : senders) {
            sum += s.counts.sent();
        }
        return sum;
    }
}

/** The padding before the fields. */
abstract class SendCountsPad {
    byte p000, p001, p002, p003, p004, p005, p006, p007, p008, p009, p00a, p00b, p00c, p00d, p00e, p00f,
            p010, p011, p012, p013, p014, p015, p016, p017, p018, p019, p01a, p01b, p01c, p01d, p01e, p01f,
            p020, p021, p022, p023, p024, p025, p026, p027, p028, p029, p02a, p02b, p02c, p02d, p02e, p02f,
            p030, p031, p032, p033, p034, p035, p036, p037, p038, p039, p03a, p03b, p03c, p03d, p03e, p03f,
            p040, p041, p042, p043, p044, p045, p046, p047, p048, p049, p04a, p04b, p04c, p04d, p04e, p04f,
            p050, p051, p052, p053, p054, p055, p056, p057, p058, p059, p05a, p05b, p05c, p05d, p05e, p05f,
            p060, p061, p062, p063, p064, p065, p066, p067, p068, p069, p06a, p06b, p06c, p06d, p06e, p06f,
            p070, p071, p072, p073, p074, p075, p076, p077, p078, p079, p07a, p07b, p07c, p07d, p07e, p07f;
}

/** The fields and their protocol (see {@link SendCounts}). */
abstract class SendCountsFields extends SendCountsPad {

    private static final VarHandle SENT;
    private static final VarHandle STAMP_SEQ;
    private static final VarHandle STAMP_NANOS;
    private static final VarHandle TAKEN;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SENT = l.findVarHandle(SendCountsFields.class, "sent", long.class);
            STAMP_SEQ = l.findVarHandle(SendCountsFields.class, "stampSeq", long.class);
            STAMP_NANOS = l.findVarHandle(SendCountsFields.class, "stampNanos", long.class);
            TAKEN = l.findVarHandle(SendCountsFields.class, "taken", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The sample interval minus one. */
    private final long mask;
    /** Sender thread only: messages written (accepted at their flush). */
    private long written;
    /** Written by the sender only ({@code setOpaque}), read by anyone: messages accepted. */
    private long sent;
    /** Written by the sender only (opaque): the number of the message stamped last, 0 for none. */
    private long stampSeq;
    /** Written by the sender only (opaque): its {@code System.nanoTime()} at {@link #stampSeq}'s write. */
    private long stampNanos;
    /** Written by the loop only ({@code setRelease}): the number of the last sample it took. */
    private long taken;

    SendCountsFields(long mask) {
        this.mask = mask;
    }

    /** Sender thread, before it writes a message: counts it and stamps it at a sample point. */
    final void writing() {
        long n = ++written;
        if ((n & mask) == 0) {
            stamp(n);
        }
    }

    private void stamp(long n) {
        // Acquire: pairs with the loop's release in takeStamp, so its reads of the stamp fields
        // come before these writes. A sample still in flight: skip this point.
        if ((long) TAKEN.getAcquire(this) != stampSeq) {
            return;
        }
        STAMP_NANOS.setOpaque(this, System.nanoTime());
        STAMP_SEQ.setOpaque(this, n); // both published to the loop by the flush of message n
    }

    /** Sender thread, after a flush returned: every message written so far is accepted. */
    final void flushed() {
        SENT.setOpaque(this, written); // opaque: untorn for racy readers (see the class doc)
    }

    /** Any thread: messages accepted, as stored by the sender so far. */
    final long sent() {
        return (long) SENT.getOpaque(this);
    }

    /** The loop (and the loop's counters): whether message {@code n} of the pipe is a sample point. */
    final long mask() {
        return mask;
    }

    /**
     * Loop thread, delivering message {@code n} (a sample point) of this sender's pipe: its stamp,
     * or {@link SendCounts#NO_STAMP} if the sender skipped it. Frees the stamp for the next sample.
     */
    final long takeStamp(long n) {
        if ((long) STAMP_SEQ.getOpaque(this) != n) {
            return SendCounts.NO_STAMP; // skipped: an earlier sample was in flight when n was written
        }
        long t = (long) STAMP_NANOS.getOpaque(this);
        TAKEN.setRelease(this, n); // release: the reads above come before the sender's next stamp
        return t;
    }
}
