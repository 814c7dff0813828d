package org.ysuite.shared;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import jnr.ffi.Pointer;
import org.ysuite.internal.Posix;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * The wake-up FIFO of a pollable shared pipe: a named pipe beside the pipe file,
 * {@code <file>.wake}, that the writer's wake path writes one byte into, instead of
 * {@code FUTEX_WAKE}, when the reader announced (the file's {@code READER_POLLS_AT} word) that it
 * waits on it in {@code poll}/{@code epoll}. See {@link SharedYPipe.Builder#pollable()} and
 * {@link SharedPipeReader#prepareToPoll()}.
 *
 * <h2>Why a FIFO</h2>
 * Both processes reach it by its name, with no descriptor passing (an {@code eventfd} would need
 * {@code SCM_RIGHTS} over a socket or {@code pidfd_getfd}), and it is an ordinary pollable
 * descriptor for {@code poll}, {@code epoll} and Netty's epoll loop. Each side opens it
 * {@code O_RDWR | O_NONBLOCK}: the open never blocks waiting for the other end, a reader never
 * sees end-of-file (it holds a write end itself) when the writer dies, and a write into a full
 * FIFO is {@code EAGAIN}, which is fine: the bytes already there keep it readable.
 *
 * <h2>Hostile input</h2>
 * The name is opened without following a symbolic link ({@code O_NOFOLLOW}) and the descriptor
 * is checked ({@code fstat}): a FIFO, this user's and writable by nobody else unless the pipe
 * accepts other users. Anything else is an {@link IOException} naming the path, before a byte is
 * written. What a hostile process can still do with a FIFO it may write (bytes in it) is a
 * spurious wake-up: the reader drains the FIFO and looks at the shared positions, which decide.
 *
 * <p>The descriptor is closed once ({@link #close()}); the owner closes it when its side is
 * released, after every operation has left.
 */
final class SharedPipeWakeFifo {

    /** {@code READER_POLLS_AT}: the reader is not pollable (it waits in the futex only). */
    static final int NOT_POLLABLE = 0;
    /** {@code READER_POLLS_AT}: a pollable reader that waits in the futex now ({@code awaitMessage}). */
    static final int IN_FUTEX = 1;
    /** {@code READER_POLLS_AT}: a pollable reader that waits in poll/epoll now ({@code prepareToPoll}). */
    static final int IN_POLL = 2;

    /** The name's suffix beside the pipe file. */
    static final String SUFFIX = ".wake";
    /** How much one drain reads at most per call (the FIFO holds one byte per wake-up). */
    private static final int DRAIN_BYTES = 64;
    /** A hostile writer could keep it full: the drain gives up after this many full reads. */
    private static final int MAX_DRAIN_READS = 1024;

    final Path path;
    private final int fd;
    private final Pointer buffer = Posix.allocate(DRAIN_BYTES);
    private final AtomicBoolean closed = new AtomicBoolean();

    private SharedPipeWakeFifo(Path path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /** The FIFO's path beside the pipe file {@code pipe}. */
    static Path pathOf(Path pipe) {
        Path absolute = pipe.toAbsolutePath();
        return absolute.resolveSibling(absolute.getFileName() + SUFFIX);
    }

    /**
     * The reader's open: creates the FIFO (mode 0600, less the umask) if there is none, then
     * opens and checks it.
     *
     * @throws IOException naming the path if it exists and is not an acceptable FIFO, or if it
     *     cannot be created or opened
     */
    static SharedPipeWakeFifo createOrOpen(Path pipe, boolean otherUsers) throws IOException {
        Path fifo = pathOf(pipe);
        if (Posix.libc().mkfifo(fifo.toString(), 0600) != 0) {
            int err = Posix.errno();
            if (err != Posix.EEXIST) {
                throw new IOException(Posix.failure("mkfifo(" + fifo + ")", err)
                        + ": cannot create the pollable pipe's wake-up FIFO");
            }
        }
        return open(fifo, otherUsers);
    }

    /**
     * The writer's open, when the reader announced it polls: the FIFO the reader created.
     *
     * @throws NoSuchFileException if there is none
     * @throws IOException naming the path if it is not an acceptable FIFO or cannot be opened
     */
    static SharedPipeWakeFifo openExisting(Path pipe, boolean otherUsers) throws IOException {
        return open(pathOf(pipe), otherUsers);
    }

    private static SharedPipeWakeFifo open(Path fifo, boolean otherUsers) throws IOException {
        int fd = Posix.libc().open(fifo.toString(),
                Posix.O_RDWR | Posix.O_NONBLOCK | Posix.O_CLOEXEC | Posix.O_NOFOLLOW, 0);
        if (fd < 0) {
            int err = Posix.errno();
            if (err == Posix.ENOENT) {
                throw new NoSuchFileException(fifo.toString(), null, "no wake-up FIFO");
            }
            String why = err == Posix.EISDIR ? "is a directory, not a FIFO"
                    : err == Posix.ELOOP ? "is a symbolic link (not followed), not a FIFO"
                    : Posix.failure("open", err);
            throw new IOException(fifo + " " + why + ": not the pollable pipe's wake-up FIFO");
        }
        try {
            SharedPipeFileSystem.checkFile(fifo, fd, otherUsers, SharedPipeFileSystem.S_IFIFO,
                    "a FIFO: not the pollable pipe's wake-up FIFO (remove it, or let SharedYPipe.delete)");
            return new SharedPipeWakeFifo(fifo, fd);
        } catch (IOException | RuntimeException | Error e) {
            Posix.closeQuietly(fd);
            throw e;
        }
    }

    /**
     * Deletes the FIFO beside {@code pipe} if there is one and it is a FIFO (anything else at the
     * name is left alone). A process that still has it open keeps its descriptor.
     */
    static void delete(Path pipe) throws IOException {
        Path fifo = pathOf(pipe);
        try {
            int mode = (Integer) Files.getAttribute(fifo, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if ((mode & SharedPipeFileSystem.S_IFMT) == SharedPipeFileSystem.S_IFIFO) {
                Files.deleteIfExists(fifo);
            }
        } catch (NoSuchFileException e) {
            // none
        }
    }

    /** The descriptor to poll for {@code POLLIN}. */
    int fd() {
        return fd;
    }

    /**
     * Writes one byte: a wake-up. A full FIFO ({@code EAGAIN}) is readable already; any other
     * error is ignored too (the futex wake-up was made; the poller's timeout is its fallback).
     */
    void ring() {
        buffer.putByte(0, (byte) 1);
        long n;
        do {
            n = Posix.libc().write(fd, buffer, 1);
        } while (n < 0 && Posix.errno() == Posix.EINTR);
    }

    /**
     * Reads every byte there is without blocking (bounded: a hostile writer cannot keep it here).
     *
     * @return how many bytes it read
     */
    int drain() {
        int total = 0;
        for (int i = 0; i < MAX_DRAIN_READS; i++) {
            long n = Posix.libc().read(fd, buffer, DRAIN_BYTES);
            if (n < 0 && Posix.errno() == Posix.EINTR) {
                continue;
            }
            if (n <= 0) {
                break; // EAGAIN: empty (0, end-of-file, cannot be: we hold a write end)
            }
            total += (int) n;
            if (n < DRAIN_BYTES) {
                break;
            }
        }
        return total;
    }

    /** Closes the descriptor, once. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            Posix.closeQuietly(fd);
        }
    }

    @Override
    public String toString() {
        return "wake-up FIFO " + path + " (fd " + fd + (closed.get() ? ", closed)" : ")");
    }

    /**
     * The writer's doorbell ({@link SharedWords.Doorbell}), from the reader's word
     * {@code READER_POLLS_AT}: {@link #NOT_POLLABLE} or {@link #IN_FUTEX}: the futex wake-up;
     * {@link #IN_POLL}: one byte into the FIFO and no {@code FUTEX_WAKE} (nobody sleeps on the
     * word); a close, or a value no reader writes: both. The FIFO is opened on the first ring (and
     * again on the next if that fails: a missing or refused FIFO makes the futex wake-up alone,
     * and a poller then waits for its timeout).
     *
     * <p>It runs only inside {@link SharedWords.Wake}'s wake-up, so only when the writer found the
     * reader armed (or closes): nothing is written to the FIFO while the reader is awake. The
     * reader stores its way of waiting (volatile) before the arm's look at {@code c}; the writer
     * loads it after its own store of {@code c} and its load of {@code readerSleep}: if the reader
     * missed the flush, the writer sees the way it waits (sequential consistency of volatiles).
     */
    static final class WriterBell implements SharedWords.Doorbell {
        private final SharedPipeFile file;
        /** Opened on the first ring that needs it; guarded by this (a flush and a close may ring). */
        private SharedPipeWakeFifo fifo;

        WriterBell(SharedPipeFile file) {
            this.file = file;
        }

        @Override
        public int how(boolean always) {
            return choose((int) SharedPipeDescriptor.INT.getVolatile(file.mapped, SharedPipeDescriptor.READER_POLLS_AT),
                    always);
        }

        /** The choice for the reader's word {@code mode} (any int: the file is hostile input). */
        static int choose(int mode, boolean always) {
            if (mode == NOT_POLLABLE || (mode == IN_FUTEX && !always)) {
                return FUTEX;
            }
            return mode == IN_POLL && !always ? BELL : FUTEX | BELL;
        }

        @Override
        public synchronized boolean ring() {
            if (fifo == null) {
                try {
                    fifo = openExisting(file.path, file.otherUsers);
                } catch (IOException | RuntimeException e) {
                    return false; // no FIFO to ring: again next time
                }
                file.attach(fifo);
            }
            fifo.ring();
            return true;
        }
    }
}
