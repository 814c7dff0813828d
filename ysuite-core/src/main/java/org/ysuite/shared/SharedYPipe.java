package org.ysuite.shared;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.internal.RecordRing;
import org.ysuite.internal.SharedPipeCounters;
import org.ysuite.internal.SharedPipeDescriptor;
import org.ysuite.internal.Waits;

/**
 * The ypipe protocol over a shared, memory-mapped file: one writer process, one reader process.
 * The reader that finds nothing sleeps on a word of the file with Linux {@code futex}; the writer
 * wakes it, with one system call, only on the flush that finds it asleep — nothing is signalled
 * while the reader keeps up. The same in the other direction for a writer waiting for space.
 *
 * <p>This class opens the pipe's two sides, each a type of its own: {@link SharedPipeWriter}
 * ({@link #createWriter}, or a {@link #builder(Path) builder}'s {@link Builder#createWriter()} and
 * {@link Builder#openWriter()}) and {@link SharedPipeReader} ({@link #openReader},
 * {@link Builder#openReader()}), and deletes the file ({@link #delete}).
 * <pre>{@code
 * // producer process                            // consumer process
 * try (SharedPipeWriter out =                    try (SharedPipeReader in = SharedYPipe.builder(file)
 *         SharedYPipe.createWriter(file, 1 << 20)) {      .awaitFile(10, TimeUnit.SECONDS).openReader()) {
 *     out.write(bytes);                              while (in.awaitMessage()) {
 *     out.flush();                                       in.readBatch(handler);
 * }                                                  }
 *                                                }
 * }</pre>
 *
 * <h2>File</h2>
 * A header of 4096 bytes, then the ring ({@link OffHeapYPipe}'s records: a 4-byte header with the
 * length and a "more parts" flag, the payload padded to 8 bytes, a padding record at the ring's
 * end). The file's size is exactly header + capacity. Native byte order (the file is for
 * processes on one machine).
 * <pre>
 *  offset  size  written by
 *     0      8           magic "YSPIPE01" (written last when the file is created)
 *     8      4           layout version (4)
 *    12      4           header size (4096)
 *    16      4           ring capacity: a power of two, {@value #MIN_CAPACITY_BYTES} .. {@value #MAX_CAPACITY_BYTES}
 *    64     16   writer  writer: state (0 FREE, 1 OPEN, 2 CLOSED), pid, JVM start time (epoch ms)
 *    96     16   reader  reader: the same
 *   128      8   writer  c: the end of the last flush
 *   256      8   reader  head: how far the reader has consumed
 *   384      8   reader  readerSleep: a counter, odd while the reader is (going) asleep
 *   392      4   reader  writerWake: the futex word a writer waiting for space sleeps on
 *   400      4   reader  readerPolls: how the reader waits: 0 futex (not {@link Builder#pollable() pollable}), 1 futex, 2 poll
 *   512      8   writer  writerSleep: a counter, odd while the writer waits for space
 *   520      4   writer  readerWake: the futex word the reader sleeps on
 *  1024      8   writer  anchor: messages flushed before 1048 \  the counters ({@link SharedPipeWriter#stats()},
 *  1032      8   writer  wake-ups sent          |  the stat tool):        each side's on a
 *  1040      8   writer  writer waits           |  128-byte block of its own, written only by
 *  1048      8   writer  anchor: a position flushed |  its thread (opaque or release stores),
 *  1056      8   writer  anchor: sequence, odd while it moves | read by anyone, never trusted;
 *  1160      8   reader  sleeps                 |  the message counts are derived from the
 *  1168      8   reader  time asleep (ns)      /   anchor, c and head ({@link SharedPipeCounters})
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
 *   <li>Writer's {@link SharedPipeWriter#flush()}: volatile store of {@code c}, then a volatile load of
 *       {@code readerSleep}; if it is odd and not woken yet, bump {@code readerWake} and
 *       {@code FUTEX_WAKE} it.</li>
 *   <li>Reader, nothing prefetched: spins on acquire loads of {@code c} as its {@link WaitPolicy}
 *       allows, then reads {@code readerWake}, stores a new odd {@code readerSleep} (volatile),
 *       loads {@code c} again (volatile) and, if nothing moved and the writer is not closed,
 *       sleeps in {@code FUTEX_WAIT} on {@code readerWake} expecting the value it read.</li>
 *   <li>The other way the same: the reader publishes {@code head} (volatile store) once per
 *       read call that consumed something and then looks at {@code writerSleep}; a writer
 *       without room arms {@code writerSleep} and sleeps on {@code writerWake}.</li>
 *   <li>A side's {@code close()} stores CLOSED in its state, then bumps the word its peer
 *       sleeps on and wakes it.</li>
 * </ul>
 * Volatile accesses are sequentially consistent, so of "store c, load readerSleep" and "store
 * readerSleep, load c" one sees the other's store, and a word is always bumped before its
 * {@code FUTEX_WAKE}: no wake-up is lost (the argument in full is in the source of
 * {@code SharedWords}).
 *
 * <h2>Waiting in poll/epoll</h2>
 * A reader opened {@link Builder#pollable() pollable} may wait in {@code poll}/{@code epoll} on
 * {@link SharedPipeReader#wakeFd()}, a FIFO beside the file, after
 * {@link SharedPipeReader#prepareToPoll()}: the writer's wake-up (the same one, made only by a
 * flush that finds the reader asleep) then writes a byte into the FIFO instead of
 * {@code FUTEX_WAKE}.
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
 * was truncated, and the JVM and every other pipe go on; {@code close()} does not throw it. When
 * the faulting access ran in compiled code, the JVM reports the fault a little later than the
 * access, so one read may first return bytes of a lost page (zeros). Keep the file where only the
 * two processes can write it (it is created with permissions 0600).
 *
 * <h2>Threads</h2>
 * Exactly one thread at a time uses a side's instance; {@code close()} may come from any thread
 * at any time (as {@link OffHeapYPipe}'s): the file is unmapped only once no operation is inside
 * it, and every operation after it throws {@link IllegalStateException}. A virtual thread does
 * not sleep in {@code futex} (that would pin its carrier): it parks in short timed slices
 * (50 µs growing to 1 ms) and looks at the word after each, so its wake-up may come up to 1 ms
 * late.
 */
