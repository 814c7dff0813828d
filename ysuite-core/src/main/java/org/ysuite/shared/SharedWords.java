package org.ysuite.shared;

import static org.ysuite.internal.SharedPipeDescriptor.INT;
import static org.ysuite.internal.SharedPipeDescriptor.LONG;

import java.nio.ByteBuffer;
import org.ysuite.internal.Futex;

/**
 * {@link SharedYPipe}'s steps on the shared words of its file (the jcstress races call exactly
 * these). {@code shared} is the mapped header (any direct buffer laid out the same way).
 *
 * <h2>Only loads and stores</h2>
 * Every word has one writer, and every access is a volatile (or acquire) load or a volatile store:
 * no compare-and-set, no get-and-set. A read-modify-write on a page of a file that another process
 * truncated crashes the JVM (SIGBUS inside the VM's own CAS code, when the caller is interpreted
 * or C1-compiled), while a load or store there is turned into an {@link InternalError}.
 *
 * <pre>
 *   c            writer   end of the last flush (a position)
 *   head         reader   how far the reader has consumed (a position)
 *   readerSleep  reader   a counter, odd while the reader is (going) asleep
 *   readerWake   writer   the futex word the reader sleeps on; bumped by the writer to wake it
 *   writerSleep  writer   a counter, odd while the writer waits for space
 *   writerWake   reader   the futex word the writer sleeps on; bumped by the reader to wake it
 * </pre>
 *
 * <h2>No lost wake-up (Dekker over two volatiles)</h2>
 * The sleeper: {@code seq = load(wake)}; {@code store(sleep, odd)}; {@code load(position)}; if
 * nothing new, {@code FUTEX_WAIT(wake, seq)}. The waker: {@code store(position)};
 * {@code load(sleep)}; if odd (and not already woken), bump {@code wake}, {@code FUTEX_WAKE}.
 * Volatile accesses are sequentially consistent (a volatile store is followed by a full fence),
 * so of "store position, load sleep" and "store sleep, load position" at least one load sees the
 * other's store: either the sleeper sees the new position and does not sleep, or the waker sees
 * the odd counter and bumps the word. The bump comes after the waker's load that saw the odd
 * counter, which came after the sleeper's {@code load(wake)}: so {@code seq} is older than the
 * bump, and {@code FUTEX_WAIT}, which compares the word and queues the caller in one step under
 * the kernel's lock, either finds it changed or is queued before the {@code FUTEX_WAKE} looks.
 * A side that closes stores CLOSED in its state, then bumps the peer's word unconditionally: a
 * sleeper reads its peer's state after {@code load(wake)}, so it either sees CLOSED or its
 * {@code seq} is older than that bump.
 *
 * <p>Every arm stores a new odd value (the counter only grows), and the waker wakes each value at
 * most once: at most one wake-up per sleep, none while the sleeper keeps up. An arm is kept (not
 * stored again) only while the wake word still holds its {@code seq}: any wake decided for it
 * changes the word before its {@code FUTEX_WAKE}, so a sleep on that {@code seq} cannot miss it.
 *
 * <h2>A reader that waits in poll (the doorbell)</h2>
 * A pollable reader also stores how it waits (futex or poll; volatile, before the arm's look at
 * the position), and the waker loads it after its load of the sleep counter ({@link Doorbell#how}):
 * the same Dekker pair, so a waker whose flush the sleeper missed sees the way it waits. A poller
 * drains its FIFO before it arms: the waker's byte for that arm comes after the arm, so after the
 * drain, and stays; a byte the drain took was written after its bump (the FIFO's lock orders the
 * read after the write), so the arm reads the bumped word and stores a new odd counter.
 */
final class SharedWords {

    private SharedWords() {
    }

    /** A position (c or head) with acquire: the spinning look. */
    static long position(ByteBuffer shared, int at) {
        return (long) LONG.getAcquire(shared, at);
    }

    /**
     * A position with a volatile load: the look after an arm (the Dekker load). Acquire pairs with
     * the owner's volatile store: the ring's bytes written before it are visible.
     */
    static long positionAfterArm(ByteBuffer shared, int at) {
        return (long) LONG.getVolatile(shared, at);
    }

    /**
     * Publishes a position (the flush's c, the reader's head) with a volatile store: its release
     * half orders the ring's bytes (writer) or the reads of them (reader) before it; its full
     * fence orders it before the following load of the peer's sleep counter (the Dekker store).
     */
    static void publish(ByteBuffer shared, int at, long position) {
        LONG.setVolatile(shared, at, position);
    }

    /** One side's sleep: its counter (odd while armed) and the futex word it waits on. */
    static final class Sleep {
        private final ByteBuffer shared;
        private final int sleepAt;
        private final int wakeAt;
        /** This side's last stored counter (read from the file at open: a restart continues it). */
        private long count;
        private int seq;
        private boolean armed;

