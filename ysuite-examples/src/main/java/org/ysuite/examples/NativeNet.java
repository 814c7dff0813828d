package org.ysuite.examples;

import jnr.ffi.LastError;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Platform;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/**
 * The C calls the native-poller examples make, bound through jnr-ffi the way an application that
 * owns its own sockets (a C or Netty-style event loop) would bind them. Linux values throughout.
 */
public interface NativeNet {

    /** {@code AF_INET}. */
    int AF_INET = 2;
    /** {@code SOCK_STREAM}. */
    int SOCK_STREAM = 1;
    /** {@code SOCK_NONBLOCK}. */
    int SOCK_NONBLOCK = 0x800;
    /** {@code SOCK_CLOEXEC}. */
    int SOCK_CLOEXEC = 0x80000;
    /** {@code SOL_SOCKET}. */
    int SOL_SOCKET = 1;
    /** {@code SO_REUSEADDR}. */
    int SO_REUSEADDR = 2;
    /** {@code POLLIN}. */
    short POLLIN = 0x1;
    /** {@code EPOLLIN}. */
    int EPOLLIN = 0x1;
    /** {@code EPOLL_CLOEXEC}. */
    int EPOLL_CLOEXEC = 0x80000;
    /** {@code EPOLL_CTL_ADD}. */
    int EPOLL_CTL_ADD = 1;
    /** {@code EPOLL_CTL_DEL}. */
    int EPOLL_CTL_DEL = 2;
    /** {@code EINTR}. */
    int EINTR = 4;
    /** {@code EAGAIN}. */
    int EAGAIN = 11;

    /**
     * {@code socket(2)}.
     *
     * @param domain address family
     * @param type type and flags
     * @param protocol protocol, 0
     * @return descriptor or -1
     */
    @SaveError
    int socket(int domain, int type, int protocol);

    /**
     * {@code setsockopt(2)}.
     *
     * @param fd socket
     * @param level level
     * @param name option
     * @param value pointer to the value
     * @param length value length
     * @return 0 or -1
     */
    @SaveError
    int setsockopt(int fd, int level, int name, Pointer value, int length);

    /**
     * {@code bind(2)}.
     *
     * @param fd socket
     * @param addr {@code struct sockaddr_in}
     * @param length its size, 16
     * @return 0 or -1
     */
    @SaveError
    int bind(int fd, Pointer addr, int length);

    /**
     * {@code listen(2)}.
     *
     * @param fd socket
     * @param backlog backlog
     * @return 0 or -1
     */
    @SaveError
    int listen(int fd, int backlog);

    /**
     * {@code getsockname(2)}.
     *
     * @param fd socket
     * @param addr receives the address
     * @param length in/out: pointer to the size
     * @return 0 or -1
     */
    @SaveError
    int getsockname(int fd, Pointer addr, Pointer length);

    /**
     * {@code accept4(2)}.
     *
     * @param fd listening socket
     * @param addr null or the peer address
     * @param length null or its size
     * @param flags {@code SOCK_NONBLOCK | SOCK_CLOEXEC}
     * @return the connection's descriptor or -1
     */
    @SaveError
    int accept4(int fd, Pointer addr, Pointer length, int flags);

    /**
     * {@code read(2)}.
     *
     * @param fd descriptor
     * @param buf destination
     * @param count capacity
     * @return bytes read, 0 at end of stream, -1 on error
     */
    @SaveError
    @ssize_t long read(int fd, Pointer buf, @size_t long count);

    /**
     * {@code close(2)}.
     *
     * @param fd descriptor
     * @return 0 or -1
     */
    int close(int fd);

    /**
     * {@code poll(2)}.
     *
     * @param fds {@code struct pollfd} array (8 bytes each)
     * @param nfds entries
     * @param timeoutMillis timeout, -1 forever
     * @return ready entries, 0 on timeout, -1 on error
     */
    @SaveError
    int poll(Pointer fds, long nfds, int timeoutMillis);

    /**
     * {@code epoll_create1(2)}.
     *
     * @param flags flags
     * @return descriptor or -1
     */
    @SaveError
    int epoll_create1(int flags);

    /**
     * {@code epoll_ctl(2)}.
     *
     * @param epfd epoll descriptor
     * @param op operation
     * @param fd watched descriptor
     * @param event one {@code struct epoll_event}
     * @return 0 or -1
     */
    @SaveError
    int epoll_ctl(int epfd, int op, int fd, Pointer event);

    /**
     * {@code epoll_wait(2)}.
     *
     * @param epfd epoll descriptor
     * @param events receives events
     * @param maxevents capacity
     * @param timeoutMillis timeout
     * @return events, 0 on timeout, -1 on error
     */
    @SaveError
    int epoll_wait(int epfd, Pointer events, int maxevents, int timeoutMillis);

    /** The loaded binding and its runtime. */
    final class Lib {
        /** The binding. */
        public static final NativeNet C = LibraryLoader.create(NativeNet.class)
                .load(Platform.getNativePlatform().getStandardCLibraryName());
        /** Its runtime. */
        public static final Runtime RUNTIME = Runtime.getRuntime(C);
        /** {@code sizeof(struct epoll_event)}: packed 12 bytes on x86-64, 16 elsewhere. */
        public static final int EPOLL_EVENT_SIZE =
                Platform.getNativePlatform().getCPU() == Platform.CPU.X86_64 ? 12 : 16;
        /** Offset of {@code epoll_event.data}. */
        public static final int EPOLL_DATA_OFFSET = EPOLL_EVENT_SIZE == 12 ? 4 : 8;

        private Lib() {
        }

        /**
         * Returns the saved {@code errno} of this thread's last call.
         *
         * @return errno
         */
        public static int errno() {
            return LastError.getLastError(RUNTIME);
        }

        /**
         * Opens a non-blocking TCP listening socket on 127.0.0.1 with an ephemeral port.
         *
         * @return {@code {fd, port}}
         */
        public static int[] listenLoopback() {
            int fd = C.socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            check(fd, "socket");
            Pointer one = jnr.ffi.Memory.allocateDirect(RUNTIME, 4, true);
            one.putInt(0, 1);
            check(C.setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, one, 4), "setsockopt");
            Pointer addr = jnr.ffi.Memory.allocateDirect(RUNTIME, 16, true);
            addr.putShort(0, (short) AF_INET); // host order
            addr.putByte(2, (byte) 0);          // port 0, network order
            addr.putByte(3, (byte) 0);
            addr.putByte(4, (byte) 127);        // 127.0.0.1, network order
            addr.putByte(5, (byte) 0);
            addr.putByte(6, (byte) 0);
            addr.putByte(7, (byte) 1);
            check(C.bind(fd, addr, 16), "bind");
            check(C.listen(fd, 16), "listen");
            Pointer len = jnr.ffi.Memory.allocateDirect(RUNTIME, 4, true);
            len.putInt(0, 16);
            check(C.getsockname(fd, addr, len), "getsockname");
            int port = ((addr.getByte(2) & 0xff) << 8) | (addr.getByte(3) & 0xff);
            return new int[] {fd, port};
        }

        /**
         * Throws if a call failed.
         *
         * @param rc the call's result
         * @param call its name
         * @return {@code rc}
         */
        public static int check(int rc, String call) {
            if (rc < 0) {
                throw new IllegalStateException(call + " failed: errno " + errno());
            }
            return rc;
        }
    }
}
