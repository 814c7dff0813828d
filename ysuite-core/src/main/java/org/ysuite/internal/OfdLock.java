package org.ysuite.internal;

import java.io.IOException;
import jnr.ffi.Pointer;

/**
 * Open file description locks ({@code F_OFD_SETLK}, Linux 3.15+) on single bytes of a file: a
 * process's proof of life that the kernel drops when the process dies, {@code kill -9} included.
 *
 * <p>Unlike POSIX record locks ({@code F_SETLK}, and so {@link java.nio.channels.FileLock}), an
 * OFD lock belongs to the open file description, not the process: two descriptors opened
 * separately conflict even in one process, and closing some other descriptor of the same file
 * does not drop it. A lock past the end of the file is fine (nothing is read or written there).
 *
 * <p>{@code struct flock} on x86-64 and AArch64 (32 bytes): {@code short l_type; short l_whence;}
 * 4 bytes of padding, {@code off_t l_start; off_t l_len; pid_t l_pid;} 4 bytes of padding.
 */
public final class OfdLock {

    /** Size of {@code struct flock}. */
    public static final int FLOCK_SIZE = 32;
    static final int F_OFD_GETLK = 36;
    static final int F_OFD_SETLK = 37;
    static final short F_WRLCK = 1;
    static final short F_UNLCK = 2;

    private OfdLock() {
    }

    /**
     * Allocates a {@code struct flock} for {@link #tryLock} and {@link #isLocked}.
     *
     * @return zeroed direct memory of {@link #FLOCK_SIZE} bytes
     */
    public static Pointer newFlock() {
        return Posix.allocate(FLOCK_SIZE);
    }

    /**
     * Takes the write lock on byte {@code offset} without waiting.
     *
     * @param fd a descriptor open on the file (e.g. from {@link Posix#openNoFollow})
     * @param offset the byte
     * @param flock scratch memory from {@link #newFlock()}
     * @return {@code true} if taken (or already held by this descriptor); {@code false} if another
     *     open file description holds it
     * @throws IOException if {@code fcntl(2)} fails otherwise
     */
    public static boolean tryLock(int fd, long offset, Pointer flock) throws IOException {
        fill(flock, F_WRLCK, offset);
        if (Posix.libc().fcntl(fd, F_OFD_SETLK, flock) == 0) {
            return true;
        }
        int err = Posix.errno();
        if (err == Posix.EAGAIN || err == Posix.EACCES) {
            return false;
        }
        throw new IOException(Posix.failure("fcntl(F_OFD_SETLK)", err));
    }

    /**
     * Tells whether another open file description holds a lock on byte {@code offset}.
     *
     * @param fd a descriptor of the file
     * @param offset the byte
     * @param flock scratch memory from {@link #newFlock()}
     * @return {@code true} if the byte is locked by someone else
     * @throws IOException if {@code fcntl(2)} fails
     */
    public static boolean isLocked(int fd, long offset, Pointer flock) throws IOException {
        fill(flock, F_WRLCK, offset);
        if (Posix.libc().fcntl(fd, F_OFD_GETLK, flock) != 0) {
            throw new IOException(Posix.failure("fcntl(F_OFD_GETLK)", Posix.errno()));
        }
        return flock.getShort(0) != F_UNLCK;
    }

    private static void fill(Pointer flock, short type, long offset) {
        flock.setMemory(0, FLOCK_SIZE, (byte) 0);
        flock.putShort(0, type);
        flock.putShort(2, (short) 0); // SEEK_SET
        flock.putLong(8, offset);
        flock.putLong(16, 1); // one byte
        flock.putInt(24, 0); // l_pid: must be 0 for the OFD commands
    }
}
