package org.ysuite.shared;

import static org.ysuite.shared.SharedSignalerFile.WORD_AT;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.ysuite.Signaler;
import org.ysuite.internal.Membarrier;

/**
 * A sender side of a {@link SharedSignaler}, in any process: {@link #signal} fires an id (one
 * atomic on the shared word; a {@code FUTEX_WAKE} only when the owner sleeps), {@link #ring()} is
 * the doorbell for work published elsewhere (a load while the owner is awake). Any
 * thread of the process may use it; each sender holds one of the signaler's sender slots (its
 * lock tells the owner it lives) until {@link #close()} or the process's end.
 */
public final class SharedSignalSender implements Signaler, Closeable {

    private final SharedSignalerFile file;
    private final ByteBuffer shared;
    private final long address;
    /** The owner fences this process after each arm ({@link Membarrier}): rings need no fence. */
    private final boolean unfenced;
    private long wakeups;
    private volatile boolean closed;

    SharedSignalSender(SharedSignalerFile file) {
        this.file = file;
        this.shared = file.shared;
        this.address = file.wordAddress;
        // The flag first: registering a process the owner will not fence would be harmless, but
        // useless. Registration comes before this sender's first ring; an owner's membarrier that
        // ran before it did not interrupt this process, but the registration itself runs a full
        // barrier on this thread after that arm's CAS, so a later ring's load sees SLEEP anyway.
        this.unfenced = file.ownerFencesSenders() && Membarrier.register();
    }

    /**
     * Fires signal {@code id}: one compare-and-set on the shared word, which clears the owner's
     * sleep mark too; only if the mark was set, one {@code FUTEX_WAKE}. What the caller wrote
     * before the call is visible to the owner once it has taken the id.
     *
     * @param id the signal, {@code 0 <= id < 31}
     * @throws IllegalArgumentException if {@code id} is out of range
     * @throws IllegalStateException if this sender is closed
     */
    @Override
    public void signal(int id) {
        int bit = SharedSignaler.bit(id);
        checkOpen();
        if (SharedSignalerWords.signal(shared, WORD_AT, address, bit)) {
            wakeups++;
        }
    }

    /**
     * The doorbell: call it after publishing work the owner looks at after its
     * {@link SharedSignaler#armSleep} (an Aeron {@code Publication.offer}, a write into another
     * shared ring). One load of the shared word while the owner is awake (where the kernel has
     * {@code membarrier(2)}, the owner's arm fences this process, see {@link #ringsWithoutFence()};
     * else a full fence and the load); if it sleeps, one compare-and-set and one
     * {@code FUTEX_WAKE}. Fires no id.
     *
     * @return {@code true} if the owner was asleep and this call woke it
     * @throws IllegalStateException if this sender is closed
     */
    public boolean ring() {
        checkOpen();
        if (unfenced ? SharedSignalerWords.ringUnfenced(shared, WORD_AT, address)
                : SharedSignalerWords.ring(shared, WORD_AT, address)) {
            wakeups++;
            return true;
        }
        return false;
    }

    /**
     * Tells whether {@link #ring()} goes without its fence: the owner runs
     * {@code membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)} after each arm and this process is
     * registered for it, so the StoreLoad a ring needs (its caller's publication before its load
     * of the sleep mark) is the owner's barrier, paid once per sleep instead of once per ring.
     *
     * @return {@code true} if a ring is one load while the owner is awake; {@code false} if it
     *     is a full fence and a load
     */
    public boolean ringsWithoutFence() {
        return unfenced;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("sender of " + file.path + " is closed");
        }
    }

    /**
     * Returns {@code 31}: ids {@code 0} to {@code 30}.
     *
     * @return {@code 31}
     */
    @Override
    public int capacity() {
        return SharedSignaler.CAPACITY;
    }

    /**
     * Tells whether the owner is open and its process alive (a load and one {@code fcntl}).
     *
     * @return {@code false} if the owner closed or died
     * @throws IOException if {@code fcntl} fails
     */
    public boolean ownerAlive() throws IOException {
        checkOpen();
        return file.ownerAlive();
    }

    /**
     * Returns how many of this sender's calls woke a sleeping owner (counted by the calling
     * threads without synchronisation: exact when one thread sends).
     *
     * @return the count
     */
    public long wakeups() {
        return wakeups;
    }

    /**
     * Returns the sender slot this side holds.
     *
     * @return the slot, {@code 0 <= slot < senders}
     */
    public int slot() {
        return file.slot;
    }

    /**
     * Returns the reference file's path.
     *
     * @return the absolute path
     */
    public Path path() {
        return file.path;
    }

    /**
     * Marks the slot closed and closes the descriptor (its lock goes: the slot is free); the
     * mapping goes once this object is unreachable. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        file.markClosed();
        file.releaseWhenUnreachable(this);
    }

    @Override
    public String toString() {
        return "SharedSignalSender[" + file.path + ", slot " + file.slot + (closed ? ", closed]" : "]");
    }
}
