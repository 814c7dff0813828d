package org.ysuite.shared;

import static org.ysuite.shared.SharedSignalerFile.LONG;
import static org.ysuite.shared.SharedSignalerFile.SLEEPS_AT;
import static org.ysuite.shared.SharedSignalerFile.WORD_AT;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.ysuite.PollableSignaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YPollset;
import org.ysuite.internal.Futex;
import org.ysuite.internal.Membarrier;
import org.ysuite.internal.Waits;

/**
 * {@link YPollset} across processes: 31 signal ids in one word of shared memory with a sleep bit,
 * any number of signalling processes ({@link SharedSignalSender}s, opened by the file's path), one
 * owner that takes the fired ids and sleeps in Linux {@code futex} when there are none. A signal
 * is one atomic compare-and-set on the shared word and no system call while the owner is awake;
 * the signal that finds the owner asleep wakes it with one {@code FUTEX_WAKE}.
 *
 * <p>The owner creates it ({@link #create}); any thread of the owner's process may
 * {@link #signal} it too, but only one thread, the owner, may take signals ({@link #check},
 * {@link #poll}) or sleep ({@link #armSleep}, {@link #sleepIfArmed}). Senders in other processes
 * open it with {@link #openSender}; a sender's {@link SharedSignalSender#ring()} is the doorbell
 * for work that lives elsewhere (an Aeron log): a load, and a wake-up only when the owner sleeps.
 *
 * <h2>The files</h2>
 * The shared word is in a memfd sealed against shrinking and growing, so no process can truncate
 * the memory under a mapping (an atomic on a truncated mapped file would crash the JVM). The path
 * holds a small <em>reference file</em> (0600, created under a temporary name and linked, so it is
 * never seen half written) that names the memfd by the owner's process id and descriptor; a sender
 * opens {@code /proc/<pid>/fd/<fd>} and refuses anything that is not a sealed memfd of the exact
 * size with the right header. Native byte order:
 * <pre>
 *  reference file (32 bytes)            memfd (4096 bytes, or 128 + 16 x senders if larger)
 *   0  magic "YSSIGREF" (long)           0  magic "YSSIGNL1" (long)
 *   8  version, 1 (int)                  8  version, 1 (int)
 *  12  senders: slots, 1..4096 (int)    12  senders (int)
 *  16  owner's process id (int)         16  owner: state 0 free, 1 open, 2 closed (int)
 *  20  owner's memfd descriptor (int)   20  owner: process id (int)
 *  24  owner's start, epoch ms (long)   24  owner: start, epoch ms, -1 unknown (long)
 *                                       32  owner: futex sleeps so far (long, never trusted)
 *                                       64  the word (int): bit 31 SLEEP, bits 0-30 fired ids;
 *                                           the futex word (its own cache line)
 *                                      128  sender slot k at 128 + 16 k: state, pid, start (as the owner's)
 * </pre>
 * Liveness is the shared pipe's: each side holds an open-file-description lock on one byte of the
 * memfd (the owner's, and one per sender slot), which the kernel drops when the process dies. A
 * sender learns of a dead or closed owner from {@link SharedSignalSender#ownerAlive()} and at open
 * ({@link PeerGoneException}); the owner counts its live senders with {@link #liveSenders()}; a
 * dead sender's slot is free for the next sender to open.
 *
 * <p>The owner's {@link #close()} marks it closed, wakes its own sleeping thread, deletes the
 * reference file and closes its descriptor at once; the mapping is unmapped once this object is
 * unreachable, so that a signal racing the close never touches unmapped memory.
 */
public final class SharedSignaler implements PollableSignaler, Closeable {

    /** Signal ids {@code 0} to {@code 30}. */
    public static final int CAPACITY = 31;
    /** The longest single futex sleep of {@link #poll}: its interrupt and close latency. */
    static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final SharedSignalerFile file;
    private final ByteBuffer shared;
    private final long address;
    private final Futex futex = new Futex();
    private final int spins;
    /** {@link #armSleep} runs a {@link Membarrier} after arming (the file tells the senders). */
    private final boolean fenceSenders;
    private long sleeps;
    private volatile boolean closed;
    /** Re-fires the ids a throwing sink did not take (the owner is awake: no wake-up). */
    private final IntConsumer putBack;

    private SharedSignaler(SharedSignalerFile file, int spins) {
        this.file = file;
        this.shared = file.shared;
        this.address = file.wordAddress;
        this.spins = spins;
        this.fenceSenders = file.ownerFencesSenders();
        this.putBack = bits -> SharedSignalerWords.INT.getAndBitwiseOr(shared, WORD_AT, bits);
    }

