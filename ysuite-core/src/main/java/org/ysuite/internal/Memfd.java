package org.ysuite.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import jnr.ffi.Platform;
import jnr.ffi.Pointer;

/**
 * Linux {@code memfd_create(2)} with file seals: anonymous shared memory whose size nobody can
 * change once sealed, not even a process that opens it through {@code /proc/<pid>/fd/<n>}.
 *
 * <p>Why: a read-modify-write (a CAS, a get-and-or) on a page of a mapped file that another
 * process truncated crashes the JVM (the interpreter and C1 run it in the VM's own code, outside
 * the guard that turns a fault into an {@link InternalError}). A memfd sealed with
 * {@code F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL} cannot be truncated ({@code ftruncate} fails
 * with {@code EPERM}), so its words may take atomic read-modify-writes safely.
 */
public final class Memfd {

    /** {@code memfd_create}: 319 on x86-64, 279 on AArch64 (the generic table). */
    static final long SYS_MEMFD_CREATE =
            Platform.getNativePlatform().getCPU() == Platform.CPU.X86_64 ? 319 : 279;
    static final int MFD_CLOEXEC = 1;
    static final int MFD_ALLOW_SEALING = 2;
    static final int F_ADD_SEALS = 1033;
    static final int F_GET_SEALS = 1034;
    /** {@code F_SEAL_SEAL}: no seal can be added or removed any more. */
    public static final int F_SEAL_SEAL = 1;
    /** {@code F_SEAL_SHRINK}: the file cannot shrink. */
    public static final int F_SEAL_SHRINK = 2;
    /** {@code F_SEAL_GROW}: the file cannot grow. */
    public static final int F_SEAL_GROW = 4;
    /** The seals of a fixed-size memfd. */
    public static final int FIXED_SIZE = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW;

    private Memfd() {
    }

    /**
     * Creates a memfd of {@code size} zero bytes, close-on-exec, and seals its size.
     *
     * @param name the name shown in {@code /proc/<pid>/fd} (as {@code memfd:name})
     * @param size its size in bytes, {@code > 0}
     * @return the descriptor
     * @throws IOException if the kernel refuses (too old, out of memory)
     */
    public static int createFixed(String name, long size) throws IOException {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        Pointer cName = Posix.allocate(bytes.length + 1);
        cName.put(0, bytes, 0, bytes.length);
        int fd = (int) Posix.libc().syscall(SYS_MEMFD_CREATE, cName.address(),
                MFD_CLOEXEC | MFD_ALLOW_SEALING, 0, 0);
        if (fd < 0) {
            throw new IOException(Posix.failure("memfd_create(" + name + ")", Posix.errno()));
        }
        try {
            int err = Posix.allocate(fd, size);
            if (err != 0) {
                throw new IOException(Posix.failure("fallocate(memfd, " + size + ")", err));
            }
            if (Posix.libc().fcntl(fd, F_ADD_SEALS, FIXED_SIZE) != 0) {
                throw new IOException(Posix.failure("fcntl(F_ADD_SEALS)", Posix.errno()));
            }
            return fd;
        } catch (IOException | RuntimeException | Error e) {
            Posix.closeQuietly(fd);
            throw e;
        }
    }

    /**
     * Returns the seals of the file {@code fd} is open on.
     *
     * @param fd a descriptor
     * @return the seal bits, or {@code -1} if the file cannot be sealed (not a memfd)
     */
    public static int seals(int fd) {
        return Posix.libc().fcntl(fd, F_GET_SEALS, 0);
    }
}
