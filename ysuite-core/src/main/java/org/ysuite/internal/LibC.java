package org.ysuite.internal;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.IgnoreError;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/**
 * The few C library functions ysuite calls, bound through jnr-ffi. Load it with {@link Posix#libc()}.
 *
 * <p>Every function that reports failure through {@code errno} is marked {@link SaveError}; read
 * the value with {@link Posix#errno()} right after the call, on the same thread.
 */
public interface LibC {

    /**
     * {@code int socketpair(int domain, int type, int protocol, int sv[2])}.
     *
     * @param domain address family, {@link Posix#AF_UNIX}
     * @param type socket type and flags, e.g. {@code SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC}
     * @param protocol {@code 0}
     * @param sv receives the two descriptors (a direct memory block of two {@code int}s)
     * @return {@code 0}, or {@code -1} with {@code errno} set
     */
    @SaveError
    int socketpair(int domain, int type, int protocol, Pointer sv);

    /**
     * {@code int eventfd(unsigned int initval, int flags)} (Linux).
     *
     * @param initval the initial counter
     * @param flags {@code EFD_NONBLOCK | EFD_CLOEXEC} etc.
     * @return the new descriptor, or {@code -1} with {@code errno} set
     */
    @SaveError
    int eventfd(int initval, int flags);

    /**
     * {@code ssize_t read(int fd, void *buf, size_t count)}.
     *
     * @param fd descriptor
     * @param buf destination (direct memory)
     * @param count bytes to read at most
     * @return bytes read, {@code 0} at end of stream, or {@code -1} with {@code errno} set
     */
    @SaveError
    @ssize_t long read(int fd, Pointer buf, @size_t long count);

    /**
     * {@code ssize_t write(int fd, const void *buf, size_t count)}.
     *
     * @param fd descriptor
     * @param buf source (direct memory)
     * @param count bytes to write
     * @return bytes written, or {@code -1} with {@code errno} set
     */
    @SaveError
    @ssize_t long write(int fd, Pointer buf, @size_t long count);

    /**
     * {@code int close(int fd)}. The descriptor is released even when this reports an error
     * (Linux), so it is never retried.
     *
     * @param fd descriptor
     * @return {@code 0} or {@code -1}
     */
    @IgnoreError
    int close(int fd);

    /**
     * {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}.
     *
     * @param fds array of {@code struct pollfd} (8 bytes each: int fd, short events, short revents)
     * @param nfds number of entries
     * @param timeoutMillis milliseconds; {@code -1} waits forever, {@code 0} does not wait
     * @return number of entries with events, {@code 0} on timeout, {@code -1} with {@code errno} set
     */
    @SaveError
    int poll(Pointer fds, long nfds, int timeoutMillis);

    /**
     * {@code int epoll_create1(int flags)} (Linux).
     *
     * @param flags {@code EPOLL_CLOEXEC} or {@code 0}
     * @return the epoll descriptor, or {@code -1} with {@code errno} set
     */
    @SaveError
    int epoll_create1(int flags);

    /**
     * {@code int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)} (Linux).
     *
     * @param epfd epoll descriptor
     * @param op {@code EPOLL_CTL_ADD}, {@code _MOD} or {@code _DEL}
     * @param fd the watched descriptor
     * @param event one {@code struct epoll_event} ({@link Posix#EPOLL_EVENT_SIZE} bytes)
     * @return {@code 0}, or {@code -1} with {@code errno} set
     */
    @SaveError
    int epoll_ctl(int epfd, int op, int fd, Pointer event);

    /**
     * {@code int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)}.
     *
     * @param epfd epoll descriptor
     * @param events receives up to {@code maxevents} events
     * @param maxevents capacity of {@code events}
     * @param timeoutMillis milliseconds; {@code -1} waits forever
     * @return number of events, {@code 0} on timeout, {@code -1} with {@code errno} set
     */
    @SaveError
    int epoll_wait(int epfd, Pointer events, int maxevents, int timeoutMillis);

