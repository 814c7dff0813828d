package org.ysuite.bench.support;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Flow control for the throughput benchmarks of unbounded transports (YPipe, YMailbox,
 * LinkedTransferQueue): the writer may be at most {@code size} messages ahead of the reader, so
 * the backlog (and the memory it takes) stays bounded, as a credit window or a high-water mark
 * does in a real system. Bounded transports (array queues, rings, sockets) have their own.
 *
 * <p>The reader publishes how many messages it consumed once per batch ({@link #consumed}, a
 * release store); the writer keeps a cached limit and reads the reader's counter only when the
 * cached limit is reached, so the check costs no cache-line transfer per message. When the
 * window is full the reader is awake (it was signalled when the backlog began), so the writer
 * spins, then yields, until the reader has made room; a reader that never does fails the
 * benchmark after a bounded time instead of hanging it.
 *
 * <p>The reader's counter sits in the middle of an array of its own, at least 128 bytes from
 * anything else: on the writer's line (its {@code sent} and {@code limit}, written per message),
 * each of the reader's stores would cost the writer a cache-line transfer and slow the measured
 * transport down for nothing it does.
 */
public final class Window {

    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(20);

    private final long size;
    /** Slot of the reader's counter in {@code consumed}; the slots around it are padding. */
    private static final int SLOT = 16;

    private final AtomicLongArray consumed = new AtomicLongArray(2 * SLOT);
    private long sent;
    private long limit;

    /**
     * Creates a window.
     *
     * @param size how many messages the writer may be ahead of the reader
     */
    public Window(long size) {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be > 0: " + size);
        }
        this.size = size;
        this.limit = size;
    }

    /**
     * Writer side: accounts for {@code n} more messages, waiting first until they fit.
     *
     * @param n messages about to be sent, {@code <= size}
     */
    public void beforeSend(int n) {
        long next = sent + n;
        if (next > limit) {
            awaitRoom(next);
        }
        sent = next;
    }

    private void awaitRoom(long next) {
        long deadline = 0;
        int spins = 0;
        while (true) {
            // acquire: pairs with the reader's release store in consumed(int)
            limit = consumed.getAcquire(SLOT) + size;
            if (next <= limit) {
                return;
            }
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                if (deadline == 0) {
                    deadline = System.nanoTime() + GIVE_UP_NANOS;
                } else if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("reader made no room for 20 s: sent " + sent
                            + ", consumed " + consumed.get(SLOT));
                }
                Thread.yield();
            }
        }
    }

    /**
     * Reader side: publishes that {@code n} more messages were consumed.
     *
     * @param n messages consumed by the last batch
     */
    public void consumed(int n) {
        consumed.setRelease(SLOT, consumed.getPlain(SLOT) + n); // only the reader writes it
    }

    /**
     * Reader side: total consumed so far.
     *
     * @return messages consumed
     */
    public long readerTotal() {
        return consumed.getPlain(SLOT);
    }
}
