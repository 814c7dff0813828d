package org.ysuite.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.IntConsumer;

/**
 * An atomic set of signal ids {@code 0..capacity-1}, fired by any thread and taken by one owner.
 *
 * <p>Each group of 64 ids is one {@code long}. {@link #fire(int)} ORs its bit in with a volatile
 * read-modify-write; {@link #take(IntConsumer)} swaps each non-zero word for zero with a volatile
 * {@code getAndSet}. Because both are volatile read-modify-writes on the same word, an id fired
 * before a take is in that take's result and an id fired after it stays for the next one: no id
 * is lost and none is delivered twice. The volatile write of the fire synchronizes-with the take
 * that reads it, so whatever the firing thread wrote before {@code signal} is visible to the owner
 * that took the id.
 */
public final class SignalBits {

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;
    private final int capacity;

    /**
     * Creates an empty set.
     *
     * @param capacity the number of ids, {@code 1..65536}
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    public SignalBits(int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new IllegalArgumentException("capacity must be in [1, 65536]: " + capacity);
        }
        this.capacity = capacity;
        this.words = new long[(capacity + 63) >>> 6];
    }

    /**
     * Returns the number of ids.
     *
     * @return the capacity
     */
    public int capacity() {
        return capacity;
    }

    /**
     * Fires {@code id}.
     *
     * @param id the id, already checked by the caller
     * @return {@code true} if the id was not fired before (this call fired it), {@code false} if it
     *         was already fired and not yet taken
     */
    public boolean fire(int id) {
        long bit = 1L << id; // shift uses the low 6 bits
        int i = id >>> 6;
        // Always a volatile read-modify-write, even when the bit is already set: a mere read would
        // not publish this thread's earlier writes to the owner (a write does: the owner's
        // getAndSet reads it and so synchronizes-with it), and the caller's Dekker check of the
        // owner's state must come after a write to this word.
        return ((long) WORDS.getAndBitwiseOr(words, i, bit) & bit) == 0;
    }

    /**
     * Tells whether any id is fired (a volatile read of each word).
     *
     * @return {@code true} if some id is fired and not taken
     */
    public boolean any() {
        for (int i = 0; i < words.length; i++) {
            if ((long) WORDS.getVolatile(words, i) != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes every fired id, handing each to {@code sink} in increasing order. If {@code sink}
     * throws, the ids not yet handed to it stay fired and the exception propagates.
     *
     * @param sink receives the ids
     * @return the number of ids taken
     */
    public int take(IntConsumer sink) {
        int n = 0;
        for (int i = 0; i < words.length; i++) {
            if ((long) WORDS.getVolatile(words, i) == 0) {
                continue;
            }
            long w = (long) WORDS.getAndSet(words, i, 0L);
            int base = i << 6;
            while (w != 0) {
                int b = Long.numberOfTrailingZeros(w);
                w &= w - 1;
                try {
                    sink.accept(base + b);
                } catch (RuntimeException | Error e) {
                    // Put the undelivered ids of this word back (later words were not taken yet),
                    // so a throwing sink loses nothing: the next take delivers them.
                    if (w != 0) {
                        WORDS.getAndBitwiseOr(words, i, w);
                    }
                    throw e;
                }
                n++;
            }
        }
        return n;
    }
}