public final class SharedYPipe {

    /** Smallest ring capacity in bytes (the file layout's, {@code SharedPipeDescriptor}). */
    public static final int MIN_CAPACITY_BYTES = SharedPipeDescriptor.MIN_CAPACITY;
    /** Largest ring capacity in bytes (the file layout's, {@code SharedPipeDescriptor}). */
    public static final int MAX_CAPACITY_BYTES = SharedPipeDescriptor.MAX_CAPACITY;

    /**
     * A check is a wake-up; each costs 70-300 µs of CPU on a small virtual machine, so 100 ms
     * would keep an idle reader at 0.3 % of a core, 1 s keeps it at 0.03 %.
     */
    private static final long DEFAULT_PEER_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private SharedYPipe() {
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
     * @throws IOException if the file exists ({@link java.nio.file.FileAlreadyExistsException},
     *     whose message says what is there: a pipe file, a directory, a file that is not a pipe
     *     file) or cannot be created (the message names the errno and its meaning)
     * @throws IllegalArgumentException if {@code capacityBytes} is out of range
     */
    public static SharedPipeWriter createWriter(Path file, int capacityBytes) throws IOException {
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
    public static SharedPipeReader openReader(Path file) throws IOException {
        return builder(file).openReader();
    }

    /**
     * Deletes the pipe file at {@code file} unless a live process holds one of its sides: the
     * clean-up after both sides have closed (by the consumer, which knows it has read everything,
     * or by an operator), or of a file left by a crash. It takes both sides' locks on the file
     * first, so no process can open a side while it deletes; a symbolic link at {@code file} is
     * not followed (it is {@link java.nio.file.FileSystemException}, and nothing is deleted).
     *
     * <p>A side that has marked itself closed in the file but still holds its lock is finishing
     * its {@code close()} (a reader learns of the writer's close from that mark, and may delete at
     * once): this waits for it, at most 10 seconds, before it reports the side taken.
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
        private String name;
        private boolean pollable;

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
            this.capacity = RecordRing.checkCapacity(capacityBytes);
            return this;
        }

        /**
         * Names the sides this builder opens: the name appears in their Flight Recorder events
         * (see docs/observability.md) and in {@link SharedPipeWriter#name()} and
         * {@link SharedPipeReader#name()}. It stays in this process: the file does not hold it.
         *
         * @param name the name
         * @return this builder
         * @throws NullPointerException if {@code name} is null
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Sets how the reader spins before it sleeps on the futex; each side opened gets
         * {@link WaitPolicy#newState() policy.newState()}, a state of its own.
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
         * Sets how a writer waiting for space spins before it sleeps on the futex; each side
         * opened gets {@link WaitPolicy#newState() policy.newState()}, a state of its own.
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
         *     {@link #replaceStale()}, it was created again meanwhile), or something that is not a
         *     pipe file is there (a directory, a symbolic link, a file without the pipe file's
         *     magic number), which {@link #replaceStale()} never deletes; the message names it
         * @throws PipeSideTakenException with {@link #replaceStale()}, if a live process holds a
         *     side of the existing file
         * @throws java.nio.file.NoSuchFileException if the directory does not exist (named)
         * @throws IOException if it cannot be created, e.g. its blocks do not fit in the file
         *     system's free space (the message names the size and the free space)
         */
        public SharedPipeWriter createWriter() throws IOException {
            return open(SharedPipeFile.create(file, capacity, replaceStale), this::writer);
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
        public SharedPipeWriter openWriter() throws IOException {
            return open(openFile(true), this::writer);
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
        public SharedPipeReader openReader() throws IOException {
            SharedPipeWakeFifo fifo = pollable ? SharedPipeWakeFifo.createOrOpen(file, otherUsers) : null;
            try {
                SharedPipeFile opened = openFile(false);
                return open(opened, f -> reader(f, fifo));
            } catch (IOException | RuntimeException | Error e) {
                if (fifo != null) {
                    fifo.close();
                }
                throw e;
            }
        }

        /**
         * Makes {@link #openReader()} open a pollable reader: one that can also wait in
         * {@code poll}/{@code epoll} (with sockets, or registered with a Netty epoll loop) through
         * {@link SharedPipeReader#wakeFd()} and {@link SharedPipeReader#prepareToPoll()}. The
         * reader creates a FIFO beside the file, {@code <file>.wake} (mode 0600), or opens the
         * one there, checked like the pipe file (a FIFO, no symbolic link followed, this user's
         * unless {@link #allowOtherUsers()}); {@link SharedYPipe#delete} removes it. It marks
         * itself pollable in the file, and while it waits by poll ({@code prepareToPoll}) the
         * writer's wake-up, made only by a flush that finds the reader asleep, writes one byte into
         * the FIFO instead of {@code FUTEX_WAKE} (nothing while the reader is awake; the futex
         * again while it waits in {@code awaitMessage}). Writers and the other opens ignore this setting. See docs/cross-process.md.
         *
         * @return this builder
         */
        public Builder pollable() {
            this.pollable = true;
            return this;
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

        private SharedPipeWriter writer(SharedPipeFile opened) {
            SharedPipeWriter w = new SharedPipeWriter(opened, writerPolicy.newState(), peerCheckNanos); // its own state
            w.eventName = name; // before the side is returned: the opening thread publishes it
            return w;
        }

        private SharedPipeReader reader(SharedPipeFile opened, SharedPipeWakeFifo fifo) {
            if (fifo != null) {
                opened.attach(fifo); // closed with the side's lock
            }
            SharedPipeReader r = new SharedPipeReader(opened, readerPolicy.newState(), peerCheckNanos, fifo);
            r.eventName = name;
            return r;
        }

        /** Makes the side over the opened file, or gives the file back if that fails. */
        private static <T extends SharedPipeEnd> T open(SharedPipeFile opened,
                Function<SharedPipeFile, T> side) {
            try {
                return side.apply(opened);
            } catch (RuntimeException | Error e) {
                opened.release();
                throw e;
            }
        }
    }
}
