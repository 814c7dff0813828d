package org.ysuite.bench.fd;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Platform;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * The benchmark's own binding of {@code poll(2)}, the way an application that waits on
 * {@code YSocketPair.fd()} in its own native poller would bind it (ysuite's internal binding is
 * not exported from module {@code org.ysuite}). Linux values.
 */
final class Poll2 {

    /** The one C call the benchmark needs. */
    public interface C {
        /**
         * {@code poll(2)}.
         *
         * @param fds array of {@code struct pollfd}
         * @param nfds number of entries
         * @param timeoutMillis timeout, -1 for none
         * @return ready count, 0 on timeout, -1 on error
         */
        int poll(Pointer fds, long nfds, int timeoutMillis);
    }

    /** Size of {@code struct pollfd}: {@code int fd; short events; short revents;}. */
    static final int POLLFD_SIZE = 8;
    private static final short POLLIN = 0x1;
    private static final C LIBC = LibraryLoader.create(C.class).load(Platform.getNativePlatform().getStandardCLibraryName());
    private static final Runtime RUNTIME = Runtime.getRuntime(LIBC);

    private Poll2() {
    }

    /** One {@code struct pollfd} of native memory, owned by the calling thread. */
    static Pointer pollfd() {
        return Memory.allocateDirect(RUNTIME, POLLFD_SIZE, true);
    }

    /**
     * Waits until {@code fd} is readable or the timeout passes (an interrupted call simply returns:
     * every caller loops and re-checks).
     */
    static void pollIn(int fd, Pointer pollfd, int timeoutMillis) {
        pollfd.putInt(0, fd);
        pollfd.putShort(4, POLLIN);
        pollfd.putShort(6, (short) 0);
        LIBC.poll(pollfd, 1, timeoutMillis);
    }
}
