package org.ysuite.internal;

import jnr.ffi.LastError;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Platform;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * Loads {@link LibC} once and holds the Linux constants and small helpers around it.
 *
 * <p>The constants are the Linux values (identical on x86-64 and AArch64); ysuite's descriptor
 * signalers support Linux only, and {@link #libc()} says so clearly elsewhere.
 */
public final class Posix {

    /** {@code AF_UNIX}. */
    public static final int AF_UNIX = 1;
    /** {@code SOCK_STREAM}. */
    public static final int SOCK_STREAM = 1;
    /** {@code SOCK_NONBLOCK} (same value as {@code O_NONBLOCK}). */
    public static final int SOCK_NONBLOCK = 0x800;
    /** {@code SOCK_CLOEXEC} (same value as {@code O_CLOEXEC}). */
    public static final int SOCK_CLOEXEC = 0x80000;
    /** {@code O_NONBLOCK}. */
    public static final int O_NONBLOCK = 0x800;
    /** {@code EFD_NONBLOCK}. */
    public static final int EFD_NONBLOCK = 0x800;
    /** {@code EFD_CLOEXEC}. */
    public static final int EFD_CLOEXEC = 0x80000;
    /** {@code EPOLL_CLOEXEC}. */
    public static final int EPOLL_CLOEXEC = 0x80000;
    /** {@code EPOLL_CTL_ADD}. */
    public static final int EPOLL_CTL_ADD = 1;
    /** {@code EPOLL_CTL_DEL}. */
    public static final int EPOLL_CTL_DEL = 2;
    /** {@code EPOLLIN}. */
    public static final int EPOLLIN = 0x1;
    /** {@code POLLIN}. */
    public static final short POLLIN = 0x1;
    /** {@code POLLERR}. */
    public static final short POLLERR = 0x8;
    /** {@code POLLHUP}. */
    public static final short POLLHUP = 0x10;
    /** {@code POLLNVAL}. */
    public static final short POLLNVAL = 0x20;
    /** {@code F_GETFL}. */
    public static final int F_GETFL = 3;
    /** {@code F_GETFD}. */
    public static final int F_GETFD = 1;
    /** {@code FD_CLOEXEC}. */
    public static final int FD_CLOEXEC = 1;
    /** {@code EINTR}. */
    public static final int EINTR = 4;
    /** {@code EAGAIN} (= {@code EWOULDBLOCK}). */
    public static final int EAGAIN = 11;
    /** {@code EBADF}. */
    public static final int EBADF = 9;
    /** {@code ENOENT}. */
    public static final int ENOENT = 2;
    /** {@code EACCES}: permission denied (or, from {@code fcntl} locks, a lock held). */
    public static final int EACCES = 13;
    /** {@code EEXIST}. */
    public static final int EEXIST = 17;
    /** {@code EISDIR}. */
    public static final int EISDIR = 21;
    /** {@code EFBIG}: past the file size limit ({@code RLIMIT_FSIZE}) or the file system's. */
    public static final int EFBIG = 27;
    /** {@code ENOSPC}. */
    public static final int ENOSPC = 28;
    /** {@code ELOOP}: among others, {@code O_NOFOLLOW} met a symbolic link. */
    public static final int ELOOP = 40;
    /** {@code EOPNOTSUPP}. */
    public static final int EOPNOTSUPP = 95;
    /** {@code EDQUOT}. */
    public static final int EDQUOT = 122;
    /** {@code O_RDWR}. */
    public static final int O_RDWR = 2;
    /** {@code O_CREAT}. */
    public static final int O_CREAT = 0x40;
    /** {@code O_EXCL}. */
    public static final int O_EXCL = 0x80;
    /** {@code O_CLOEXEC}. */
    public static final int O_CLOEXEC = 0x80000;
    /** {@code O_NOFOLLOW}: 0x20000 on x86-64, 0x8000 on AArch64 (which kept 32-bit ARM's value). */
    public static final int O_NOFOLLOW;

    /** Size of {@code struct pollfd}: {@code int fd; short events; short revents;}. */
    public static final int POLLFD_SIZE = 8;
    /**
     * Size of {@code struct epoll_event}: packed (12 bytes) on x86-64, naturally aligned (16 bytes)
     * elsewhere.
     */
    public static final int EPOLL_EVENT_SIZE;
    /** Offset of {@code epoll_event.data} (4 on x86-64, 8 elsewhere). */
    public static final int EPOLL_DATA_OFFSET;

    static {
        boolean x86 = Platform.getNativePlatform().getCPU() == Platform.CPU.X86_64;
        EPOLL_EVENT_SIZE = x86 ? 12 : 16;
        EPOLL_DATA_OFFSET = x86 ? 4 : 8;
        O_NOFOLLOW = x86 ? 0x20000 : 0x8000;
    }

    private Posix() {
    }

    /** Lazy holder: the library is loaded on first use, and a failure is reported on every use. */
    private static final class Holder {
        static final LibC LIBC;
        static final Runtime RUNTIME;
        static final Throwable FAILURE;

        static {
            LibC lib = null;
            Runtime rt = null;
            Throwable failure = null;
            try {
                if (Platform.getNativePlatform().getOS() != Platform.OS.LINUX) {
                    throw new UnsupportedOperationException(
                            "ysuite's descriptor signalers need Linux; this is "
                                    + Platform.getNativePlatform().getOS());
                }
                lib = LibraryLoader.create(LibC.class).load(Platform.getNativePlatform().getStandardCLibraryName());
                rt = Runtime.getRuntime(lib);
            } catch (Throwable t) {
                failure = t;
            }
            LIBC = lib;
            RUNTIME = rt;
            FAILURE = failure;
        }
    }

    /**
     * Returns the C library binding.
     *
     * @return the loaded binding
     * @throws UnsupportedOperationException if not on Linux or the library cannot be loaded
     */
    public static LibC libc() {
        if (Holder.FAILURE != null) {
            if (Holder.FAILURE instanceof UnsupportedOperationException) {
                throw (UnsupportedOperationException) Holder.FAILURE;
            }
            throw new UnsupportedOperationException("cannot load the C library through jnr-ffi", Holder.FAILURE);
        }
        return Holder.LIBC;
    }

    /**
     * Returns the jnr-ffi runtime of the binding.
     *
     * @return the runtime
     */
    public static Runtime runtime() {
        libc();
        return Holder.RUNTIME;
    }

    /**
     * Returns {@code errno} as saved by the last {@link LibC} call on this thread.
     *
     * @return the saved error number
     */
    public static int errno() {
        return LastError.getLastError(runtime());
    }

    /**
     * Allocates zeroed direct (native) memory owned by the garbage collector.
     *
     * @param bytes the size, {@code > 0}
     * @return the memory
     */
    public static Pointer allocate(int bytes) {
        return Memory.allocateDirect(runtime(), bytes, true);
    }

    /**
     * Closes {@code fd} if it is not negative, ignoring errors (Linux releases the number anyway).
     *
     * @param fd descriptor or {@code -1}
     */
    public static void closeQuietly(int fd) {
        if (fd >= 0) {
            libc().close(fd);
        }
    }

    /**
     * Waits with {@code poll(2)} until {@code fd} is readable or {@code timeoutMillis} passes; EINTR
     * ends the wait early (the caller loops).
     *
     * @param fd descriptor
     * @param pollfd scratch memory of at least {@link #POLLFD_SIZE} bytes, owned by the caller
     * @param timeoutMillis milliseconds, {@code -1} forever
     * @return the {@code revents} bits, {@code 0} on timeout or EINTR
     */
    public static int pollIn(int fd, Pointer pollfd, int timeoutMillis) {
        pollfd.putInt(0, fd);
        pollfd.putShort(4, POLLIN);
        pollfd.putShort(6, (short) 0);
        int n = libc().poll(pollfd, 1, timeoutMillis);
        if (n < 0) {
            int err = errno();
            if (err == EINTR) {
                return 0;
            }
            throw new IllegalStateException(failure("poll(" + fd + ")", err));
        }
        return n == 0 ? 0 : pollfd.getShort(6) & 0xffff;
    }

    /**
     * Builds the message of an unexpected {@code errno}: the call, the number, and its name and
     * meaning where known, e.g. {@code open(/sys/x) failed: errno 13 (EACCES: permission denied)}.
     *
     * @param call the failed call, e.g. {@code "write(7)"}
     * @param errno the error number
     * @return a message
     */
    public static String failure(String call, int errno) {
        return call + " failed: " + describe(errno);
    }

    /**
     * Names a Linux {@code errno} as {@code strerror} would, with its symbol:
     * {@code errno 21 (EISDIR: is a directory)}; a number not in the table stays a number.
     *
     * @param errno the error number
     * @return the description
     */
    public static String describe(int errno) {
        String text;
        switch (errno) {
            case 1: text = "EPERM: operation not permitted"; break;
            case ENOENT: text = "ENOENT: no such file or directory"; break;
            case EINTR: text = "EINTR: interrupted system call"; break;
            case 5: text = "EIO: input/output error"; break;
            case EBADF: text = "EBADF: bad file descriptor"; break;
            case EAGAIN: text = "EAGAIN: resource temporarily unavailable"; break;
            case 12: text = "ENOMEM: cannot allocate memory"; break;
            case EACCES: text = "EACCES: permission denied"; break;
            case 16: text = "EBUSY: device or resource busy"; break;
            case EEXIST: text = "EEXIST: file exists"; break;
            case 18: text = "EXDEV: invalid cross-device link"; break;
            case 19: text = "ENODEV: no such device"; break;
            case 20: text = "ENOTDIR: not a directory"; break;
            case EISDIR: text = "EISDIR: is a directory"; break;
            case 22: text = "EINVAL: invalid argument"; break;
            case 23: text = "ENFILE: too many open files in system"; break;
            case 24: text = "EMFILE: too many open files"; break;
            case 26: text = "ETXTBSY: text file busy"; break;
            case EFBIG: text = "EFBIG: file too large"; break;
            case ENOSPC: text = "ENOSPC: no space left on device"; break;
            case 30: text = "EROFS: read-only file system"; break;
            case 36: text = "ENAMETOOLONG: file name too long"; break;
            case 38: text = "ENOSYS: function not implemented"; break;
            case ELOOP: text = "ELOOP: too many levels of symbolic links"; break;
            case EOPNOTSUPP: text = "EOPNOTSUPP: operation not supported"; break;
            case EDQUOT: text = "EDQUOT: disk quota exceeded"; break;
            default: return "errno " + errno;
        }
        return "errno " + errno + " (" + text + ")";
    }

    /**
     * Opens {@code path} read-write, close-on-exec, without following a symbolic link in its last
     * component ({@code O_NOFOLLOW}), optionally creating it ({@code O_CREAT | O_EXCL}).
     *
     * @param path the file
     * @param create {@code true} to create it (it must not exist), mode {@code 0600}
     * @return the descriptor
     * @throws java.nio.file.NoSuchFileException if it does not exist (or its directory)
     * @throws java.nio.file.FileAlreadyExistsException if {@code create} and it exists
     * @throws java.nio.file.FileSystemException if it is a symbolic link ({@code ELOOP})
     * @throws java.io.IOException if {@code open(2)} fails otherwise
     */
    public static int openNoFollow(java.nio.file.Path path, boolean create) throws java.io.IOException {
        int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_EXCL : 0);
        int fd = libc().open(path.toString(), flags, 0600);
        if (fd >= 0) {
            return fd;
        }
        int err = errno();
        switch (err) {
            case ENOENT:
                throw new java.nio.file.NoSuchFileException(path.toString());
            case EEXIST:
                throw new java.nio.file.FileAlreadyExistsException(path.toString());
            case ELOOP:
                throw new java.nio.file.FileSystemException(path.toString(), null,
                        "is a symbolic link (not followed: open the file it points to by its own path)");
            default:
                throw new java.io.IOException(failure("open(" + path + ")", err));
        }
    }

    /**
     * The path through which this process reaches the file that {@code fd} is open on, whatever
     * its name is now: {@code /proc/self/fd/<fd>}. Opening it opens that same file (a new open
     * file description); reading its attributes reads the file's ({@code fstat}).
     *
     * @param fd an open descriptor
     * @return its {@code /proc} path
     */
    public static java.nio.file.Path procPath(int fd) {
        return java.nio.file.Paths.get("/proc/self/fd/" + fd);
    }

    /**
     * Allocates the blocks of {@code [0, size)} of {@code fd}'s file, extending it to
     * {@code size}: {@code fallocate(2)}, or where the file system lacks it,
     * {@code posix_fallocate} (which writes into each block).
     *
     * @param fd a descriptor open for writing
     * @param size the file's size
     * @return {@code 0}, or the error number ({@code ENOSPC}, {@code EFBIG}, {@code EDQUOT} ...)
     */
    public static int allocate(int fd, long size) {
        int err;
        do {
            err = libc().fallocate(fd, 0, 0, size) == 0 ? 0 : errno();
        } while (err == EINTR);
        if (err != EOPNOTSUPP) {
            return err;
        }
        do {
            err = libc().posix_fallocate(fd, 0, size);
        } while (err == EINTR);
        return err;
    }
}
