package org.ysuite.shared;

import static org.ysuite.internal.SharedPipeDescriptor.CAPACITY_AT;
import static org.ysuite.internal.SharedPipeDescriptor.CLOSED;
import static org.ysuite.internal.SharedPipeDescriptor.C_AT;
import static org.ysuite.internal.SharedPipeDescriptor.FREE;
import static org.ysuite.internal.SharedPipeDescriptor.HEADER_SIZE;
import static org.ysuite.internal.SharedPipeDescriptor.HEADER_SIZE_AT;
import static org.ysuite.internal.SharedPipeDescriptor.HEAD_AT;
import static org.ysuite.internal.SharedPipeDescriptor.INT;
import static org.ysuite.internal.SharedPipeDescriptor.LONG;
import static org.ysuite.internal.SharedPipeDescriptor.MAGIC;
import static org.ysuite.internal.SharedPipeDescriptor.MAGIC_AT;
import static org.ysuite.internal.SharedPipeDescriptor.MAX_CAPACITY;
import static org.ysuite.internal.SharedPipeDescriptor.MIN_CAPACITY;
import static org.ysuite.internal.SharedPipeDescriptor.OPEN;
import static org.ysuite.internal.SharedPipeDescriptor.READER_AT;
import static org.ysuite.internal.SharedPipeDescriptor.VERSION;
import static org.ysuite.internal.SharedPipeDescriptor.VERSION_AT;
import static org.ysuite.internal.SharedPipeDescriptor.WRITER_AT;
import static org.ysuite.internal.SharedPipeDescriptor.isKnownState;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import jnr.ffi.Pointer;
import org.ysuite.internal.DirectMemory;
import org.ysuite.internal.OfdLock;
import org.ysuite.internal.Posix;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * The shared pipe's file: creating and opening it with every check, the mapping, and the sides'
 * locks. Its layout is {@link SharedPipeDescriptor}'s.
 */
final class SharedPipeFile {

    /** The locked bytes (past any end of file): the writer's, and the reader's at +1. */
    private static final long LOCK_BASE = 1L << 40;

    final Path path;
    final boolean writer;
    final int capacity;
    /** The whole file, mapped, native order. */
    final ByteBuffer mapped;
    private final DirectMemory memory;
    private final int lockFd;
    private final Pointer flock = OfdLock.newFlock();
    private final AtomicBoolean lockClosed = new AtomicBoolean();
    /** Other users' files accepted ({@link SharedYPipe.Builder#allowOtherUsers()}); the FIFO's check too. */
    boolean otherUsers;
    /** The wake-up FIFO this side opened (a pollable reader's; a writer's once it rang it), or null. */
    private volatile SharedPipeWakeFifo wakeFifo;
    private static final Cleaner CLEANER = Cleaner.create();

    private SharedPipeFile(Path path, boolean writer, int capacity, DirectMemory memory, int lockFd) {
        this.path = path;
        this.writer = writer;
        this.capacity = capacity;
        this.memory = memory;
        this.mapped = memory.buffer();
        this.lockFd = lockFd;
    }

    static String sideName(boolean writer) {
        return writer ? "writer" : "reader";
    }

