package org.ysuite;

import java.lang.ref.Cleaner;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import jnr.ffi.Pointer;
import org.ysuite.internal.LibC;
import org.ysuite.internal.Posix;

/**
 * 256 signal ids whose wake-up is a file descriptor: the y-suite signaler a native poller
 * ({@code poll(2)}, {@code epoll}, a C or Netty event loop) can wait on together with its sockets.
 *
 * <p>The ids live in an atomic bit set; the descriptor is written only when the owner may be
 * asleep. The owner's drain ({@link #check}) that finds nothing <em>arms</em> the descriptor, the
 * first signal after that writes one byte (one system call), later signals only set bits, and the
 * owner's next drain reads the byte back. A busy owner therefore costs its signallers no system
 * call — the ypipe's passive synchronisation applied to the signaler — and at most one byte is
 * ever unread, so the socket buffer never fills (a write that still met {@code EAGAIN} would find
 * the descriptor readable already, so no wake-up could be lost by it). {@code EINTR} is retried.
 *
 * <h2>The descriptor contract ({@link #fd()})</h2>
 * <ul>
 *   <li>Wait on {@code fd()} only after {@link #check} returned {@code 0}: that call armed it.</li>
 *   <li>From then on it is readable from the first signal until the owner's next {@code check}
 *       or {@code poll}: level-triggered, so {@code poll(2)}, {@code epoll} without
 *       {@code EPOLLET} and repeated waits all see it. A wake-up can be spurious ({@code check}
 *       then returns {@code 0} and re-arms).</li>
 *   <li>After a wake-up call {@code check} (which reads the byte back); never read, write or close
 *       the descriptor yourself.</li>
 * </ul>
 *
 * <h2>The owner's own wait</h2>
 * {@link #poll(java.util.function.IntConsumer)} does not block in {@code poll(2)}: it spins as
 * its {@link WaitPolicy} allows (by default not at all), then parks the thread, and the signaller that finds it parked unparks it instead of
 * writing the descriptor. A Java thread blocked in a native call cannot be interrupted, whereas a
 * parked one can, so {@code poll} ends with {@link InterruptedException} at once; and an unpark is
 * cheaper than write + poll + read. The descriptor is for external pollers.
 *
 * <h2>Kinds</h2>
 * {@link Kind#SOCKETPAIR} (the default, as in the seed): {@code socketpair(AF_UNIX, SOCK_STREAM |
 * SOCK_NONBLOCK | SOCK_CLOEXEC)}, {@code fd()} is one end and the byte is written to the other.
 * {@link Kind#EVENTFD}: one Linux {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}, half the
 * descriptors and a cheaper wake-up.
 *
 * <h2>Threads and closing</h2>
 * Any number of threads may {@link #signal}; one owner thread calls {@code check}/{@code poll}.
 * {@link #close()} may run concurrently with signals: every system call on the descriptors is
 * bracketed by an in-flight counter, {@code close} waits for the calls in flight and only then
 * closes the descriptors, and a later {@code signal} throws {@link IllegalStateException} — so no
 * write can land on a descriptor number the kernel has reused. A signaler that becomes unreachable
 * without {@code close()} has its descriptors closed by a {@link Cleaner} (but do close it: the
 * garbage collector may take a long time).
 *
 * <p>Linux only (jnr-ffi &ge; 2.2.19). On JDK 24+ run with {@code --enable-native-access=ALL-UNNAMED}
 * (or the {@code Enable-Native-Access: ALL-UNNAMED} manifest entry of an executable jar) to avoid
 * the JDK's native-access warning.
 */
public final class YSocketPair extends WakeupSignaler {

    /** The number of signal ids: {@value}. */
    public static final int CAPACITY = 256;

    /** The kind of descriptor that carries the wake-up. */
    public enum Kind {
        /** An {@code AF_UNIX} stream socketpair (two descriptors), as in the seed. */
        SOCKETPAIR,
        /** A Linux {@code eventfd} (one descriptor, cheaper wake-up). */
        EVENTFD
    }

    /** Longest park of the owner waiting for an in-flight wake-up byte ({@link #awaitWakeup}). */
    private static final long IN_FLIGHT_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

    /** Closes the descriptors of a signaler that became unreachable without {@link #close()}. */
    private static final Cleaner CLEANER = Cleaner.create();

