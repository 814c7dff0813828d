package org.ysuite.jcstress;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Small helpers shared by the races: digit sequences as outcomes, and the bounded waits.
 *
 * <p>Actors must never block forever, so every blocking wait in a race is a timed one with a
 * generous {@link #TIMEOUT_MS}. A correct wake-up returns within microseconds; a lost wake-up
 * shows up as a wait that ran for longer than {@link #SLOW_MS} (some waits re-check their
 * condition when the time runs out and so still return "success": the elapsed time is what
 * exposes that the waiter slept through its wake-up), and the races report it as a forbidden
 * outcome.
 */
final class Seq {

    /** Upper bound of every blocking wait inside an actor. */
    static final long TIMEOUT_MS = 2_000;

    /** A wait longer than this slept through its wake-up. */
    static final long SLOW_MS = 1_000;

    /** {@link #TIMEOUT_MS} in the unit the waits take. */
    static final TimeUnit UNIT = TimeUnit.MILLISECONDS;

    private Seq() {
    }

    /** Appends the digit {@code d} (1..9) to the decimal sequence {@code seq}. */
    static int append(int seq, int d) {
        return seq * 10 + d;
    }

    /** 1 if the wait that started at {@code startNanos} slept through its wake-up, else 0. */
    static int slow(long startNanos) {
        return System.nanoTime() - startNanos > TimeUnit.MILLISECONDS.toNanos(SLOW_MS) ? 1 : 0;
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