    /**
     * Creates the file with its header complete and its writer side taken: a temporary file in
     * the same directory (0600, created through one descriptor that is then allocated, locked,
     * written and mapped) is linked to {@code path} in one step that fails if {@code path} exists.
     * First the temporary files of killed creators are removed and, if {@code replaceStale}, a
     * pipe file no live process holds.
     */
    static SharedPipeFile create(Path path, int capacity, boolean replaceStale) throws IOException {
        Path target = path.toAbsolutePath();
        SharedPipeFileSystem.directory(target);
        SharedPipeFileSystem.refuseOtherThanPipeFile(target);
        SharedPipeFileSystem.removeStaleTemps(target, lockByte(true));
        if (replaceStale) {
            SharedPipeFileSystem.delete(target, lockByte(true), lockByte(false));
        }
        if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw pipeFileExists(target);
        }
        SharedPipeFileSystem.Temp tmp = SharedPipeFileSystem.createTemp(target);
        SharedPipeFile file = null;
        int fd = tmp.fd;
        try {
            // locked first: a creator's file is never taken for a dead creator's (removeStaleTemps)
            if (!OfdLock.tryLock(fd, lockByte(true), OfdLock.newFlock())) {
                throw new IOException("cannot lock the new file " + tmp.path);
            }
            long size = HEADER_SIZE + (long) capacity;
            SharedPipeFileSystem.allocate(target, fd, size);
            ByteBuffer header = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.nativeOrder());
            header.putInt(VERSION_AT, VERSION).putInt(HEADER_SIZE_AT, HEADER_SIZE)
                    .putInt(CAPACITY_AT, capacity);
            try (FileChannel ch = SharedPipeFileSystem.channel(fd)) {
                writeFully(ch, header, 0);
                ByteBuffer magic = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, MAGIC);
                writeFully(ch, magic, MAGIC_AT); // last: a file without it is never opened
                file = new SharedPipeFile(target, true, capacity, DirectMemory.map(ch, size), fd);
            }
            file.markOpen();
            link(tmp.path, target);
            return file;
        } catch (IOException | RuntimeException | Error e) {
            abandon(file, fd);
            throw e;
        } finally {
            Files.deleteIfExists(tmp.path);
        }
    }

    /** A pipe file is where a new one was to be created: what is there, and the ways out. */
    static FileAlreadyExistsException pipeFileExists(Path target) {
        return new FileAlreadyExistsException(target.toString(), null, "a pipe file exists there:"
                + " SharedYPipe.builder(file).openWriter() opens its writer side, and"
                + " builder(file).replaceStale().createWriter() replaces it if no live process holds it");
    }

    /** link(2) refuses an existing target; where links are not supported, a checked move. */
    private static void link(Path tmp, Path target) throws IOException {
        try {
            Files.createLink(target, tmp);
        } catch (FileAlreadyExistsException e) {
            throw e;
        } catch (UnsupportedOperationException | IOException e) {
            if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw pipeFileExists(target);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /**
     * Opens an existing pipe file's side: opens the path once, without following a symbolic link,
     * and checks the file through that descriptor (regular; unless {@code otherUsers}, this user's
     * and writable by nobody else), checks the header (before mapping anything), takes the side's
     * lock on that descriptor, maps the same file, checks the shared positions and marks the side
     * open.
     */
    static SharedPipeFile open(Path path, boolean writer, boolean otherUsers) throws IOException {
        Path target = path.toAbsolutePath();
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(target, BasicFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(target.toString(), null, "no pipe file");
        }
        if (attributes.isSymbolicLink()) {
            throw new java.nio.file.FileSystemException(target.toString(), null,
                    "is a symbolic link: not followed (open the pipe file by its own path)");
        }
        if (!attributes.isRegularFile()) {
            throw new IOException(target + " is not a regular file: not a pipe file");
        }
        SharedPipeFile file = null;
        int fd = -1;
        try {
            fd = SharedPipeFileSystem.openExisting(target, otherUsers);
            try (FileChannel ch = SharedPipeFileSystem.channel(fd)) {
                long size = ch.size();
                int capacity = checkHeader(target, ch, size);
                if (!OfdLock.tryLock(fd, lockByte(writer), OfdLock.newFlock())) {
                    ByteBuffer side = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
                    readFully(ch, side, writer ? WRITER_AT : READER_AT);
                    throw new PipeSideTakenException("the " + sideName(writer) + " side of " + target
                            + " is in use by process " + side.getInt(4) + startedAt(side.getLong(8)));
                }
                file = new SharedPipeFile(target, writer, capacity, DirectMemory.map(ch, size), fd);
                file.otherUsers = otherUsers;
            }
            file.checkPositions();
            file.markOpen();
            return file;
        } catch (IOException | RuntimeException | Error e) {
            abandon(file, fd);
            throw e;
        }
    }

    /**
     * Deletes the pipe file at {@code path} if no live process holds either side, then its
     * wake-up FIFO if there is one ({@link SharedPipeWakeFifo#delete}).
     *
     * @return {@code false} if there is no file
     */
    static boolean delete(Path path) throws IOException {
        boolean deleted = SharedPipeFileSystem.delete(path.toAbsolutePath(), lockByte(true), lockByte(false));
        SharedPipeWakeFifo.delete(path);
        return deleted;
    }

    /**
     * Gives this side the wake-up FIFO it opened, to close with the lock. The field's store comes
     * before the read of lockClosed, and closeLock's CAS before its read of the field: whichever
     * comes last closes the FIFO (its close runs once).
     */
    void attach(SharedPipeWakeFifo fifo) {
        wakeFifo = fifo;
        if (lockClosed.get()) {
            fifo.close();
        }
    }

    /** A failed create or open: releases what it had taken. */
    private static void abandon(SharedPipeFile file, int fd) {
        if (file != null) {
            file.release();
        } else {
            Posix.closeQuietly(fd);
        }
    }

    private static String startedAt(long epochMillis) {
        return epochMillis < 0 ? "" : " (started " + Instant.ofEpochMilli(epochMillis) + ")";
    }

    /** Checks the header read from the channel; returns the capacity. */
    private static int checkHeader(Path path, FileChannel ch, long size) throws IOException {
        if (size < HEADER_SIZE) {
            throw new IOException(path + " is not a pipe file: " + size
                    + " bytes, shorter than the " + HEADER_SIZE + "-byte header (truncated?)");
        }
        ByteBuffer header = ByteBuffer.allocate(32).order(ByteOrder.nativeOrder());
        readFully(ch, header, 0);
        if (header.getLong(MAGIC_AT) != MAGIC) {
            throw new IOException(path + " is not a pipe file: wrong magic number (expected \"YSPIPE01\")");
        }
        int version = header.getInt(VERSION_AT);
        if (version != VERSION) {
            throw new IOException(path + ": unsupported pipe file layout version " + version
                    + " (this ysuite reads version " + VERSION + ")");
        }
        int headerSize = header.getInt(HEADER_SIZE_AT);
        if (headerSize != HEADER_SIZE) {
            throw new IOException(path + ": bad header size " + headerSize + " (expected " + HEADER_SIZE + ")");
        }
        int capacity = header.getInt(CAPACITY_AT);
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY
                || Integer.bitCount(capacity) != 1) {
            throw new IOException(path + ": bad capacity " + capacity + " (a power of two in ["
                    + MIN_CAPACITY + ", " + MAX_CAPACITY + "])");
        }
        if (size != HEADER_SIZE + (long) capacity) {
            throw new IOException(path + ": file size " + size + " is not header + capacity = "
                    + (HEADER_SIZE + (long) capacity) + " (truncated or extended)");
        }
        return capacity;
    }

    /**
     * The shared positions must describe a ring (head <= c, at most capacity apart, 8-aligned,
     * not negative) and each side's state must be one of FREE, OPEN, CLOSED.
     */
    private void checkPositions() throws IOException {
        long c = (long) LONG.getVolatile(mapped, C_AT);
        long head = (long) LONG.getVolatile(mapped, HEAD_AT);
        if (head < 0 || c < head || c - head > capacity || ((c | head) & 7) != 0) {
            throw new IOException(path + ": corrupt positions: flushed end " + c + ", head " + head
                    + " in a ring of " + capacity + " bytes");
        }
        for (boolean side : new boolean[] {true, false}) {
            int state = (int) INT.getVolatile(mapped, side ? WRITER_AT : READER_AT);
            if (!isKnownState(state)) {
                throw new IOException(path + ": corrupt " + sideName(side) + " side state " + state
                        + " (expected " + FREE + " free, " + OPEN + " open or " + CLOSED + " closed)");
            }
        }
    }

    /** True for FREE, OPEN and CLOSED: any other side state was written by someone else. */

    static long lockByte(boolean writer) {
        return writer ? LOCK_BASE : LOCK_BASE + 1;
    }

    private void markOpen() {
        int at = writer ? WRITER_AT : READER_AT;
        mapped.putInt(at + 4, (int) ProcessHandle.current().pid());
        mapped.putLong(at + 8, ProcessHandle.current().info().startInstant()
                .map(Instant::toEpochMilli).orElse(-1L));
        INT.setRelease(mapped, at, OPEN); // publishes pid and start time with the state
    }

    /** Marks this side closed (release: after the writer's last flush). */
    void markClosed() {
        INT.setRelease(mapped, writer ? WRITER_AT : READER_AT, CLOSED);
    }

    /** The peer side's state, with acquire (a writer's CLOSED publishes its last flush). */
    int peerState() {
        return (int) INT.getAcquire(mapped, writer ? READER_AT : WRITER_AT);
    }

    /**
     * Tells whether the peer died: its side is still marked open but nobody holds its lock.
     * (Opening takes the lock before marking open, closing marks closed before it unlocks.)
     */
    boolean peerDied() throws IOException {
        if (peerState() != OPEN || OfdLock.isLocked(lockFd, lockByte(!writer), flock)) {
            return false;
        }
        return peerState() == OPEN; // re-read: it may have closed cleanly meanwhile
    }

    /** Who holds the peer side, for messages. */
    String peerName() {
        int at = writer ? READER_AT : WRITER_AT;
        return "the " + sideName(!writer) + " (process " + mapped.getInt(at + 4)
                + startedAt(mapped.getLong(at + 8)) + ")";
    }

    /** Unmaps the file and closes the lock's descriptor (dropping the lock). Once. */
    void release() {
        try {
            memory.free(); // once by itself
        } finally {
            closeLock();
        }
    }

    private void closeLock() {
        if (lockClosed.compareAndSet(false, true)) {
            Posix.closeQuietly(lockFd);
        }
        SharedPipeWakeFifo fifo = wakeFifo;
        if (fifo != null) {
            fifo.close();
        }
    }

    /**
     * For a pipe nobody closes: once {@code holder} is unreachable, the lock's descriptor is
     * closed (the side is free again) and, on JDK 22+, the mapping's arena too. On 17-21 the
     * mapping is left to its buffer's own cleaner: a view the user kept may still reach it.
     */
    void releaseWhenUnreachable(Object holder) {
        memory.freeWhenUnreachable(holder);
        SharedPipeFile self = this; // the action must not capture the holder
        CLEANER.register(holder, self::closeLock);
    }

    private static void writeFully(FileChannel ch, ByteBuffer src, long position) throws IOException {
        src.clear();
        while (src.hasRemaining()) {
            ch.write(src, position + src.position());
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer dst, long position) throws IOException {
        dst.clear();
        while (dst.hasRemaining()) {
            if (ch.read(dst, position + dst.position()) < 0) {
                throw new IOException("unexpected end of file at " + (position + dst.position()));
            }
        }
    }
}
