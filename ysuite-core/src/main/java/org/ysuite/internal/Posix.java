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
            throw new IllegalStateException("poll(" + fd + ") failed: errno " + err);
        }
        return n == 0 ? 0 : pollfd.getShort(6) & 0xffff;
    }

    /**
     * Builds the message of an unexpected {@code errno}.
     *
     * @param call the failed call, e.g. {@code "write(7)"}
     * @param errno the error number
     * @return a message
     */
    public static String failure(String call, int errno) {
        return call + " failed: errno " + errno;
    }
}