    private final Kind kind;
    private final int readFd;
    private final int writeFd;
    private final LibC libc;
    /** Bytes written per wake-up: 1 for the socket, an 8-byte counter increment of 1 for eventfd. */
    private final long wakeLength;
    /** Read-only after construction, so concurrent signallers may share it. */
    private final Pointer wakeBuffer;
    /** Owner only. */
    private final Pointer readBuffer;
    /** Closes the descriptors exactly once: from {@link #close()} or, if forgotten, after GC. */
    private final Cleaner.Cleanable cleanable;

    /**
     * Opens a socketpair signaler whose owner, in {@code poll}, parks at once
     * ({@link WaitPolicy#purePark()}, as every signaler's default: the reader in front of it
     * spins; see {@code docs/design.md}, "Who spins where").
     *
     * @throws UnsupportedOperationException if not on Linux
     * @throws IllegalStateException if the descriptors cannot be created (e.g. {@code EMFILE})
     */
    public YSocketPair() {
        this(Kind.SOCKETPAIR, WaitPolicy.purePark());
    }

    /**
     * Opens a signaler of the given kind whose owner, in {@code poll}, parks at once
     * ({@link WaitPolicy#purePark()}, as every signaler's default).
     *
     * @param kind socketpair or eventfd
     * @throws NullPointerException if {@code kind} is null
     * @throws UnsupportedOperationException if not on Linux
     * @throws IllegalStateException if the descriptors cannot be created
     */
    public YSocketPair(Kind kind) {
        this(kind, WaitPolicy.purePark());
    }

    /**
     * Opens a signaler of the given kind whose owner, in {@code poll}, waits as {@code policy}
     * says: spins, then parks.
     *
     * @param kind socketpair or eventfd
     * @param policy the owner's waiting policy, e.g. {@link WaitPolicy#purePark()}
     * @throws NullPointerException if {@code kind} or {@code policy} is null
     * @throws UnsupportedOperationException if not on Linux
     * @throws IllegalStateException if the descriptors cannot be created
     */
    public YSocketPair(Kind kind, WaitPolicy policy) {
        super(CAPACITY, policy);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.libc = Posix.libc();
        // One native block: [0,8) wake-up value, [8,72) read buffer, [72,80) sv[2].
        Pointer memory = Posix.allocate(80);
        this.wakeBuffer = memory.slice(0, 8);
        this.readBuffer = memory.slice(8, 64);
        if (kind == Kind.SOCKETPAIR) {
            Pointer sv = memory.slice(72, 8);
            int rc = libc.socketpair(Posix.AF_UNIX,
                    Posix.SOCK_STREAM | Posix.SOCK_NONBLOCK | Posix.SOCK_CLOEXEC, 0, sv);
            if (rc != 0) {
                throw new IllegalStateException(Posix.failure("socketpair", Posix.errno()));
            }
            this.readFd = sv.getInt(0);
            this.writeFd = sv.getInt(4);
            this.wakeBuffer.putByte(0, (byte) 1);
            this.wakeLength = 1;
        } else {
            int fd = libc.eventfd(0, Posix.EFD_NONBLOCK | Posix.EFD_CLOEXEC);
            if (fd < 0) {
                throw new IllegalStateException(Posix.failure("eventfd", Posix.errno()));
            }
            this.readFd = fd;
            this.writeFd = fd;
            this.wakeBuffer.putLong(0, 1L); // native byte order, as eventfd expects
            this.wakeLength = 8;
        }
        this.cleanable = CLEANER.register(this, new CloseDescriptors(readFd, writeFd));
    }

    /** The cleaning action: holds the numbers only, never the signaler. */
    private static final class CloseDescriptors implements Runnable {
        private final int readFd;
        private final int writeFd;

        CloseDescriptors(int readFd, int writeFd) {
            this.readFd = readFd;
            this.writeFd = writeFd;
        }

        @Override
        public void run() {
            Posix.closeQuietly(readFd);
            if (writeFd != readFd) {
                Posix.closeQuietly(writeFd);
            }
        }
    }

