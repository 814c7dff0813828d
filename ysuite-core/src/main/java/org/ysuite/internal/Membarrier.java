package org.ysuite.internal;

import jnr.ffi.Platform;

/**
 * Linux {@code membarrier(2)}, the process-shared ("global expedited") kind, through
 * {@link LibC#syscall}: an <em>asymmetric</em> fence. A process that calls {@link #register()}
 * may leave out the full fence of its frequent side of a Dekker pattern (a store, then a load of
 * the other side's flag); the rare side calls {@link #fenceRegistered()} between its own store and
 * load, which makes every running thread of every registered process execute a full memory
 * barrier before the call returns (an IPI to their CPUs), while a thread that is not running has
 * passed one when it was switched out. So either a registered thread's load comes after that
 * barrier (and sees the rare side's store), or its store came before it (and the rare side's load
 * after the call sees it): the pattern of the {@code membarrier(2)} manual page.
 *
 * <p>The frequent side's compiler must keep its store before its load too. Java has no
 * compiler-only fence; HotSpot's compilers do not move a memory access across a non-plain
 * ({@code VarHandle} acquire, release or volatile) access, so a store through any of those
 * followed by a {@code getVolatile} stays in program order in the instructions (and the
 * interpreter runs them in order).
 */
public final class Membarrier {

    /** {@code SYS_membarrier}: 324 on x86-64, 283 on AArch64 (the generic table). */
    static final long SYS_MEMBARRIER =
            Platform.getNativePlatform().getCPU() == Platform.CPU.X86_64 ? 324 : 283;
    /** {@code MEMBARRIER_CMD_QUERY}: the supported commands' bits. */
    static final int CMD_QUERY = 0;
    /** {@code MEMBARRIER_CMD_GLOBAL_EXPEDITED}. */
    static final int CMD_GLOBAL_EXPEDITED = 1 << 1;
    /** {@code MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED}. */
    static final int CMD_REGISTER_GLOBAL_EXPEDITED = 1 << 2;

    private static final boolean SUPPORTED = query();

    private Membarrier() {
    }

    private static boolean query() {
        if (!Platform.getNativePlatform().getOS().equals(Platform.OS.LINUX)) {
            return false;
        }
        int both = CMD_GLOBAL_EXPEDITED | CMD_REGISTER_GLOBAL_EXPEDITED;
        long supported = Posix.libc().syscall(SYS_MEMBARRIER, CMD_QUERY, 0, 0, 0);
        return supported >= 0 && (supported & both) == both;
    }

    /**
     * Tells whether the kernel offers the global expedited commands (Linux 4.16+, and not refused
     * by a seccomp filter).
     *
     * @return {@code true} if {@link #register()} and {@link #fenceRegistered()} can work
     */
    public static boolean supported() {
        return SUPPORTED;
    }

    /**
     * Registers the calling process for the global expedited barrier (idempotent; it stays
     * registered until it exits).
     *
     * @return {@code true} if registered; {@code false} if the kernel refused or lacks the command
     */
    public static boolean register() {
        return SUPPORTED
                && Posix.libc().syscall(SYS_MEMBARRIER, CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0, 0) == 0;
    }

    /**
     * A full memory barrier on every running thread of every registered process (and this one's
     * own: the system call's entry and exit are full barriers), before this returns. About
     * 0.5 us on a 2-vCPU machine.
     *
     * @throws IllegalStateException if the kernel refuses the call
     */
    public static void fenceRegistered() {
        if (Posix.libc().syscall(SYS_MEMBARRIER, CMD_GLOBAL_EXPEDITED, 0, 0, 0) != 0) {
            throw new IllegalStateException(
                    Posix.failure("membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)", Posix.errno()));
        }
    }
}