    /**
     * Creates a signaler at {@code file} for up to {@code senders} sender processes at once; the
     * calling process is its owner. A reference file whose owner is gone is replaced.
     *
     * @param file the reference file's path (its directory must exist)
     * @param senders how many senders may be open at once, in [1, 4096]
     * @return the owner's side
     * @throws IllegalArgumentException if {@code senders} is out of range
     * @throws java.nio.file.FileAlreadyExistsException if a live owner, or a file that is not a
     *     signaler's, is there
     * @throws IOException if the memfd or the file cannot be made
     */
    public static SharedSignaler create(Path file, int senders) throws IOException {
        return create(file, senders, Membarrier.supported());
    }

    /**
     * {@link #create(Path, int)}, choosing how the senders' {@link SharedSignalSender#ring()}
     * gets its StoreLoad fence. With {@code fenceSenders} (the default where the kernel has
     * {@code membarrier(2)}) each {@link #armSleep} is followed by
     * {@code membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)}, a full fence on every running thread of
     * the sender processes (an inter-processor interrupt to the CPUs running them, about 0.5 us
     * for the owner), and a ring is one load; without it each ring is a full fence and a load,
     * and arming disturbs no other CPU.
     *
     * @param file the reference file's path (its directory must exist)
     * @param senders how many senders may be open at once, in [1, 4096]
     * @param fenceSenders {@code true} to fence the senders after each arm (refused where
     *     {@code membarrier} is missing), {@code false} for rings that fence themselves
     * @return the owner's side
     * @throws IllegalArgumentException if {@code senders} is out of range
     * @throws UnsupportedOperationException if {@code fenceSenders} and the kernel has no
     *     {@code MEMBARRIER_CMD_GLOBAL_EXPEDITED}
     * @throws java.nio.file.FileAlreadyExistsException if a live owner, or a file that is not a
     *     signaler's, is there
     * @throws IOException if the memfd or the file cannot be made
     */
    public static SharedSignaler create(Path file, int senders, boolean fenceSenders) throws IOException {
        if (fenceSenders && !Membarrier.supported()) {
            throw new UnsupportedOperationException("membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) is not "
                    + "available: create the signaler with fenceSenders false");
        }
        return new SharedSignaler(SharedSignalerFile.create(file, senders, fenceSenders), WaitPolicy.DEFAULT_SPINS);
    }

    /**
     * Opens a sender side of the signaler at {@code file} (in any process of the same user).
     *
     * @param file the reference file's path
     * @return the sender
     * @throws java.nio.file.NoSuchFileException if there is no file
     * @throws PeerGoneException if its owner died or closed
     * @throws PipeSideTakenException if all sender slots are held by live processes
     * @throws IOException if the file or the memory it names is not a signaler's (each check names
     *     what it found and what it expected)
     */
    public static SharedSignalSender openSender(Path file) throws IOException {
        return new SharedSignalSender(SharedSignalerFile.openSender(file));
    }

    /**
     * Fires signal {@code id} from this (the owner's) process: one atomic; wakes the owner if it
     * sleeps. Any thread may call this.
     *
     * @param id the signal, {@code 0 <= id < 31}
     * @throws IllegalArgumentException if {@code id} is out of range
     * @throws IllegalStateException if this signaler is closed
     */
    @Override
    public void signal(int id) {
        int bit = bit(id);
        if (closed) {
            throw new IllegalStateException("signaler " + file.path + " is closed");
        }
        SharedSignalerWords.signal(shared, WORD_AT, address, bit);
    }

    static int bit(int id) {
        if (id < 0 || id >= CAPACITY) {
            throw Waits.badId(id, CAPACITY);
        }
        return 1 << id;
    }

    /**
     * Returns {@code 31}: ids {@code 0} to {@code 30}.
     *
     * @return {@code 31}
     */
    @Override
    public int capacity() {
        return CAPACITY;
    }

    /**
     * Takes every fired signal without blocking (one load while none is fired). Owner only.
     *
     * @return the fired ids as a bitmask (bit {@code i} for id {@code i}), {@code 0} if none
     */
    public int check() {
        return SharedSignalerWords.take(shared, WORD_AT);
    }

    @Override
    public int check(IntConsumer ids) {
        Objects.requireNonNull(ids, "ids");
        return Waits.deliver(check(), ids, putBack);
    }

    /**
     * Takes every fired signal, waiting (spinning briefly, then sleeping in the futex) until one
     * is fired. Owner only.
     *
     * @return the fired ids as a bitmask; never {@code 0}
     * @throws InterruptedException if the owner is interrupted (seen within 100 ms while asleep)
     * @throws IllegalStateException if the signaler is closed meanwhile
     */
    public int poll() throws InterruptedException {
        return poll0(false, 0L);
    }