    /**
     * Returns the kind of descriptor chosen at construction.
     *
     * @return socketpair or eventfd
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Returns the pollable descriptor: wait for it to be readable ({@code POLLIN} / {@code EPOLLIN})
     * after a {@link #check} that returned {@code 0}, then call {@code check}. Never read, write or
     * close it yourself; it is valid until {@link #close()}.
     *
     * <p><b>Virtual threads:</b> a virtual thread that blocks in {@code poll(2)},
     * {@code epoll_wait(2)} or {@code select(2)} on this descriptor (through jnr-ffi, JNI or the
     * foreign-function API) is inside a native frame: it cannot unmount, so it holds its carrier
     * for the whole wait (and JFR records no {@code jdk.VirtualThreadPinned} event for it). From a
     * virtual thread wait with the owner's own {@link #poll(java.util.function.IntConsumer)},
     * which parks and unmounts; or, to wait together with sockets, use a {@link NioSignaler}
     * registered with a {@link java.nio.channels.Selector}, whose {@code select()} releases the
     * carrier on JDK 21+ (see {@code docs/virtual-threads.md}).
     *
     * @return the read end of the socketpair, or the eventfd
     * @throws IllegalStateException if this signaler is closed
     */
    public int fd() {
        ensureOpen();
        return readFd;
    }

    @Override
    void writeWakeup() {
        for (;;) {
            long n = libc.write(writeFd, wakeBuffer, wakeLength);
            if (n > 0) {
                return;
            }
            int err = Posix.errno();
            if (err == Posix.EINTR) {
                continue;
            }
            if (err == Posix.EAGAIN) {
                // The buffer (socket) or counter (eventfd) is full of unread wake-ups, so the
                // descriptor is readable already: the owner will wake and drain; nothing is lost.
                return;
            }
            throw new IllegalStateException(Posix.failure("write(" + writeFd + ")", err));
        }
    }

    @Override
    boolean readWakeup() {
        long length = kind == Kind.EVENTFD ? 8 : 64;
        for (;;) {
            long n = libc.read(readFd, readBuffer, length);
            if (n > 0) {
                return true;
            }
            if (n == 0) {
                throw new IllegalStateException("read(" + readFd + "): end of stream");
            }
            int err = Posix.errno();
            if (err == Posix.EINTR) {
                continue;
            }
            if (err == Posix.EAGAIN) {
                return false;
            }
            throw new IllegalStateException(Posix.failure("read(" + readFd + ")", err));
        }
    }

    /**
     * The owner found the state WOKEN but no byte to read: a signaller won ARMED&rarr;WOKEN and
     * its {@code write} has not landed yet (a few microseconds, unless it was descheduled). This
     * used to wait for the byte in {@code poll(2)} for up to 1 ms: a native call, which blocks a
     * virtual thread's carrier (without a JFR pinning event) and cannot be interrupted. It now
     * parks for a short slice, as {@link NioSignaler} does, and the caller looks again.
     *
     * <p>Nothing can be missed by parking instead of polling, and no ordering is needed here: the
     * byte is observed only through the owner's next non-blocking {@code read(2)} (the kernel
     * orders the write before that read), only the owner leaves WOKEN, and while the state is
     * WOKEN signallers only set bits, which the caller takes before it parks again. No one
     * unparks this wait on a successful write, so it is a timed park: the slice bounds the delay
     * after the byte lands. A signaller whose write fails puts ARMED back; the owner sees it
     * after the slice and parks untimed in PARKED. {@link #close()} and an interrupt unpark it at
     * once, and the caller checks both.
     */
    @Override
    void awaitWakeup(long nanos) {
        LockSupport.parkNanos(this, Math.min(nanos, IN_FLIGHT_PARK_NANOS));
    }

    @Override
    void closeResources() {
        cleanable.clean(); // runs CloseDescriptors at most once, whoever asks first
    }

    @Override
    String typeName() {
        return "YSocketPair";
    }

    /**
     * Describes this signaler.
     *
     * @return kind and descriptor
     */
    @Override
    public String toString() {
        return "YSocketPair[" + kind + ", fd=" + readFd + (isClosed() ? ", closed]" : "]");
    }

    /**
     * Names this signaler: the name appears in its Flight Recorder events (see
     * docs/observability.md), so that a recording tells them apart. Name it before handing it
     * to other threads, or their events may still carry the old name for a while.
     *
     * @param name the name
     * @return this signaler
     * @throws NullPointerException if {@code name} is null
     */
    public YSocketPair named(String name) {
        this.name = java.util.Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * Returns the name given by {@link #named(String)}.
     *
     * @return the name, or {@code null} if it has none
     */
    public String name() {
        return name;
    }
}
