package org.ysuite.bench.ipc;

import java.io.Closeable;
import java.io.IOException;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Platform;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * One descriptor in an epoll set of its own, waited on with {@code epoll_wait}: how a pollable
 * {@link org.ysuite.shared.SharedPipeReader} waits in {@link YsuiteLink}'s {@code ysuite-epoll} spec,
 * as an event loop would (a Netty epoll loop makes the same calls).
 */
final class EpollWait implements Closeable {

    /** The three calls, bound through jnr-ffi. */
    public interface Epoll {
        /**
         * {@code epoll_create1}.
         *
         * @param flags flags
         * @return the descriptor or -1
         */
        int epoll_create1(int flags);

        /**
         * {@code epoll_ctl}.
         *
         * @param epfd epoll descriptor
         * @param op operation
         * @param fd watched descriptor
         * @param event the event
         * @return 0 or -1
         */
        int epoll_ctl(int epfd, int op, int fd, Pointer event);

        /**
         * {@code epoll_wait}.
         *
         * @param epfd epoll descriptor
         * @param events events out
         * @param max capacity
         * @param timeoutMillis timeout
         * @return events, 0, or -1
         */
        int epoll_wait(int epfd, Pointer events, int max, int timeoutMillis);

        /**
         * {@code close}.
         *
         * @param fd descriptor
         * @return 0 or -1
         */
        int close(int fd);
    }

    private static final Epoll LIB = LibraryLoader.create(Epoll.class)
            .load(Platform.getNativePlatform().getStandardCLibraryName());
    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLLIN = 1;

    private final int epfd;
    private final Pointer events = Memory.allocateDirect(Runtime.getRuntime(LIB), 64, true);

    EpollWait(int fd) throws IOException {
        epfd = LIB.epoll_create1(EPOLL_CLOEXEC);
        if (epfd < 0) {
            throw new IOException("epoll_create1 failed");
        }
        events.putInt(0, EPOLLIN);
        if (LIB.epoll_ctl(epfd, EPOLL_CTL_ADD, fd, events) != 0) {
            LIB.close(epfd);
            throw new IOException("epoll_ctl(ADD " + fd + ") failed");
        }
    }

    /** Waits until the descriptor is readable (or a signal interrupts the wait: the caller looks again). */
    void await() {
        LIB.epoll_wait(epfd, events, 1, 1000);
    }

    @Override
    public void close() {
        LIB.close(epfd);
    }
}