        Sleep(ByteBuffer shared, int sleepAt, int wakeAt) {
            this.shared = shared;
            this.sleepAt = sleepAt;
            this.wakeAt = wakeAt;
            this.count = (long) LONG.getVolatile(shared, sleepAt);
        }

        /**
         * Announces "(going) asleep" unless still armed with no wake since: {@code seq = wake}
         * first, then a volatile store of a new odd counter. The caller then looks at the
         * position with {@link #positionAfterArm} and sleeps on {@link #seq()} if nothing moved.
         */
        void arm() {
            int now = (int) INT.getVolatile(shared, wakeAt);
            if (armed && now == seq) {
                return; // no wake-up since this arm: its store stands, a pending wake changes the word
            }
            seq = now;
            count = (count + 2) | 1;
            LONG.setVolatile(shared, sleepAt, count);
            armed = true;
        }

        /** Announces "awake" (an even counter) if armed: the peer stops waking us. */
        void disarm() {
            if (armed) {
                armed = false;
                count++;
                LONG.setVolatile(shared, sleepAt, count);
            }
        }

        boolean isArmed() {
            return armed;
        }

        /** The wake word's value read by the last arm: sleep while the word holds it. */
        int seq() {
            return seq;
        }
    }

    /**
     * A second way to wake a peer that waits elsewhere than in the futex (a pollable reader in
     * {@code poll}/{@code epoll}: {@link SharedPipeWakeFifo}), and the choice between the two.
     */
    interface Doorbell {
        /** {@link #how} bit: make the futex wake-up. */
        int FUTEX = 1;
        /** {@link #how} bit: ring the doorbell. */
        int BELL = 2;

        /**
         * How to wake the peer now, from its announced way of waiting (one load, after the
         * waker's look at the peer's sleep counter).
         *
         * @param always a close: wake every way the peer may wait
         * @return {@link #FUTEX}, {@link #BELL} or both
         */
        int how(boolean always);

        /**
         * Rings; never throws.
         *
         * @return false if it could not (the caller then makes the futex wake-up too)
         */
        boolean ring();
    }

    /** One side's waking of its peer: the peer's sleep counter, and the futex word this side bumps. */
    static final class Wake {
        private final ByteBuffer shared;
        private final int peerSleepAt;
        private final int wakeAt;
        private final long wakeAddress;
        /** Rung with every wake-up after the futex's, or null. */
        private final Doorbell doorbell;
        /** The last odd counter this side woke (only the side's operating thread uses it). */
        private long lastWoken = -1;

        Wake(ByteBuffer shared, int peerSleepAt, int wakeAt, long wakeAddress) {
            this(shared, peerSleepAt, wakeAt, wakeAddress, null);
        }

        Wake(ByteBuffer shared, int peerSleepAt, int wakeAt, long wakeAddress, Doorbell doorbell) {
            this.shared = shared;
            this.peerSleepAt = peerSleepAt;
            this.wakeAt = wakeAt;
            this.wakeAddress = wakeAddress;
            this.doorbell = doorbell;
        }

        /**
         * After this side's {@link #publish}: wakes the peer if its counter is odd and not woken
         * yet (the Dekker load: volatile, after the volatile store).
         *
         * @return {@code true} if the peer was awake (nothing done); {@code false} if it was woken
         */
        boolean ifAsleep() {
            long sleep = (long) LONG.getVolatile(shared, peerSleepAt);
            if ((sleep & 1) == 0 || sleep == lastWoken) {
                return true;
            }
            lastWoken = sleep;
            wake(false);
            return false;
        }

        /** Bumps the word and wakes whoever sleeps on it, every way (a close). */
        void always() {
            wake(true);
        }

        /**
         * Bumps the word, then wakes the peer the way it announced (the doorbell's choice; the
         * futex alone without a doorbell). The bump comes first in every case: a sleeper's
         * {@code seq} is then older than any wake-up decided for it, and a poller that drained
         * the doorbell's byte (the FIFO's lock orders the drain after the write) reads the
         * bumped word at its next arm, which therefore stores a new odd counter.
         */
        private void wake(boolean always) {
            bump();
            int how = doorbell == null ? Doorbell.FUTEX : doorbell.how(always);
            if ((how & Doorbell.BELL) != 0 && !doorbell.ring()) {
                how |= Doorbell.FUTEX; // no doorbell to ring: the futex at least
            }
            if ((how & Doorbell.FUTEX) != 0) {
                Futex.wake(wakeAddress, Integer.MAX_VALUE);
            }
        }

        /**
         * Only this side's process writes the word, but two of its threads may (a flush and a
         * close from another thread): the lock makes each bump a new value, never a lost one.
         */
        private synchronized void bump() {
            INT.setVolatile(shared, wakeAt, (int) INT.getVolatile(shared, wakeAt) + 1);
        }
    }
}
