// Over 500 lines: both sides of the shared pipe (writer, reader), its close hand-shake and its
// fault handling live in this one type until the reader and the writer become types of their own.
package org.ysuite;

import static org.ysuite.RecordDescriptor.HEADER_BYTES;
import static org.ysuite.RecordDescriptor.PADDING;
import static org.ysuite.RecordDescriptor.recordSize;
import static org.ysuite.SharedPipeFile.C_AT;
import static org.ysuite.SharedPipeFile.CLOSED;
import static org.ysuite.SharedPipeFile.HEADER_SIZE;
import static org.ysuite.SharedPipeFile.HEAD_AT;
import static org.ysuite.SharedPipeFile.INT;
import static org.ysuite.SharedPipeFile.OPEN;
import static org.ysuite.SharedPipeFile.READER_SLEEP_AT;
import static org.ysuite.SharedPipeFile.READER_WAKE_AT;
import static org.ysuite.SharedPipeFile.WRITER_SLEEP_AT;
import static org.ysuite.SharedPipeFile.WRITER_WAKE_AT;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.internal.Futex;
import org.ysuite.internal.SideGuard;

/**
 * The ypipe protocol over a shared, memory-mapped file: one writer process, one reader process.
 * The reader that finds nothing sleeps on a word of the file with Linux {@code futex}; the writer
 * wakes it, with one system call, only on the flush that finds it asleep — nothing is signalled
 * while the reader keeps up. The same in the other direction for a writer waiting for space.
 *
 * <h2>File</h2>
 * A header of 4096 bytes, then the ring ({@link OffHeapYPipe}'s records: a 4-byte header with the
 * length and a "more parts" flag, the payload padded to 8 bytes, a padding record at the ring's
 * end). The file's size is exactly header + capacity. Native byte order (the file is for
 * processes on one machine).
 * <pre>
 *  offset  size  written by
 *     0      8           magic "YSPIPE01" (written last when the file is created)
 *     8      4           layout version (2)
 *    12      4           header size (4096)
 *    16      4           ring capacity: a power of two, {@value #MIN_CAPACITY_BYTES} .. {@value #MAX_CAPACITY_BYTES}
 *    64     16   writer  writer: state (0 FREE, 1 OPEN, 2 CLOSED), pid, JVM start time (epoch ms)
 *    96     16   reader  reader: the same
 *   128      8   writer  c: the end of the last flush
 *   256      8   reader  head: how far the reader has consumed
 *   384      8   reader  readerSleep: a counter, odd while the reader is (going) asleep
 *   392      4   reader  writerWake: the futex word a writer waiting for space sleeps on
 *   512      8   writer  writerSleep: a counter, odd while the writer waits for space
 *   520      4   writer  readerWake: the futex word the reader sleeps on
 *  4096   capacity       the ring
 * </pre>
 * Positions count bytes from the pipe's creation, never wrap and are multiples of 8: a restarted
 * writer resumes at {@code c}, a restarted reader at {@code head}.
 *
 * <h2>Protocol</h2>
 * Each shared word has one writer, and every access to the file is a plain, acquire or volatile
 * load or a volatile store — no compare-and-set: a read-modify-write on a page of a truncated
 * file crashes the JVM, a load or store there does not (see below).
 * <ul>
 *   <li>Writer's {@link #flush()}: volatile store of {@code c}, then a volatile load of
 *       {@code readerSleep}; if it is odd and not woken yet, bump {@code readerWake} and
 *       {@code FUTEX_WAKE} it.</li>
 *   <li>Reader, nothing prefetched: spins on acquire loads of {@code c} as its {@link WaitPolicy}
 *       allows, then reads {@code readerWake}, stores a new odd {@code readerSleep} (volatile),
 *       loads {@code c} again (volatile) and, if nothing moved and the writer is not closed,
 *       sleeps in {@code FUTEX_WAIT} on {@code readerWake} expecting the value it read.</li>
 *   <li>The other way the same: the reader publishes {@code head} (volatile store) once per
 *       read call that consumed something and then looks at {@code writerSleep}; a writer
 *       without room arms {@code writerSleep} and sleeps on {@code writerWake}.</li>
 *   <li>A side's {@link #close()} stores CLOSED in its state, then bumps the word its peer
 *       sleeps on and wakes it.</li>
 * </ul>
 * Volatile accesses are sequentially consistent, so of "store c, load readerSleep" and "store
 * readerSleep, load c" one sees the other's store, and a word is always bumped before its
 * {@code FUTEX_WAKE}: no wake-up is lost (the argument in full is in the source of
 * {@code SharedWords}).
 *
 * <h2>Peers</h2>
 * Each side holds an open-file-description lock on a byte of the file while it is open; the
 * kernel drops it when the process dies ({@code kill -9} too). A sleeper wakes every
 * {@link Builder#peerCheck peerCheck} (default 1 s) to look: a peer whose side is still marked
 * open but whose lock is free has died, and the wait ends with {@link PeerGoneException} within
 * about that time. Every message flushed before the writer died or closed is delivered whole (a
 * message becomes visible only by a flush, which moves {@code c} past complete records only).
 * A restarted writer reopens the writer side with {@link Builder#openWriter()}; a restarted reader
 * resumes at the last published head, so the messages a reader consumed in the call it died in
 * may be delivered again (at-least-once across a reader crash). Opening a side that a live
 * process holds throws {@link PipeSideTakenException}.
 *
 * <h2>What the file can and cannot guard against</h2>
 * Opening checks the magic, version, header size, capacity, the file's size, the shared
 * positions and both sides' states, each failure an {@link IOException} naming it. While the file
 * is mapped, every length, position and state read from it is checked before it is used (each
 * record header is read once), so another process that scribbles over the file can only cause an
 * {@link IllegalStateException} naming the corruption (or wrong message contents), never an
 * access outside the mapping; a side state other than FREE, OPEN or CLOSED is such a corruption.
 * A process that <em>truncates</em> the file while it is mapped makes accesses to the lost pages
 * fault: the operation that meets the fault throws {@link IllegalStateException} saying the file
 * was truncated, and the JVM and every other pipe go on; {@link #close()} does not throw it. When
 * the faulting access ran in compiled code, the JVM reports the fault a little later than the
 * access, so one read may first return bytes of a lost page (zeros). Keep the file where only the
 * two processes can write it (it is created with permissions 0600).
 *
 * <h2>Threads</h2>
 * Exactly one thread at a time uses a pipe instance; {@link #close()} may come from any thread
 * at any time (as {@link OffHeapYPipe}'s): the file is unmapped only once no operation is inside
 * it, and every operation after it throws {@link IllegalStateException}. A virtual thread does
 * not sleep in {@code futex} (that would pin its carrier): it parks in short timed slices
 * (50 µs growing to 1 ms) and looks at the word after each, so its wake-up may come up to 1 ms
 * late.
 */
