package org.ysuite.shared;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import jnr.ffi.Pointer;
import org.ysuite.internal.OfdLock;
import org.ysuite.internal.Posix;
import org.ysuite.internal.SharedPipeDescriptor;
import org.ysuite.internal.Waits;

/**
 * {@link SharedPipeFile}'s dealings with the file system: opening the path once without following
 * a link and checking the file through that descriptor, allocating the file's blocks, the
 * temporary file of a create and the clean-up of those a killed creator left, waiting for a file
 * to appear, and deleting a file no live process holds.
 */
final class SharedPipeFileSystem {

    /** A temporary file younger than this may belong to a creator between its open and its lock. */
    static final long STALE_TEMP_MILLIS = 10_000;
    static final int S_IFMT = 0170000;
    static final int S_IFREG = 0100000;
    static final int S_IFIFO = 0010000;
    /** Longest sleep between two looks while waiting for a file (inotify usually ends it first). */
    /** How long {@link #delete} waits for a side marked CLOSED to drop its lock. */
    static final long CLOSING_SIDE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long MAX_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private SharedPipeFileSystem() {
    }

    /** A created temporary file: its name and the descriptor it was created through. */
    static final class Temp {
        final Path path;
        final int fd;

        Temp(Path path, int fd) {
            this.path = path;
            this.fd = fd;
        }
    }

