package org.ysuite.amqp;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A writer's fates as its listener heard them: one per sequence number, checked to come exactly
 * once and in order. Written by the settling threads (one at a time, in order), read by the test
 * after {@link PublisherWriter#awaitSettled}, whose volatile read of {@code settled} happens-after
 * the listener's call.
 */
final class Fates implements FateListener {

    final Fate[] bySequence;
    private long last;
    final AtomicReference<String> error = new AtomicReference<>();

    Fates(int capacity) {
        bySequence = new Fate[capacity + 1];
    }

    @Override
    public void onFate(long sequence, Fate fate) {
        if (sequence != last + 1) {
            error.compareAndSet(null, "fate of " + sequence + " after " + last);
        }
        last = sequence;
        if (sequence < bySequence.length) {
            bySequence[(int) sequence] = fate;
        }
    }

    long count(Fate fate, long upTo) {
        long n = 0;
        for (int i = 1; i <= upTo; i++) {
            if (bySequence[i] == fate) {
                n++;
            }
        }
        return n;
    }
}