public final class SharedYPipe implements AutoCloseable {

    /** Smallest ring capacity in bytes. */
    public static final int MIN_CAPACITY_BYTES = OffHeapRing.MIN_CAPACITY;
    /** Largest ring capacity in bytes. */
    public static final int MAX_CAPACITY_BYTES = OffHeapRing.MAX_CAPACITY;

    /**
     * A check is a wake-up; each costs 70-300 µs of CPU on a small virtual machine, so 100 ms
     * would keep an idle reader at 0.3 % of a core, 1 s keeps it at 0.03 %.
     */
    private static final long DEFAULT_PEER_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MIN_PARK_NANOS = 50_000;
    private static final long MAX_PARK_NANOS = 1_000_000;

    private static final VarHandle SIDE;
    private static final VarHandle PINS;

    static {
        try {
            SIDE = MethodHandles.lookup().findVarHandle(SharedYPipe.class, "side", long.class);
            PINS = MethodHandles.lookup().findVarHandle(SharedYPipe.class, "pins", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        SideGuard.preload();
    }

    private final SharedPipeFile file;
    private final boolean writer;
    private final String name;
    private final int capacity;
    private final int mask;
    private final int maxMessageLength;
    /** The whole mapping: the header and the shared words. */
    private final ByteBuffer shared;
    /** The ring: our own accesses are absolute only. */
    private final ByteBuffer ring;
    private final ByteBuffer writerView;
    private final ByteBuffer readerView;
    /** The futex words: the one the reader sleeps on, the one a waiting writer sleeps on. */
    private final long readerWakeWord;
    private final long writerWakeWord;
    /** This side's sleep, and its waking of the peer. */
    private final SharedWords.Sleep sleep;
    private final SharedWords.Wake wake;
    private final WaitPolicy readerPolicy;
    private final WaitPolicy writerPolicy;
    private final long peerCheckNanos;
    private final Futex futex = new Futex();

    /** Writer: first byte not yet flushed; end of the last complete record; end of the last. */
    private long w;
    private long f;
    private long tail;
    /** Writer: the last head it read. */
    private long headCache;
    /** Writer: the open claim's record position (or -1), length and thread. */
    private long claimStart = -1;
    private int claimLength;
    private Thread claimThread;
    /** Reader: next record to read; end of what it has prefetched. */
    private long front;
    private long r;
    /** Reader: the header of the record at front, read once from the file and checked. */
    private int frontHeader;

    /** This side's {@link SideGuard} word (no payload). */
    private volatile long side;
    /** Threads outside the guard touching the mapping (close's wake-ups); see {@link #close()}. */
    private volatile int pins;
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    /** The side's last act (final flush, CLOSED, the peer's wake-up) has been done. */
    private final AtomicBoolean finished = new AtomicBoolean();
    /** The thread sleeping in this side's wait, for close() to unpark a virtual one. */
    private volatile Thread sleeper;

    private SharedYPipe(SharedPipeFile file, Builder b) {
        this.file = file;
        this.writer = file.writer;
        this.name = file.path.toString();
        this.capacity = file.capacity;
        this.mask = capacity - 1;
        this.maxMessageLength = RecordDescriptor.maxLength(capacity);
        this.shared = file.mapped;
        this.ring = shared.slice(HEADER_SIZE, capacity).order(ByteOrder.nativeOrder());
        this.writerView = ring.duplicate().order(ByteOrder.nativeOrder());
        this.readerView = ring.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
        long base = Futex.address(shared);
        this.readerWakeWord = base + READER_WAKE_AT;
        this.writerWakeWord = base + WRITER_WAKE_AT;
        if (writer) {
            this.sleep = new SharedWords.Sleep(shared, WRITER_SLEEP_AT, WRITER_WAKE_AT);
            this.wake = new SharedWords.Wake(shared, READER_SLEEP_AT, READER_WAKE_AT, readerWakeWord);
        } else {
            this.sleep = new SharedWords.Sleep(shared, READER_SLEEP_AT, READER_WAKE_AT);
            this.wake = new SharedWords.Wake(shared, WRITER_SLEEP_AT, WRITER_WAKE_AT, writerWakeWord);
        }
        this.readerPolicy = b.readerPolicy;
        this.writerPolicy = b.writerPolicy;
        this.peerCheckNanos = b.peerCheckNanos;
        long c = SharedWords.positionAfterArm(shared, C_AT); // checked at open
        long head = SharedWords.positionAfterArm(shared, HEAD_AT);
        w = f = tail = c; // a restarted writer resumes after the last flush
        headCache = head;
        front = r = head; // a restarted reader resumes at the last published head
        file.releaseWhenUnreachable(this);
    }

    /**
     * Returns a builder for a pipe over {@code file}.
     *
     * @param file the pipe file (e.g. under {@code /dev/shm})
     * @return a builder with the defaults: 1 MiB, {@link WaitPolicy#defaultPolicy()} both ways,
     *     peer check every second
     * @throws NullPointerException if {@code file} is null
     */
    public static Builder builder(Path file) {
        return new Builder(Objects.requireNonNull(file, "file"));
    }

    /**
     * Creates a new pipe file and opens its writer side: {@code builder(file).capacity(c).createWriter()}.
     *
     * @param file where to create it; must not exist
     * @param capacityBytes the ring's size, a power of two from {@value #MIN_CAPACITY_BYTES} to
     *     {@value #MAX_CAPACITY_BYTES}
     * @return the writer
     * @throws IOException if the file exists ({@link java.nio.file.FileAlreadyExistsException})
     *     or cannot be created
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range
     */
    public static SharedYPipe createWriter(Path file, int capacityBytes) throws IOException {
        return builder(file).capacity(capacityBytes).createWriter();
    }

    /**
     * Opens an existing pipe file's reader side: {@code builder(file).openReader()}.
     *
     * @param file the pipe file
     * @return the reader
     * @throws IOException if the file is not a valid pipe file (the message says why)
     * @throws PipeSideTakenException if another open pipe holds the reader side
     */
    public static SharedYPipe openReader(Path file) throws IOException {
        return builder(file).openReader();
    }

    /**
     * Deletes the pipe file at {@code file} unless a live process holds one of its sides: the
     * clean-up after both sides have closed (by the consumer, which knows it has read everything,
     * or by an operator), or of a file left by a crash. It takes both sides' locks on the file
     * first, so no process can open a side while it deletes; a symbolic link at {@code file} is
     * not followed (it is {@link java.nio.file.FileSystemException}, and nothing is deleted).
     *
     * @param file the pipe file
     * @return {@code true} if it was deleted, {@code false} if there was no file
     * @throws PipeSideTakenException if a live process holds a side (the message names it); the
     *     file stays
     * @throws IOException if it is not a pipe file (nothing is deleted) or cannot be deleted
     */
    public static boolean delete(Path file) throws IOException {
        return SharedPipeFile.delete(Objects.requireNonNull(file, "file"));
    }

    /** The settings of a pipe to create or open; then one of the three opens. */
    public static final class Builder {
        private final Path file;
        private int capacity = 1 << 20;
        private WaitPolicy readerPolicy = WaitPolicy.defaultPolicy();
        private WaitPolicy writerPolicy = WaitPolicy.defaultPolicy();
        private long peerCheckNanos = DEFAULT_PEER_CHECK_NANOS;
        private boolean otherUsers;
        private boolean replaceStale;
        private long awaitFileNanos = -1;

        private Builder(Path file) {
            this.file = file;
        }

        /**
         * Sets the ring's size for {@link #createWriter()} (an opened pipe has its file's).
         *
         * @param capacityBytes a power of two from {@value #MIN_CAPACITY_BYTES} to
         *     {@value #MAX_CAPACITY_BYTES}; default 1 MiB
         * @return this builder
         * @throws IllegalArgumentException if out of range or not a power of two
         */
        public Builder capacity(int capacityBytes) {
            this.capacity = OffHeapRing.checkCapacity(capacityBytes);
            return this;
        }

        /**
         * Sets how the reader spins before it sleeps on the futex.
         *
         * @param policy the reader's policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder readerPolicy(WaitPolicy policy) {
            this.readerPolicy = Waits.checkPolicy(policy, "readerPolicy");
            return this;
        }

        /**
         * Sets how a writer waiting for space spins before it sleeps on the futex.
         *
         * @param policy the writer's policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder writerPolicy(WaitPolicy policy) {
            this.writerPolicy = Waits.checkPolicy(policy, "writerPolicy");
            return this;
        }

        /**
         * Sets how often a sleeping side wakes to check that its peer process is alive: the
         * longest a wait goes on after the peer died (plus scheduling). Default 1 s; each check
         * is a wake-up that costs CPU (about 0.03 % of a core per sleeping side at 1 s, ten
         * times that at 100 ms, on the 2-core machine the project measures on).
         *
         * @param time the interval, from 1 ms to 1 hour
         * @param unit its unit
         * @return this builder
         * @throws IllegalArgumentException if out of range
         * @throws NullPointerException if {@code unit} is null
         */
        public Builder peerCheck(long time, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            long nanos = unit.toNanos(time);
            if (nanos < TimeUnit.MILLISECONDS.toNanos(1) || nanos > TimeUnit.HOURS.toNanos(1)) {
                throw new IllegalArgumentException("peerCheck must be from 1 ms to 1 hour: " + time + " " + unit);
            }
            this.peerCheckNanos = nanos;
            return this;
        }

        /**
         * Creates the pipe file, permissions 0600, with its header complete before it appears
         * under its name, and opens its writer side.
         *
         * @return the writer
         * @throws java.nio.file.FileAlreadyExistsException if the file exists (and, with
         *     {@link #replaceStale()}, it was created again meanwhile)
         * @throws PipeSideTakenException with {@link #replaceStale()}, if a live process holds a
         *     side of the existing file
         * @throws java.nio.file.NoSuchFileException if the directory does not exist (named)
         * @throws IOException if it cannot be created, e.g. its blocks do not fit in the file
         *     system's free space (the message names the size and the free space)
         */
        public SharedYPipe createWriter() throws IOException {
            return open(SharedPipeFile.create(file, capacity, replaceStale));
        }

        /**
         * Opens an existing pipe's writer side (a restarted writer): it continues after the last
         * message flushed.
         *
         * @return the writer
         * @throws PipeSideTakenException if another open pipe holds the writer side
         * @throws java.nio.file.NoSuchFileException if there is no file (after the
         *     {@link #awaitFile} wait, if set)
         * @throws java.nio.file.FileSystemException if the path is a symbolic link, or the file is
         *     another user's or others may write it (unless {@link #allowOtherUsers()})
         * @throws IOException if the file is not a valid pipe file (the message says why)
         */
        public SharedYPipe openWriter() throws IOException {
            return open(openFile(true));
        }

        /**
         * Opens an existing pipe's reader side: it reads from the last head published.
         *
         * @return the reader
         * @throws PipeSideTakenException if another open pipe holds the reader side
         * @throws java.nio.file.NoSuchFileException if there is no file (after the
         *     {@link #awaitFile} wait, if set)
         * @throws java.nio.file.FileSystemException if the path is a symbolic link, or the file is
         *     another user's or others may write it (unless {@link #allowOtherUsers()})
         * @throws IOException if the file is not a valid pipe file (the message says why)
         */
        public SharedYPipe openReader() throws IOException {
            return open(openFile(false));
        }

        /**
         * Accepts, for {@link #openReader()} and {@link #openWriter()}, a pipe file owned by
         * another user or writable by its group or others (by default such a file is refused
         * with an {@link IOException} naming its owner or mode: whoever can write the file can
         * feed this process messages, read them, or crash it by truncating the file). For a pipe
         * shared between users on purpose, e.g. through a group; the file must still be a
         * regular file at the path itself (a symbolic link is never followed).
         *
         * @return this builder
         */
        public Builder allowOtherUsers() {
            this.otherUsers = true;
            return this;
        }

        /**
         * Makes {@link #createWriter()} replace a pipe file already at the path when no live
         * process holds either of its sides (one left by a crash, or by a clean run nobody
         * deleted): see {@link SharedYPipe#delete(Path)}. A file that a live process holds stays,
         * and {@code createWriter()} throws {@link PipeSideTakenException} naming the process.
         *
         * @return this builder
         */
        public Builder replaceStale() {
            this.replaceStale = true;
            return this;
        }

        /**
         * Makes {@link #openReader()} and {@link #openWriter()} wait, up to {@code time}, for the
         * file to appear, so that a consumer may start before its producer. The wait watches the
         * directory (inotify) and looks at least every 100 ms; it never spins. The directory must
         * exist. A file appears complete (it is linked under its name once its header is written).
         *
         * @param time the longest wait, from 0 (do not wait, the default) to 1 day
         * @param unit its unit
         * @return this builder
         * @throws IllegalArgumentException if out of range
         * @throws NullPointerException if {@code unit} is null
         */
        public Builder awaitFile(long time, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            long nanos = unit.toNanos(time);
            if (time < 0 || nanos > TimeUnit.DAYS.toNanos(1)) {
                throw new IllegalArgumentException("awaitFile must be from 0 to 1 day: " + time + " " + unit);
            }
            this.awaitFileNanos = nanos;
            return this;
        }

        /** Opens a side, waiting for the file to appear as {@link #awaitFile} says. */
        private SharedPipeFile openFile(boolean writer) throws IOException {
            long deadline = System.nanoTime() + Math.max(awaitFileNanos, 0);
            for (;;) {
                try {
                    return SharedPipeFile.open(file, writer, otherUsers);
                } catch (java.nio.file.NoSuchFileException e) {
                    long left = deadline - System.nanoTime();
                    if (awaitFileNanos <= 0) {
                        throw e;
                    }
                    if (left <= 0 || !SharedPipeFileSystem.awaitFile(file.toAbsolutePath(), left)) {
                        throw new java.nio.file.NoSuchFileException(file.toAbsolutePath().toString(), null,
                                "no pipe file after waiting " + TimeUnit.NANOSECONDS.toMillis(awaitFileNanos)
                                        + " ms (awaitFile)");
                    }
                }
            }
        }

        private SharedYPipe open(SharedPipeFile opened) {
            try {
                return new SharedYPipe(opened, this);
            } catch (RuntimeException | Error e) {
                opened.release();
                throw e;
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Writer
    // ------------------------------------------------------------------------------------------

    /**
     * Writes {@code src} as one complete message; it becomes visible at the next {@link #flush()}.
     *
     * @param src the message
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IllegalArgumentException if the message is longer than {@link #maxMessageLength()}
     * @throws IllegalStateException if this is the reader, the pipe is closed, or another thread
     *     is writing
     */
    public boolean write(byte[] src) {
        Objects.requireNonNull(src, "src");
        return write(src, 0, src.length, false);
    }

    /**
     * Writes {@code length} bytes of {@code src} from {@code offset} as one message.
     *
     * @param src the bytes
     * @param offset where the message starts in {@code src}
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @param incomplete {@code true} if more parts of the same message follow
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
     * @throws IllegalArgumentException if {@code length} is longer than {@link #maxMessageLength()}
     * @throws IllegalStateException if this is the reader, the pipe is closed, or another thread
     *     is writing
     */
    public boolean write(byte[] src, int offset, int length, boolean incomplete) {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.length);
        long start = beginWrite(length);
        if (start < 0) {
            return false;
        }
        try {
            ring.put(index(start) + HEADER_BYTES, src, offset, length);
            append(start, length, incomplete);
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
        return true;
    }

    /**
     * Writes the remaining bytes of {@code src} as one message, advancing its position past them
     * if the message was written.
     *
     * @param src the bytes
     * @param incomplete {@code true} if more parts of the same message follow
     * @return {@code true} if written; {@code false} if the ring has no room now
     * @throws NullPointerException if {@code src} is null
     * @throws IllegalArgumentException if {@code src.remaining()} is longer than
     *     {@link #maxMessageLength()}
     * @throws IllegalStateException if this is the reader, the pipe is closed, or another thread
     *     is writing
     */
    public boolean write(ByteBuffer src, boolean incomplete) {
        Objects.requireNonNull(src, "src");
        int length = src.remaining();
        long start = beginWrite(length);
        if (start < 0) {
            return false;
        }
        try {
            ring.put(index(start) + HEADER_BYTES, src, src.position(), length);
            src.position(src.position() + length);
            append(start, length, incomplete);
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
        return true;
    }

    /**
     * Claims room for a message of {@code length} bytes to be built in place in
     * {@link #claimBuffer()} at {@code [returned, returned + length)}, until {@link #commit(boolean)}.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @return the index of the message's first byte in {@link #claimBuffer()}, or {@code -1} if
     *     the ring has no room now
     * @throws IllegalArgumentException if {@code length} is out of range
     * @throws IllegalStateException if this is the reader, the pipe is closed, another thread is
     *     writing, or a claim is already open
     */
    public int claim(int length) {
        long start = beginWrite(length);
        if (start < 0) {
            return -1;
        }
        claimStart = start;
        claimLength = length;
        claimThread = Thread.currentThread();
        OffHeapRing.wholeRing(writerView);
        return index(start) + HEADER_BYTES; // the writer side stays entered until commit
    }

    /**
     * Returns the buffer {@link #claim(int)} indexes (the ring), reset to position 0, limit its
     * capacity and native order. Write only inside an open claim.
     *
     * @return the ring buffer
     * @throws IllegalStateException if this is the reader or the pipe is closed
     */
    public ByteBuffer claimBuffer() {
        requireSide(true);
        checkOpen();
        return OffHeapRing.wholeRing(writerView);
    }

    /**
     * Completes the open claim: the message is visible at the next flush. If the pipe was closed
     * while the claim was open, the claimed message is discarded (the complete messages written
     * before it are flushed, as by {@link #close()}) and {@link IllegalStateException} thrown.
     *
     * @param incomplete {@code true} if more parts of the same message follow
     * @throws IllegalStateException if this is the reader, no claim is open, or the pipe was
     *     closed meanwhile
     */
    public void commit(boolean incomplete) {
        requireSide(true);
        if (claimStart < 0) {
            checkOpen();
            throw new IllegalStateException("no open claim: call claim(length) first");
        }
        long start = claimStart;
        claimStart = -1;
        claimThread = null;
        if (((long) SIDE.getOpaque(this) & SideGuard.CLOSING) != 0) {
            exit(); // finishes the close: flushes the messages before the claim
            throw new IllegalStateException("pipe is closed: the claimed message is discarded");
        }
        try {
            append(start, claimLength, incomplete);
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * Takes back the message written last, if it has not been flushed yet.
     *
     * @return {@code true} if a message was taken back; {@code false} if everything written has
     *     been flushed
     * @throws IllegalStateException if this is the reader, the pipe is closed, another thread is
     *     writing, or a claim is open
     */
    public boolean unwrite() {
        enter(true);
        try {
            long last = -1;
            for (long pos = w; pos != tail; ) {
                int header = headerAt(pos);
                if (header != PADDING) {
                    last = pos;
                }
                pos = recordEnd(pos, header, tail);
            }
            if (last < 0) {
                tail = w; // only padding was unflushed
                return false;
            }
            tail = last;
            long end = w; // f: the end of the last complete record still written
            for (long pos = w; pos != tail; ) {
                int header = headerAt(pos);
                pos = recordEnd(pos, header, tail);
                if (header != PADDING && RecordDescriptor.isLastPart(header)) {
                    end = pos;
                }
            }
            f = end;
            return true;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * Makes every complete message written so far visible to the reader; if the reader was
     * asleep, wakes it ({@code FUTEX_WAKE}) before returning.
     *
     * @return {@code true} if the reader was awake (or nothing needed flushing); {@code false} if
     *     it was asleep and this call has woken it (nothing is left for the caller to do)
     * @throws IllegalStateException if this is the reader, the pipe is closed, another thread is
     *     writing, or the file was truncated
     */
    public boolean flush() {
        requireSide(true);
        if (claimStart >= 0 && claimThread == Thread.currentThread()) {
            try {
                return flushPositions(); // inside our own claim: the side is entered already
            } catch (InternalError | Futex.FaultException e) {
                throw fault(e);
            }
        }
        if (w == f) { // nothing new: the positions are this thread's, the mapping is not touched
            checkOpen();
            return true;
        }
        enter(true);
        try {
            return flushPositions();
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * Waits until a message of {@code length} bytes fits. Flush first: the reader frees space
     * only by consuming flushed messages.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @throws InterruptedException if interrupted while waiting
     * @throws PeerGoneException if the reader died, or closed its side, while there is no room
     * @throws IOException if the peer check fails
     * @throws IllegalArgumentException if {@code length} is out of range or can never fit behind
     *     the incomplete parts already written
     * @throws IllegalStateException if this is the reader, messages are unflushed, or the pipe is
     *     closed (also while waiting)
     */
    public void awaitSpace(int length) throws InterruptedException, IOException {
        awaitRoom(length, -1L);
    }

    /**
     * Waits at most {@code timeout} until a message of {@code length} bytes fits. Flush first.
     *
     * @param length the message's length, {@code 0 <= length <= maxMessageLength()}
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return {@code true} if the message fits now; {@code false} if the time ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws PeerGoneException if the reader died, or closed its side, while there is no room
     * @throws IOException if the peer check fails
     * @throws IllegalArgumentException if {@code length} or {@code timeout} is out of range
     * @throws IllegalStateException if this is the reader, messages are unflushed, or the pipe is
     *     closed (also while waiting)
     * @throws NullPointerException if {@code unit} is null
     */
    public boolean awaitSpace(int length, long timeout, TimeUnit unit)
            throws InterruptedException, IOException {
        return awaitRoom(length, Waits.timeoutNanos(timeout, unit));
    }

    // ------------------------------------------------------------------------------------------
    // Reader
    // ------------------------------------------------------------------------------------------

    /**
     * Tells whether a message can be read, prefetching every message flushed so far. A
     * {@code false} answer has marked the reader asleep (the writer's next flush will wake the
     * futex); use {@link #awaitMessage()} to sleep.
     *
     * @return {@code true} if {@link #read(byte[])} will return a message
     * @throws IllegalStateException if this is the writer, the pipe is closed, another thread is
     *     reading, or the file is corrupt
     */
    public boolean checkRead() {
        enter(false);
        long from = front;
        try {
            return nextMessage();
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            leaveReader(from);
        }
    }

    /**
     * Copies the next message into {@code dst}.
     *
     * @param dst where to copy the message, from index 0
     * @return the message's length, or {@code -1} if the pipe is empty
     * @throws NullPointerException if {@code dst} is null
     * @throws IllegalArgumentException if the message is longer than {@code dst} (it stays)
     * @throws IllegalStateException if this is the writer, the pipe is closed, another thread is
     *     reading, or the file is corrupt
     */
    public int read(byte[] dst) {
        Objects.requireNonNull(dst, "dst");
        enter(false);
        long from = front;
        try {
            if (!nextMessage()) {
                return -1;
            }
            // frontHeader: read once and checked by nextMessage (another process may change the
            // file's copy meanwhile; what we copy and how far we advance follow the checked one)
            int length = RecordDescriptor.copyPayload(ring, index(front), frontHeader, dst);
            front += recordSize(length);
            return length;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            leaveReader(from);
        }
    }

    /**
     * Hands every prefetched message, or if there is none every message flushed so far, to
     * {@code handler} as views into the ring (see {@link OffHeapYPipe.MessageHandler}); head is
     * published once, when the call returns.
     *
     * @param handler called once per message, in order; an exception from it propagates, and
     *     its message counts as read
     * @return how many messages were handed over; {@code 0} if the pipe is empty
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalStateException if this is the writer, the pipe is closed, another thread is
     *     reading, or the file is corrupt
     */
    public int readBatch(OffHeapYPipe.MessageHandler handler) {
        Objects.requireNonNull(handler, "handler");
        enter(false);
        long from = front;
        try {
            if (!nextMessage()) {
                return 0;
            }
            int n = 0;
            for (int header = frontHeader; ; header = headerAt(front)) { // each header read once
                long next = recordEnd(front, header, r);
                if (header != PADDING) {
                    try {
                        handler.onMessage(OffHeapRing.wholeRing(readerView), index(front) + HEADER_BYTES,
                                RecordDescriptor.length(header));
                    } finally {
                        front = next;
                    }
                    n++;
                    if (((long) SIDE.getOpaque(this) & SideGuard.CLOSING) != 0) {
                        break; // the handler closed the pipe
                    }
                } else {
                    front = next;
                }
                if (front == r) {
                    break;
                }
            }
            return n;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            leaveReader(from);
        }
    }

    /**
     * Waits until a message can be read.
     *
     * @return {@code true} if a message can be read; {@code false} if the writer closed its side
     *     and every message was read
     * @throws PeerGoneException if the writer died, after every message it flushed was read
     * @throws InterruptedException if interrupted while waiting
     * @throws IOException if the peer check fails
     * @throws IllegalStateException if this is the writer, the pipe is closed (also while
     *     waiting), another thread is reading, or the file is corrupt
     */
    public boolean awaitMessage() throws InterruptedException, IOException {
        return awaitRead(-1L);
    }

    /**
     * Waits at most {@code timeout} until a message can be read.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return {@code true} if a message can be read; {@code false} at the end of the stream or
     *     when the time ran out ({@link #isEndOfStream()} tells which)
     * @throws PeerGoneException if the writer died, after every message it flushed was read
     * @throws InterruptedException if interrupted while waiting
     * @throws IOException if the peer check fails
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if this is the writer, the pipe is closed (also while
     *     waiting), another thread is reading, or the file is corrupt
     */
    public boolean awaitMessage(long timeout, TimeUnit unit) throws InterruptedException, IOException {
        return awaitRead(Waits.timeoutNanos(timeout, unit));
    }

    /**
     * Tells whether the writer closed its side and every message it flushed has been read.
     *
     * @return {@code true} at the clean end of the stream
     * @throws IllegalStateException if this is the writer, the pipe is closed or another thread
     *     is reading
     */
    public boolean isEndOfStream() {
        enter(false);
        try {
            return front == r && peerState() == CLOSED && SharedWords.positionAfterArm(shared, C_AT) == front;
        } catch (InternalError e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Both
    // ------------------------------------------------------------------------------------------

    /**
     * Returns the ring's size.
     *
     * @return the capacity in bytes
     */
    public int capacity() {
        return capacity;
    }

    /**
     * Returns the largest message this pipe carries.
     *
     * @return {@code capacity() / 2 - 4}
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Returns the pipe file.
     *
     * @return its absolute path
     */
    public Path file() {
        return file.path;
    }

    /**
     * Tells which side this instance is.
     *
     * @return {@code true} for the writer, {@code false} for the reader
     */
    public boolean isWriter() {
        return writer;
    }

    /**
     * Tells whether {@link #close()} has been called.
     *
     * @return {@code true} once closed
     */
    public boolean isClosed() {
        return SideGuard.isClosed(side);
    }

    /**
     * Closes this side: a writer flushes its complete messages (incomplete parts are dropped),
     * marks its side closed and wakes the reader; a reader marks its side closed and wakes a
     * waiting writer. A wait of this instance in another thread ends with
     * {@link IllegalStateException}. If an operation of this instance is running in another
     * thread (a {@code write}, or a claim opened there and not committed yet), that thread does
     * the flush, the mark and the wake-up on its way out, so every message whose write returned
     * before the close is delivered; the message of a claim still open is discarded (its
     * {@link #commit(boolean)} throws). A close from the thread that holds an open claim
     * discards the claim at once and flushes what was written before it. The file is unmapped
     * and the lock's descriptor closed as soon as no operation is inside (at once if none is).
     * The file stays. Idempotent; never throws, even when the file was truncated. (A pipe that
     * is never closed gives its side back when it is garbage-collected, without the clean
     * close's flush and mark: its peer sees it as dead.)
     */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) {
            return;
        }
        // The pin keeps the mapping while this thread touches it outside the guard: tryRelease
        // unmaps only when the side is CLOSED and no pin is held (both volatile: whichever of
        // close and an exiting operation comes last sees both, and unmaps).
        PINS.getAndAdd(this, 1);
        try {
            boolean inside;
            if (claimStart >= 0 && claimThread == Thread.currentThread()) {
                claimStart = -1; // our own open claim: the side is entered by this thread; drop it
                claimThread = null;
                inside = true;
            } else {
                inside = tryEnter();
            }
            SideGuard.close(SIDE, this); // BUSY: now BUSY|CLOSING; the exit below (or the op's) finishes
            if (inside) {
                exit();
            } else if (((long) SIDE.getVolatile(this) & SideGuard.BUSY) == 0) {
                // The operation that kept us out has left (our close moved IDLE to CLOSED, or its
                // exit saw CLOSING and finished): finish here if it did not. Its release exit
                // happened before our volatile read of CLOSED: its positions are visible.
                finishOnce();
            }
            // A wait of this instance that read side before our close may enter FUTEX_WAIT after
            // our wake-up (see sleep): wake its word until it has left, for at most a slice.
            long ownWord = writer ? writerWakeWord : readerWakeWord;
            long giveUp = System.nanoTime() + peerCheckNanos;
            for (Thread s = sleeper; s != null && System.nanoTime() - giveUp < 0; s = sleeper) {
                LockSupport.unpark(s); // a virtual sleeper parks in slices
                try {
                    Futex.wake(ownWord, Integer.MAX_VALUE);
                } catch (RuntimeException e) {
                    // a truncated file: the sleeper times out at its next slice
                }
                LockSupport.parkNanos(MIN_PARK_NANOS);
            }
        } finally {
            PINS.getAndAdd(this, -1);
            tryRelease();
        }
    }

    /**
     * The side's last act, once, by whoever is last inside the mapping (close, or the operation
     * close found running): the writer flushes its complete messages; then CLOSED (a release
     * store after the flush: a reader that sees CLOSED sees the last c), then the peer's wake
     * word is bumped and woken, so a peer on its way into FUTEX_WAIT either sees CLOSED first or
     * finds its word changed. Faults (a truncated file) are swallowed: close never throws.
     */
    private void finishOnce() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        if (writer) {
            try {
                tail = f; // incomplete parts are never flushed
                flushPositions();
            } catch (RuntimeException | InternalError e) {
                // a corrupt or truncated file: closing goes on
            }
        }
        try {
            file.markClosed();
        } catch (RuntimeException | InternalError e) {
            // truncated: the peer learns it from its own faults
        }
        try {
            wake.always();
        } catch (RuntimeException | InternalError e) {
            // truncated (EFAULT): the peer's next peer check ends its sleep
        }
    }

    @Override
    public String toString() {
        return "SharedYPipe[" + (writer ? "writer" : "reader") + " of " + name + ", " + capacity
                + " bytes" + (isClosed() ? ", closed]" : "]");
    }

    // ------------------------------------------------------------------------------------------
    // Protocol
    // ------------------------------------------------------------------------------------------

    private int index(long position) {
        return (int) position & mask;
    }

    private int headerAt(long position) {
        return (int) INT.get(ring, index(position));
    }

    /**
     * The end of the record at {@code position} whose header is {@code header}, checked: it must
     * be a padding record or a record of at most {@link #maxMessageLength()} bytes that neither
     * wraps the ring nor passes {@code limit} (what was flushed, or written). Another process
     * can write anything into the file; what it writes must not take us outside the ring.
     */
    private long recordEnd(long position, int header, long limit) {
        int at = index(position);
        long end;
        if (header == PADDING) {
            end = position + (capacity - at);
        } else {
            int length = RecordDescriptor.length(header);
            if (header < 0 || length > maxMessageLength || recordSize(length) > capacity - at) {
                throw corrupt("record header 0x" + Integer.toHexString(header) + " at position " + position);
            }
            end = position + recordSize(length);
        }
        if (end > limit) {
            throw corrupt("record at position " + position + " ends at " + end + ", past " + limit);
        }
        return end;
    }

    private IllegalStateException corrupt(String what) {
        return new IllegalStateException("pipe file " + name + " is corrupt: " + what);
    }

    private void checkLength(int length) {
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("length must be in [0, " + maxMessageLength
                    + "] for a ring of " + capacity + " bytes: " + length);
        }
    }

    /** Bytes a message of {@code length} takes at {@code position}, with the padding it needs. */
    private long footprint(long position, int length) {
        int size = recordSize(length);
        int toEnd = capacity - index(position);
        return size <= toEnd ? size : (long) toEnd + size;
    }

    /** Writer: head, checked against what the writer has written. */
    private long checkedHead(long head) {
        if (head < 0 || head > w || tail - head > capacity || (head & 7) != 0) {
            throw corrupt("head " + head + " with the writer at " + w + " in a ring of " + capacity);
        }
        return head;
    }

    /** Writer: true if a message of {@code length} fits at tail, re-reading head if it must. */
    private boolean hasRoom(int length) {
        long need = tail + footprint(tail, length) - capacity;
        if (need <= headCache) {
            return true;
        }
        // Acquire: pairs with the reader's volatile store of head, so the reader's reads of the
        // bytes before head happen-before our overwriting them.
        headCache = checkedHead(SharedWords.position(shared, HEAD_AT));
        return need <= headCache;
    }

    /** Writer: enters, finds room at tail (writing a padding record if needed), or leaves. */
    private long beginWrite(int length) {
        requireSide(true);
        checkLength(length);
        enter(true);
        try {
            if (!hasRoom(length)) {
                exit();
                return -1;
            }
            long start = tail;
            int toEnd = capacity - index(start);
            if (recordSize(length) > toEnd) {
                INT.set(ring, index(start), PADDING); // plain: the flush's volatile store publishes it
                start += toEnd;
            }
            return start;
        } catch (InternalError e) {
            exit();
            throw fault(e);
        }
    }

    private void append(long start, int length, boolean incomplete) {
        INT.set(ring, index(start), RecordDescriptor.header(length, incomplete)); // plain, as above
        tail = start + recordSize(length);
        if (!incomplete) {
            f = tail;
        }
    }

    /**
     * Writer, inside its side: publishes [w, f). The ring's bytes were written with plain stores;
     * the volatile store of c orders them before it (the reader's acquire load that sees c sees
     * them) and is followed by a full fence, so the load of readerSleep cannot pass it (Dekker
     * with the reader's arm, see {@link SharedWords}).
     */
    private boolean flushPositions() {
        if (w == f) {
            return true;
        }
        SharedWords.publish(shared, C_AT, f);
        w = f;
        return wake.ifAsleep();
    }

    /**
     * Reader: true if [front, r) is not empty, prefetching everything flushed if it is. When
     * nothing new was flushed the reader spins on acquire loads of c, then arms its sleep
     * (readerWake read, then a new odd readerSleep stored) and looks at c once more with a
     * volatile load: a flush racing it either lands before that look (we see its end) or sees
     * the odd counter (and wakes us). False: armed, nothing new.
     */
    private boolean checkReadPositions() {
        if (front != r) {
            return true;
        }
        long seen = SharedWords.position(shared, C_AT);
        if (seen == front) {
            WaitPolicy policy = readerPolicy;
            int limit = sleep.isArmed() ? 0 : policy.spins();
            int round = 1;
            for (; round <= limit; round++) {
                Thread.onSpinWait();
                seen = SharedWords.position(shared, C_AT);
                if (seen != front) {
                    policy.spun(round);
                    break;
                }
            }
            if (round > limit) {
                if (limit > 0) {
                    policy.parked();
                }
                sleep.arm();
                seen = SharedWords.positionAfterArm(shared, C_AT);
                if (seen == front) {
                    return false; // armed: the writer's next flush wakes us
                }
            }
        }
        sleep.disarm(); // awake: the writer need not wake us (nothing if not armed)
        if (seen < front || seen - front > capacity || (seen & 7) != 0) {
            throw corrupt("c is " + seen + " with the reader at " + front);
        }
        r = seen;
        return true;
    }

    /**
     * Reader: skips padding; true if a message is at front (its header, read once and checked,
     * in frontHeader), false if the reader is armed to sleep.
     */
    private boolean nextMessage() {
        while (checkReadPositions()) {
            int header = headerAt(front);
            long end = recordEnd(front, header, r); // checks it before anyone uses its length
            if (header != PADDING) {
                frontHeader = header;
                return true;
            }
            front = end;
        }
        return false;
    }

    /**
     * Reader: leaves its side, first publishing head if this call consumed anything: a volatile
     * store (its release orders our reads of the records before it; the writer's acquire of head
     * may then reuse their bytes), then the look at writerSleep (Dekker with the writer's arm).
     */
    private void leaveReader(long from) {
        try {
            if (front != from) {
                SharedWords.publish(shared, HEAD_AT, front);
                wake.ifAsleep();
            }
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /**
     * The peer's side state, checked: FREE, OPEN or CLOSED; anything else was written by someone
     * other than the two sides (this pipe's code writes only those), and is reported as the
     * file's corruption, never taken for a live peer.
     */
    private int peerState() {
        int state = file.peerState();
        if (!SharedPipeFile.isKnownState(state)) {
            throw corrupt("the " + SharedPipeFile.sideName(!writer) + "'s side state is " + state
                    + " (expected 0 FREE, 1 OPEN or 2 CLOSED)");
        }
        return state;
    }

    /** Writer: waits for room; {@code timeoutNanos < 0}: no limit. */
    private boolean awaitRoom(int length, long timeoutNanos) throws InterruptedException, IOException {
        requireSide(true);
        checkLength(length);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = Waits.deadline(Math.max(0, timeoutNanos));
        enter(true);
        try {
            if (w != f) {
                throw new IllegalStateException("flush() before awaiting space: " + (f - w)
                        + " unflushed bytes would never be consumed");
            }
            long held = tail - f; // incomplete parts: the reader cannot consume them yet
            if (held + footprint(tail, length) > capacity) {
                throw new IllegalArgumentException("length " + length + " can never fit: " + held
                        + " bytes of incomplete parts are held in a ring of " + capacity + " bytes");
            }
            boolean room = hasRoom(length);
            if (room || timeoutNanos == 0) {
                return room;
            }
            int limit = writerPolicy.spins();
            for (int round = 1; round <= limit; round++) {
                Thread.onSpinWait();
                if (hasRoom(length)) {
                    writerPolicy.spun(round);
                    return true;
                }
            }
            writerPolicy.parked();
            for (;;) {
                // Arm (writerWake read, a new odd writerSleep stored), then head with a volatile
                // load: the reader's volatile store of head either comes before it (room) or
                // its following look sees our odd counter (and bumps writerWake).
                sleep.arm();
                headCache = checkedHead(SharedWords.positionAfterArm(shared, HEAD_AT));
                if (hasRoom(length)) {
                    sleep.disarm();
                    return true;
                }
                // After the arm's read of writerWake: a reader's close is seen here, or bumps
                // the word after we read it (FUTEX_WAIT then returns at once).
                if (peerState() == CLOSED) {
                    sleep.disarm();
                    throw new PeerGoneException(file.peerName() + " closed " + name + ": no space will come");
                }
                long slice = peerCheckNanos;
                if (timeoutNanos > 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        sleep.disarm();
                        return false;
                    }
                    slice = Math.min(slice, left);
                }
                boolean woken = sleep(writerWakeWord, WRITER_WAKE_AT, sleep.seq(), slice);
                if (Thread.interrupted()) {
                    sleep.disarm();
                    throw new InterruptedException();
                }
                if (!woken && !hasRoom(length) && peerState() == OPEN && file.peerDied()) {
                    throw new PeerGoneException(file.peerName() + " died: no space will come in " + name);
                }
            }
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            exit();
        }
    }

    /** Reader: waits for a message; {@code timeoutNanos < 0}: no limit. */
    private boolean awaitRead(long timeoutNanos) throws InterruptedException, IOException {
        requireSide(false);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = Waits.deadline(Math.max(0, timeoutNanos));
        enter(false);
        long from = front;
        try {
            for (;;) {
                if (nextMessage()) {
                    return true;
                }
                // Armed, nothing past front. The writer's CLOSED (acquire) comes after its last
                // flush; read after the arm's read of readerWake, so a close we miss here bumps
                // the word after that read and FUTEX_WAIT returns at once.
                if (peerState() == CLOSED) {
                    return nextMessage();
                }
                long slice = peerCheckNanos;
                if (timeoutNanos >= 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    slice = Math.min(slice, left);
                }
                boolean woken = sleep(readerWakeWord, READER_WAKE_AT, sleep.seq(), slice);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (!woken && peerState() == OPEN && file.peerDied()) {
                    if (nextMessage()) {
                        return true; // flushed before it died
                    }
                    throw new PeerGoneException(file.peerName() + " died; every message it flushed to "
                            + name + " has been read");
                }
            }
        } catch (InternalError | Futex.FaultException e) {
            throw fault(e);
        } finally {
            leaveReader(from);
        }
    }

    /**
     * Sleeps while the futex word at {@code offset} holds {@code expected}, at most
     * {@code nanos}; false if the time ran out. A platform thread sleeps in FUTEX_WAIT; a virtual
     * thread parks in timed slices, looking at the word after each (a native wait would pin its
     * carrier). Then checks that the pipe was not closed meanwhile.
     */
    private boolean sleep(long address, int offset, int expected, long nanos) {
        sleeper = Thread.currentThread();
        boolean woken;
        try {
            // Dekker with close(): we store sleeper, then read side; close stores CLOSING, then
            // reads sleeper (all volatile). Either we see the close here and do not sleep, or
            // close sees us and wakes our word until we have left (a FUTEX_WAKE that came before
            // our FUTEX_WAIT finds nobody, and our own close cannot bump the peer's word).
            if (SideGuard.isClosed(side)) {
                woken = true;
            } else if (!WaitPolicy.isVirtual(Thread.currentThread())) {
                woken = futex.await(address, expected, nanos);
            } else {
                woken = false;
                long end = System.nanoTime() + nanos;
                long park = MIN_PARK_NANOS;
                for (long left = nanos; left > 0; left = end - System.nanoTime()) {
                    if ((int) INT.getAcquire(shared, offset) != expected
                            || isClosed() || Thread.currentThread().isInterrupted()) {
                        woken = true;
                        break;
                    }
                    LockSupport.parkNanos(this, Math.min(park, left));
                    park = Math.min(2 * park, MAX_PARK_NANOS);
                }
            }
        } finally {
            sleeper = null;
        }
        checkOpen(); // close() woke us: leave (the exit unmaps)
        return woken;
    }

    /**
     * A fault on the mapping (an {@link InternalError} from a load or store on a lost page, or
     * EFAULT from futex) as the documented exception; any other InternalError is rethrown.
     */
    private RuntimeException fault(Throwable e) {
        if (e instanceof InternalError && !String.valueOf(e.getMessage()).contains("fault occurred")) {
            throw (InternalError) e;
        }
        return new IllegalStateException("pipe file " + name + " was truncated under the mapping (a fault"
                + " accessing it: another process shrank the file); this pipe cannot be used any more", e);
    }

    // ------------------------------------------------------------------------------------------
    // Side guard and close
    // ------------------------------------------------------------------------------------------

    private void requireSide(boolean wantWriter) {
        if (wantWriter != writer) {
            throw new IllegalStateException("this is the " + SharedPipeFile.sideName(writer) + " of " + name
                    + ": that operation belongs to the " + SharedPipeFile.sideName(wantWriter));
        }
    }

    private void enter(boolean wantWriter) {
        requireSide(wantWriter);
        SideGuard.enter(SIDE, this, SharedPipeFile.sideName(writer));
    }

    private boolean tryEnter() {
        try {
            SideGuard.enter(SIDE, this, SharedPipeFile.sideName(writer));
            return true;
        } catch (IllegalStateException busy) {
            return false;
        }
    }

    /**
     * Leaves the side. BUSY to IDLE is a release CAS from a word this thread has looked at: if
     * close() set CLOSING meanwhile the CAS fails and we look again. Seeing CLOSING, we are still
     * BUSY (the mapping is ours): we do the side's last act (flush, CLOSED, wake) before moving
     * to CLOSED, so a close that came during an operation never drops what it had written.
     */
    private void exit() {
        long seen = (long) SIDE.getOpaque(this);
        for (;;) {
            if ((seen & SideGuard.CLOSING) != 0) {
                finishOnce();
                SideGuard.exit(SIDE, this, -1L, 0L); // CLOSING is final: this moves to CLOSED
                tryRelease();
                return;
            }
            long witness = (long) SIDE.compareAndExchangeRelease(this, seen, seen & SideGuard.PAYLOAD);
            if (witness == seen) {
                return;
            }
            seen = witness;
        }
    }

    private void checkOpen() {
        if (SideGuard.isClosed((long) SIDE.getOpaque(this))) {
            throw new IllegalStateException("pipe is closed");
        }
    }

    /** Unmaps and unlocks once the side is CLOSED (out of the memory) and no close pins it. */
    private void tryRelease() {
        if (((long) SIDE.getVolatile(this) & SideGuard.CLOSED) != 0 && (int) PINS.getVolatile(this) == 0
                && released.compareAndSet(false, true)) {
            file.release();
        }
    }
}