    /** The directory a pipe file goes in; a missing one is named. */
    static Path directory(Path target) throws IOException {
        Path dir = target.getParent();
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "directory " + dir
                    + " does not exist (or is not a directory): cannot make the pipe file " + target.getFileName());
        }
        return dir;
    }

    /**
     * Before a create: refuses, naming what is there and the way out, anything at {@code target}
     * that is not a pipe file (a directory, a symbolic link, a FIFO or device, a regular file
     * without the pipe file's magic number). {@code replaceStale} deletes only a pipe file, so it
     * is no way out for these; nothing here is deleted.
     */
    static void refuseOtherThanPipeFile(Path target) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(target, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return; // the usual case: nothing there
        }
        String there;
        if (a.isDirectory()) {
            there = "a directory is there, not a pipe file: name a file, in it or beside it (e.g. "
                    + target.resolve("orders") + ")";
        } else if (a.isSymbolicLink()) {
            there = "a symbolic link is there, not a pipe file (links are not followed): remove it,"
                    + " or name the file itself";
        } else if (!a.isRegularFile()) {
            there = "a special file (FIFO, socket or device) is there, not a pipe file: name another file";
        } else if (!hasPipeMagic(target)) {
            there = "a file that is not a pipe file is there (" + a.size() + " bytes, no \"YSPIPE01\""
                    + " magic number): remove it or name another file (replaceStale() replaces only a"
                    + " pipe file that no live process holds)";
        } else {
            return; // a pipe file: the caller decides (replace it if stale, or refuse)
        }
        throw new FileAlreadyExistsException(target.toString(), null, there);
    }

    /** Whether the regular file {@code target} starts like a pipe file; unreadable counts as no. */
    private static boolean hasPipeMagic(Path target) {
        try (FileChannel ch = FileChannel.open(target, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            return hasPipeMagic(ch);
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the file open on {@code ch} starts with the pipe file's magic number. */
    private static boolean hasPipeMagic(FileChannel ch) throws IOException {
        ByteBuffer magic = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
        return ch.read(magic, SharedPipeDescriptor.MAGIC_AT) == 8
                && magic.getLong(0) == SharedPipeDescriptor.MAGIC;
    }

    /**
     * Opens an existing pipe file once, without following a symbolic link, and checks through that
     * descriptor (never the path again) that it is a regular file the current user owns and only
     * the owner can write, unless {@code otherUsers}.
     */
    static int openExisting(Path target, boolean otherUsers) throws IOException {
        int fd;
        try {
            fd = Posix.openNoFollow(target, false);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(target.toString(), null, "no pipe file");
        }
        try {
            checkFile(target, fd, otherUsers);
            return fd;
        } catch (IOException | RuntimeException | Error e) {
            Posix.closeQuietly(fd);
            throw e;
        }
    }

    /** The checks of {@link #openExisting}, on the file {@code fd} is open on ({@code fstat}). */
    static void checkFile(Path target, int fd, boolean otherUsers) throws IOException {
        checkFile(target, fd, otherUsers, S_IFREG, "a regular file: not a pipe file");
    }

    /**
     * Checks the file {@code fd} is open on ({@code fstat}): its type is {@code type}
     * ({@link #S_IFREG} or {@link #S_IFIFO}; else an IOException "target is not " + {@code what}),
     * and unless {@code otherUsers} it is this user's and writable by nobody else.
     */
    static void checkFile(Path target, int fd, boolean otherUsers, int type, String what) throws IOException {
        Map<String, Object> st = Files.readAttributes(Posix.procPath(fd), "unix:mode,uid");
        int mode = (Integer) st.get("mode");
        int uid = (Integer) st.get("uid");
        if ((mode & S_IFMT) != type) {
            throw new IOException(target + " is not " + what);
        }
        if (otherUsers) {
            return;
        }
        int me = Posix.libc().geteuid();
        if (uid != me) {
            throw new FileSystemException(target.toString(), null, "owned by user id " + uid
                    + ", not by this process's user (" + me + "): refused (another user could have made it"
                    + " to feed or read this process; builder(file).allowOtherUsers() accepts it)");
        }
        if ((mode & 0022) != 0) {
            throw new FileSystemException(target.toString(), null, String.format(
                    "mode %04o lets group or others write it: refused (chmod go-w, or"
                            + " builder(file).allowOtherUsers() accepts it)", mode & 07777));
        }
    }

    /** A channel on the file {@code fd} is open on (not on its path: the name may have changed). */
    static FileChannel channel(int fd) throws IOException {
        return FileChannel.open(Posix.procPath(fd), StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /**
     * Gives the new file its size with every block allocated, so that a full file system is this
     * {@link IOException} now rather than a {@code SIGBUS} on a later write into the mapping.
     */
    static void allocate(Path target, int fd, long size) throws IOException {
        int err = Posix.allocate(fd, size);
        if (err == 0) {
            return;
        }
        String free;
        try {
            free = Files.getFileStore(target.getParent()).getUsableSpace() + " bytes free";
        } catch (IOException e) {
            free = "free space unknown";
        }
        String why = err == Posix.ENOSPC ? "no space left on its file system"
                : err == Posix.EDQUOT ? "disk quota exceeded"
                : err == Posix.EFBIG ? "larger than the file size limit (ulimit -f)"
                : Posix.failure("fallocate", err);
        throw new IOException("cannot create the pipe file " + target + ": " + size + " bytes (4096-byte header"
                + " + the ring) do not fit: " + why + " (" + free + " there; a container's /dev/shm is 64 MiB"
                + " unless docker run --shm-size says otherwise)");
    }

    /** Creates {@code .<name>.<digits>.tmp} beside {@code target}, mode 0600, no link followed. */
    static Temp createTemp(Path target) throws IOException {
        for (int attempt = 0;; attempt++) {
            Path tmp = target.resolveSibling("." + target.getFileName() + "."
                    + (ThreadLocalRandom.current().nextLong() >>> 1) + ".tmp");
            try {
                return new Temp(tmp, Posix.openNoFollow(tmp, true));
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) {
                    throw e;
                }
            } catch (NoSuchFileException e) {
                throw e;
            } catch (IOException e) {
                // EACCES, EROFS, ...: the directory takes no new file from this user.
                throw new IOException("cannot create the pipe file " + target + ": the directory "
                        + target.getParent() + " takes no new file from this process ("
                        + e.getMessage() + "); name a file in a directory it may write, such as"
                        + " /dev/shm", e);
            }
        }
    }

    /**
     * Deletes the temporary files that killed creators of {@code target} left: named as
     * {@link #createTemp} names them, regular, owned by this user, not locked by a live creator
     * (a creator locks its file's writer byte right after creating it) and older than
     * {@link #STALE_TEMP_MILLIS} (a creator between its open and its lock). Anything else is left.
     */
    static void removeStaleTemps(Path target, long writerLockByte) throws IOException {
        Pattern ours = Pattern.compile("\\." + Pattern.quote(target.getFileName().toString()) + "\\.[0-9]+\\.tmp");
        long oldest = System.currentTimeMillis() - STALE_TEMP_MILLIS;
        Pointer flock = OfdLock.newFlock();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(target.getParent(),
                p -> ours.matcher(p.getFileName().toString()).matches())) {
            for (Path tmp : entries) {
                removeIfStale(tmp, writerLockByte, oldest, flock);
            }
        }
    }

    private static void removeIfStale(Path tmp, long lockByte, long oldest, Pointer flock) {
        int fd = -1;
        try {
            BasicFileAttributes a = Files.readAttributes(tmp, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || a.lastModifiedTime().toMillis() > oldest) {
                return;
            }
            fd = Posix.openNoFollow(tmp, false);
            checkFile(tmp, fd, false); // ours: this user's, mode 0600
            if (!OfdLock.isLocked(fd, lockByte, flock)) {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            // not ours, or gone meanwhile: left alone
        } finally {
            Posix.closeQuietly(fd);
        }
    }

    /**
     * Waits until something exists at {@code target}, at most {@code nanos}: an inotify watch of
     * the directory ({@link WatchService}), with a look at least every 100 ms where the file
     * system sends no events.
     *
     * @return {@code true} if it exists, {@code false} on timeout
     */
    static boolean awaitFile(Path target, long nanos) throws IOException {
        Path dir = directory(target);
        long deadline = System.nanoTime() + nanos;
        try (WatchService watch = dir.getFileSystem().newWatchService()) {
            dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            long look = TimeUnit.MILLISECONDS.toNanos(1);
            for (;;) { // looks after registering: a file linked before that is seen here
                if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                var key = watch.poll(Math.min(left, look), TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
                look = Math.min(look * 2, MAX_LOOK_NANOS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException io = new InterruptedIOException("interrupted waiting for " + target);
            io.initCause(e);
            throw io;
        }
    }

    /**
     * Deletes the pipe file at {@code target} if no live process holds a side of it: opens it,
     * takes both sides' locks on that descriptor (so no process can open a side meanwhile),
     * checks that the name still leads to that file, and unlinks the name.
     *
     * @return {@code false} if there is no file
     */
    static boolean delete(Path target, long writerLockByte, long readerLockByte) throws IOException {
        for (int attempt = 0;; attempt++) {
            int fd;
            try {
                fd = Posix.openNoFollow(target, false);
            } catch (NoSuchFileException e) {
                return false;
            }
            try {
                checkFile(target, fd, true);
                Object inode = Files.getAttribute(Posix.procPath(fd), "unix:ino");
                Object device = Files.getAttribute(Posix.procPath(fd), "unix:dev");
                try (FileChannel ch = channel(fd)) {
                    if (!hasPipeMagic(ch)) {
                        throw new IOException(target + " is not a pipe file (no \"YSPIPE01\" magic): not deleted");
                    }
                    Pointer flock = OfdLock.newFlock();
                    lockSide(target, fd, ch, writerLockByte, true, flock);
                    lockSide(target, fd, ch, readerLockByte, false, flock);
                }
                // Holding both locks: no side of this file can be opened until fd is closed. The
                // name may have been replaced before we locked (a racing delete and create): then
                // the file at the name now is another one, and we look again.
                try {
                    if (inode.equals(Files.getAttribute(target, "unix:ino", LinkOption.NOFOLLOW_LINKS))
                            && device.equals(Files.getAttribute(target, "unix:dev", LinkOption.NOFOLLOW_LINKS))) {
                        Files.delete(target);
                        return true;
                    }
                } catch (NoSuchFileException e) {
                    return false;
                }
            } finally {
                Posix.closeQuietly(fd);
            }
            if (attempt == 100) {
                throw new IOException("cannot delete " + target + ": its file keeps being replaced");
            }
        }
    }

    /**
     * Takes a side's lock for {@link #delete}. A side whose state in the file is CLOSED while its
     * lock is held is a close between its CLOSED mark and its unlock (a peer that saw the mark
     * deletes at once): wait for that unlock, at most {@link #CLOSING_SIDE_WAIT_NANOS}.
     *
     * @throws PipeSideTakenException if the side is held open, or stays locked that long
     */
    private static void lockSide(Path target, int fd, FileChannel ch, long lockByte, boolean writer,
            Pointer flock) throws IOException {
        if (OfdLock.tryLock(fd, lockByte, flock)) {
            return;
        }
        long deadline = System.nanoTime() + CLOSING_SIDE_WAIT_NANOS;
        long park = 10_000;
        while (sideState(ch, writer) == SharedPipeDescriptor.CLOSED && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(park);
            park = Math.min(2 * park, 1_000_000);
            if (OfdLock.tryLock(fd, lockByte, flock)) {
                return;
            }
        }
        throw taken(target, ch, writer);
    }

    /** The side's state word as the file holds it now (any value: it is only compared). */
    private static int sideState(FileChannel ch, boolean writer) throws IOException {
        ByteBuffer state = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder());
        int n = ch.read(state, writer ? SharedPipeDescriptor.WRITER_AT : SharedPipeDescriptor.READER_AT);
        return n == 4 ? state.getInt(0) : -1;
    }

    private static PipeSideTakenException taken(Path target, FileChannel ch, boolean writer) throws IOException {
        ByteBuffer side = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
        ch.read(side, writer ? SharedPipeDescriptor.WRITER_AT : SharedPipeDescriptor.READER_AT);
        long started = side.getLong(8);
        return new PipeSideTakenException("the " + SharedPipeFile.sideName(writer) + " side of " + target
                + " is in use by process " + side.getInt(4)
                + (started < 0 ? "" : " (started " + Instant.ofEpochMilli(started) + ")")
                + ": the file is not deleted or replaced while a live process holds a side");
    }
}
