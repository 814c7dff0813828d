package org.ysuite.jcstress;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Small helpers shared by the races: digit sequences as outcomes, and the bounded waits.
 *
 * <p>Actors must never block forever, so every blocking wait in a race is a timed one with a
 * generous {@link #TIMEOUT_MS}, or an untimed one under a {@link Watchdog} that interrupts it after
 * {@link #TIMEOUT_MS}. A correct wake-up returns within microseconds; a lost wake-up shows up as a
 * wait that lasted the whole {@link #TIMEOUT_MS} (some waits re-check their condition when the
 * time runs out and so still return "success": the elapsed time is what exposes that the waiter
 * slept through its wake-up), and the races report it as a forbidden outcome.
 *
 * <p>Why the whole timeout and not less: a wait that ended by its timeout (or by the watchdog,
 * armed before the clock starts) always lasted at least {@link #TIMEOUT_MS}, so nothing real is
 * missed; a wait that was woken in time but whose thread was then not scheduled is the false
 * alarm to avoid, and on an oversubscribed 2-CPU machine (CPU pressure at 99%) such stalls passed
 * the former 1 s threshold twice in a million samples (YSemaphoreRaces.SignalVsAwait and
 * YSemaphoreRaces.DoublePostVsAwait, "1, 1, 0"). With 5 s a stall must be five times longer to count.
 */
final class Seq {

    /** Upper bound of every blocking wait inside an actor. */
    static final long TIMEOUT_MS = 5_000;

    /** A wait that lasted this long ran out its timeout: it slept through its wake-up. */
    static final long SLOW_MS = TIMEOUT_MS;

    /** {@link #TIMEOUT_MS} in the unit the waits take. */
    static final TimeUnit UNIT = TimeUnit.MILLISECONDS;

    private Seq() {
    }

    /** How long before a wait gave up a signal must have landed for the wait to have lost it. */
    static final long MARGIN_MS = 100;

    /**
     * True if a signal stamped {@code postedAt} (0: never posted) landed at least
     * {@link #MARGIN_MS} before the wait that gave up at {@code gaveUpAt} returned: a timed-out
     * wait then slept through its wake-up. Both are System.nanoTime values (one clock).
     */
    static boolean postedWellBefore(long postedAt, long gaveUpAt) {
        return postedAt != 0 && gaveUpAt - postedAt >= TimeUnit.MILLISECONDS.toNanos(MARGIN_MS);
    }

    /**
     * 1 if a wait that started at {@code startedAt} and returned at {@code returnedAt} ran its
     * whole timeout although the signal it waited for landed ({@code postedAt}) at least
     * {@link #MARGIN_MS} before it returned: it slept through its wake-up. A poster that a loaded
     * machine ran only after the timeout is not that. All are System.nanoTime values (one clock).
     */
    static int sleptThrough(long startedAt, long postedAt, long returnedAt) {
        boolean wholeTimeout = returnedAt - startedAt >= TimeUnit.MILLISECONDS.toNanos(SLOW_MS);
        return wholeTimeout && postedWellBefore(postedAt, returnedAt) ? 1 : 0;
    }

    /** Appends the digit {@code d} (1..9) to the decimal sequence {@code seq}. */
    static int append(int seq, int d) {
        return seq * 10 + d;
    }

    /** 1 if the wait that started at {@code startNanos} slept through its wake-up, else 0. */
    static int slow(long startNanos) {
        return System.nanoTime() - startNanos >= TimeUnit.MILLISECONDS.toNanos(SLOW_MS) ? 1 : 0;
    }

    /** Message {@code k} (1..8) for the off-heap pipes: {@code 8 + k} bytes, each equal to {@code k}. */
    static byte[] message(int k) {
        byte[] m = new byte[8 + k];
        java.util.Arrays.fill(m, (byte) k);
        return m;
    }

    /**
     * Decodes a message written by {@link #message(int)}: its {@code k}, or 9 if the bytes are
     * not exactly a whole message (a torn or half-written read).
     */
    static int decode(ByteBuffer buf, int offset, int length) {
        int k = length - 8;
        if (k < 1 || k > 8) {
            return 9;
        }
        for (int i = 0; i < length; i++) {
            if (buf.get(offset + i) != k) {
                return 9;
            }
        }
        return k;
    }

    /** As {@link #decode(ByteBuffer, int, int)} for a message copied into {@code dst}. */
    static int decode(byte[] dst, int length) {
        return length < 0 ? 0 : decode(ByteBuffer.wrap(dst), 0, length);
    }
}