    /**
     * {@code int fcntl(int fd, int cmd, int arg)}.
     *
     * @param fd descriptor
     * @param cmd e.g. {@code F_GETFL}
     * @param arg the command's argument
     * @return the command's result, or {@code -1} with {@code errno} set
     */
    @SaveError
    int fcntl(int fd, int cmd, int arg);
    /**
     * {@code int fcntl(int fd, int cmd, struct flock *lock)}: the record-lock commands
     * ({@code F_OFD_SETLK}, {@code F_OFD_GETLK}).
     *
     * @param fd descriptor
     * @param cmd the lock command
     * @param lock a {@code struct flock} ({@link OfdLock#FLOCK_SIZE} bytes, direct memory)
     * @return {@code 0}, or {@code -1} with {@code errno} set
     */
    @SaveError
    int fcntl(int fd, int cmd, Pointer lock);

    /**
     * {@code int open(const char *path, int flags, mode_t mode)}.
     *
     * @param path the file's path
     * @param flags e.g. {@code O_RDWR | O_CLOEXEC}
     * @param mode permissions of a created file (ignored without {@code O_CREAT})
     * @return the new descriptor, or {@code -1} with {@code errno} set
     */
    @SaveError
    int open(String path, int flags, int mode);

    /**
     * {@code long syscall(long number, ...)} with four integer or address arguments (the Linux
     * calling convention passes them in registers; the kernel ignores the registers of arguments
     * a call does not use). {@code futex(2)}'s {@code FUTEX_WAIT} and {@code FUTEX_WAKE} use four
     * (address, operation, value, timeout), so {@link Futex} calls it with four. Five arguments
     * in all: jnr-ffi calls a function of up to six arguments directly; with more it marshals
     * them through a buffer allocated per call (about 50 bytes each).
     *
     * @param number the system call number
     * @param a1 first argument
     * @param a2 second argument
     * @param a3 third argument
     * @param a4 fourth argument
     * @return the call's result, or {@code -1} with {@code errno} set
     */
    @SaveError
    long syscall(long number, long a1, long a2, long a3, long a4);

    /**
     * {@code int fallocate(int fd, int mode, off_t offset, off_t len)} (Linux): with mode 0,
     * allocates the blocks of the range and extends the file to its end. glibc passes it to the
     * system call as it is (unlike {@code posix_fallocate}, it never falls back to writing).
     *
     * @param fd descriptor open for writing
     * @param mode {@code 0}
     * @param offset the range's start
     * @param len the range's length
     * @return {@code 0}, or {@code -1} with {@code errno} set ({@code ENOSPC}, {@code EFBIG},
     *     {@code EOPNOTSUPP} where the file system cannot)
     */
    @SaveError
    int fallocate(int fd, int mode, @off_t long offset, @off_t long len);

    /**
     * {@code int posix_fallocate(int fd, off_t offset, off_t len)}: like {@link #fallocate} with
     * mode 0, but where the file system lacks it glibc writes a byte into each block instead.
     *
     * @param fd descriptor open for writing
     * @param offset the range's start
     * @param len the range's length
     * @return {@code 0}, or the error number itself ({@code errno} is not set)
     */
    @IgnoreError
    int posix_fallocate(int fd, @off_t long offset, @off_t long len);

    /**
     * {@code int mkfifo(const char *path, mode_t mode)}: creates a named pipe (FIFO); never
     * follows a symbolic link in the last component (an existing name, link or not, is
     * {@code EEXIST}).
     *
     * @param path the FIFO's path
     * @param mode its permissions (less the umask), e.g. {@code 0600}
     * @return {@code 0}, or {@code -1} with {@code errno} set
     */
    @SaveError
    int mkfifo(String path, int mode);

    /**
     * {@code uid_t geteuid(void)}: the effective user id (never fails).
     *
     * @return the effective user id
     */
    @IgnoreError
    int geteuid();
}