    /**
     * Takes every fired signal, waiting at most {@code timeout}. Owner only.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit its unit
     * @return the fired ids as a bitmask; {@code 0} if the time ran out
     * @throws InterruptedException if the owner is interrupted (seen within 100 ms while asleep)
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException if the signaler is closed meanwhile
     */
    public int poll(long timeout, TimeUnit unit) throws InterruptedException {
        return poll0(true, Waits.timeoutNanos(timeout, unit));
    }

    @Override
    public int poll(IntConsumer ids) throws InterruptedException {
        Objects.requireNonNull(ids, "ids");
        return Waits.deliver(poll(), ids, putBack);
    }

    @Override
    public int poll(IntConsumer ids, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(ids, "ids");
        return Waits.deliver(poll(timeout, unit), ids, putBack);
    }

    private int poll0(boolean timed, long nanos) throws InterruptedException {
        long deadline = timed ? System.nanoTime() + nanos : 0L;
        for (int i = 0; i < spins; i++) {
            int ids = check();
            if (ids != 0) {
                return ids;
            }
            Thread.onSpinWait();
        }
        for (;;) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (closed) {
                throw new IllegalStateException("signaler " + file.path + " is closed");
            }
            long slice = SLICE_NANOS;
            if (timed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return check();
                }
                slice = Math.min(slice, left);
            }
            // no membarrier: this loop's look after arming is at the word itself, which signals CAS
            if (SharedSignalerWords.arm(shared, WORD_AT, false)) {
                sleepIfArmed(slice);
            }
            int ids = check();
            if (ids != 0) {
                return ids;
            }
        }
    }

    /**
     * Marks the owner (going) asleep if no id is fired: a full fence (a CAS on the shared word)
     * before the caller's next look at its work, and, where the kernel has {@code membarrier(2)},
     * one on every running thread of the sender processes too (a system call, about 0.5 us: what
     * lets their {@link SharedSignalSender#ring()} go without a fence). Then the owner looks at its work once more and,
     * if there is none, calls {@link #sleepIfArmed}; a ring or a signal after this call is never
     * lost. Owner only.
     *
     * @return {@code true} if armed; {@code false} if an id is fired (take it with {@link #check})
     */
    public boolean armSleep() {
        return SharedSignalerWords.arm(shared, WORD_AT, fenceSenders);
    }

    /**
     * After {@link #armSleep} and a last look at the work: sleeps in the futex until a signal or
     * a ring, at most {@code nanos}, unless one came since the arm; then clears the sleep mark.
     * Owner only.
     *
     * @param nanos the longest sleep, {@code > 0}
     * @return {@code true} if it slept (until woken or timed out); {@code false} if a signal or
     *     ring had come already
     * @throws IllegalArgumentException if {@code nanos <= 0}
     */
    public boolean sleepIfArmed(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("nanos must be > 0: " + nanos);
        }
        if (!SharedSignalerWords.sleepIfArmed(shared, WORD_AT, address, futex, nanos)) {
            return false;
        }
        LONG.setOpaque(shared, SLEEPS_AT, ++sleeps);
        return true;
    }

    /** Clears the sleep mark if it is set (the owner found work after {@link #armSleep}). Owner only. */
    public void disarm() {
        SharedSignalerWords.disarm(shared, WORD_AT);
    }

    /**
     * Returns how many times the owner slept in the futex ({@link #sleepIfArmed} that slept).
     *
     * @return the count
     */
    public long sleeps() {
        return sleeps;
    }

    /**
     * Counts the sender slots that a live process holds (one {@code fcntl} per slot).
     *
     * @return the live senders
     * @throws IOException if {@code fcntl} fails
     */
    public int liveSenders() throws IOException {
        return file.liveSenders();
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
     * Closes the owner's side: marks it closed (senders see it), wakes the owner's sleeping
     * thread (its {@code poll} throws {@link IllegalStateException}), deletes the reference file
     * and closes the descriptor; the mapping goes once this object is unreachable. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        file.markClosed();
        SharedSignalerWords.ring(shared, WORD_AT, address);
        file.deleteReference();
        file.releaseWhenUnreachable(this);
    }

    /** The files (tests). */
    SharedSignalerFile file() {
        return file;
    }

    /** The shared word as it is now (tests). */
    int word() {
        return (int) SharedSignalerWords.INT.getVolatile(shared, WORD_AT);
    }

    @Override
    public String toString() {
        return "SharedSignaler[" + file.path + (closed ? ", closed]" : ", fired " + Integer.toBinaryString(
                SharedSignalerWords.fired(shared, WORD_AT)) + "]");
    }
}
