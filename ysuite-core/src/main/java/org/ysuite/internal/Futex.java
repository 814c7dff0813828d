package org.ysuite.internal;

import java.nio.ByteBuffer;
import jnr.ffi.Platform;
import jnr.ffi.Pointer;

/**
 * Linux {@code futex(2)} on a 32-bit word of memory shared between processes, through
 * {@link LibC#syscall}: the shared (not {@code _PRIVATE}) {@code FUTEX_WAIT} and
 * {@code FUTEX_WAKE}, which key a waiter by the memory's file and offset, so a waker in another
 * process that maps the same file finds it.
 *
 * <p>{@code FUTEX_WAIT} compares the word with the expected value and queues the caller in one
 * step under the kernel's lock of the word's wait queue: a store to the word followed by a
 * {@code FUTEX_WAKE} can never fall between the caller's check and its sleep (no lost wake-up),
 * the caller either sees the new value ({@code EAGAIN}) or is queued before the wake looks.
 *
 * <p>An instance holds the {@code struct timespec} of the timed wait (direct memory, allocated
 * once): use it from one thread at a time.
 */
public final class Futex {

    /** {@code SYS_futex}: 202 on x86-64, 98 on AArch64 (the generic table). */
    static final long SYS_FUTEX =
            Platform.getNativePlatform().getCPU() == Platform.CPU.X86_64 ? 202 : 98;
    /** {@code FUTEX_WAIT} (shared). */
    static final int FUTEX_WAIT = 0;
    /** {@code FUTEX_WAKE} (shared). */
    static final int FUTEX_WAKE = 1;
    /** {@code ETIMEDOUT}. */
    static final int ETIMEDOUT = 110;
    /** {@code EFAULT}: the word's page is not there (e.g. its file was truncated under the mapping). */
    static final int EFAULT = 14;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Pointer timespec = Posix.allocate(16);
    private final long timespecAddress = timespec.address();

    /** Creates a waiter with its own timeout block. */
    public Futex() {
    }

    /**
     * Returns the native address of a direct buffer's first byte (through jffi, no
     * {@code --add-opens}).
     *
     * @param direct a direct buffer
     * @return its address
     * @throws IllegalArgumentException if the buffer is not direct
     */
    public static long address(ByteBuffer direct) {
        if (!direct.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer: " + direct);
        }
        return Pointer.wrap(Posix.runtime(), direct).address();
    }

    /**
     * Sleeps while the 32-bit word at {@code address} holds {@code expected}, at most
     * {@code nanos}.
     *
     * @param address the word's address (4-byte aligned, in shared memory)
     * @param expected the value that means "keep sleeping"
     * @param nanos the longest sleep, {@code > 0}
     * @return {@code false} if the time ran out; {@code true} if woken, if the word did not hold
     *     {@code expected}, or on a signal ({@code EINTR}): the caller looks at the word again
     * @throws FaultException if the word's page is gone ({@code EFAULT}: its file was truncated)
     * @throws IllegalStateException if the kernel refuses the call otherwise
     */
    public boolean await(long address, int expected, long nanos) {
        long ns = Math.max(1L, nanos);
        timespec.putLong(0, ns / NANOS_PER_SECOND);
        timespec.putLong(8, ns % NANOS_PER_SECOND);
        long rc = Posix.libc().syscall(SYS_FUTEX, address, FUTEX_WAIT, expected, timespecAddress);
        if (rc == 0) {
            return true;
        }
        int err = Posix.errno();
        if (err == ETIMEDOUT) {
            return false;
        }
        if (err == Posix.EAGAIN || err == Posix.EINTR) {
            return true;
        }
        throw failure("futex(FUTEX_WAIT)", err);
    }

    /**
     * Wakes up to {@code count} processes or threads sleeping on the word at {@code address}.
     *
     * @param address the word's address
     * @param count how many sleepers to wake at most
     * @return how many were woken
     * @throws FaultException if the word's page is gone ({@code EFAULT}: its file was truncated)
     * @throws IllegalStateException if the kernel refuses the call otherwise
     */
    public static int wake(long address, int count) {
        long rc = Posix.libc().syscall(SYS_FUTEX, address, FUTEX_WAKE, count, 0);
        if (rc < 0) {
            throw failure("futex(FUTEX_WAKE)", Posix.errno());
        }
        return (int) rc;
    }

    private static IllegalStateException failure(String call, int err) {
        String message = Posix.failure(call, err);
        return err == EFAULT ? new FaultException(message) : new IllegalStateException(message);
    }

    /**
     * The kernel could not reach the futex word ({@code EFAULT}): its page is not mapped, or
     * belongs to a file that was truncated under the mapping.
     */
    public static final class FaultException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        /**
         * Creates the exception.
         *
         * @param message the call and the error
         */
        public FaultException(String message) {
            super(message);
        }
    }
}
