package org.ysuite.jcstress;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * Asks what a native poller (poll(2) with a zero timeout) or a JDK selector (selectNow) would say
 * about a signaler's wake-up descriptor or channel, without consuming anything.
 */
final class Readiness {

    /** The one libc call needed here, bound by the test itself (not through ysuite's internals). */
    public interface Poll {
        /**
         * poll(2).
         *
         * @param fds struct pollfd array
         * @param nfds its length
         * @param timeout milliseconds
         * @return the number of ready descriptors, or -1
         */
        int poll(Pointer fds, long nfds, int timeout);
    }

    private static final Poll LIBC = LibraryLoader.create(Poll.class).load("c");
    private static final short POLLIN = 1;

    private Readiness() {
    }

    /** A reusable struct pollfd for one thread at a time. */
    static Pointer pollfd() {
        return Memory.allocateDirect(Runtime.getRuntime(LIBC), 8);
    }

    /** 1 if {@code fd} polls readable now, 0 if not. */
    static int readable(Pointer pollfd, int fd) {
        pollfd.putInt(0, fd);
        pollfd.putShort(4, POLLIN);
        pollfd.putShort(6, (short) 0);
        int rc = LIBC.poll(pollfd, 1, 0);
        if (rc < 0) {
            throw new IllegalStateException("poll(" + fd + ") failed");
        }
        return rc > 0 && (pollfd.getShort(6) & POLLIN) != 0 ? 1 : 0;
    }

    /** A selector with {@code channel} registered for reading. */
    static Selector selectorFor(SelectableChannel channel) {
        try {
            Selector selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
            return selector;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** 1 if a selectNow() finds the channel readable (level-triggered), 0 if not. */
    static int readable(Selector selector) {
        try {
            selector.selectedKeys().clear();
            selector.selectNow();
            return selector.selectedKeys().isEmpty() ? 0 : 1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
