package org.ysuite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * 256 signal ids whose wake-up is a channel a JDK {@link Selector} accepts: the bridge that lets a
 * java.nio server loop wait for its sockets and for ysuite pipes in one {@code select()}.
 *
 * <p>A JDK selector rejects foreign descriptors (a jnr channel over {@link YSocketPair#fd()}
 * registered with it throws {@link java.nio.channels.IllegalSelectorException}), so this signaler
 * wakes through the JDK's own {@link Pipe}: {@link #channel()} is the pipe's non-blocking source
 * end, to be registered for {@link SelectionKey#OP_READ}. The passive scheme is the same as
 * {@link YSocketPair}'s: a {@link #check} that finds nothing arms the channel, the first signal
 * after that writes one byte into the pipe, later signals only set bits, and the next
 * {@code check} reads the byte back. A busy loop costs its signallers no system call.
 *
 * <h2>Selector loop</h2>
 * <pre>{@code
 * NioSignaler signals = new NioSignaler();
 * signals.channel().register(selector, SelectionKey.OP_READ);
 * for (;;) {
 *     int fired = signals.check(onSignal);      // drain; 0 = channel armed
 *     if (fired > 0) selector.selectNow(); else selector.select();
 *     // ... handle the selected socket keys; ignore (just clear) the signaler's key:
 *     // the check at the top of the loop reads its byte back
 * }
 * }</pre>
 * Never read from or close the channel yourself, and never cancel its key while using it.
 *
 * <p>Both pipe ends are non-blocking. Since JDK 11 a non-blocking channel operation is not
 * closed by an interrupt of the calling thread, so a signaller with its interrupt status set does
 * not break the pipe (and its interrupt status is left as it was).
 *
 * <p>{@link #poll} parks the owner (as {@link YSocketPair} does) and does not use the channel.
 */
public final class NioSignaler extends WakeupSignaler {

    /** The number of signal ids: {@value}. */
    public static final int CAPACITY = 256;

    private final Pipe pipe;
    /** Owner only. */
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(64);

    /**
     * Opens a signaler whose owner, in {@code poll}, parks at once ({@link WaitPolicy#purePark()},
     * as every signaler's default: the reader in front of it spins; see {@code docs/design.md},
     * "Who spins where").
     *
     * @throws UncheckedIOException if the pipe cannot be opened
     */
    public NioSignaler() {
        this(WaitPolicy.purePark());
    }

    /**
     * Opens a signaler whose owner, in {@code poll}, waits as {@code policy} says: spins, then
     * parks.
     *
     * @param policy the owner's waiting policy, e.g. {@link WaitPolicy#purePark()}
     * @throws NullPointerException if {@code policy} is null
     * @throws UncheckedIOException if the pipe cannot be opened
     */
    public NioSignaler(WaitPolicy policy) {
        super(CAPACITY, policy);
        Pipe p = null;
        try {
            p = Pipe.open();
            p.source().configureBlocking(false);
            p.sink().configureBlocking(false);
        } catch (IOException e) {
            if (p != null) {
                closeQuietly(p);
            }
            throw new UncheckedIOException("cannot open the NioSignaler's pipe", e);
        }
        this.pipe = p;
    }

    /**
     * Returns the channel to register with a {@link Selector} for {@link SelectionKey#OP_READ}:
     * it becomes readable at the first signal after a {@link #check} that returned {@code 0} and
     * stays readable until the next {@code check}. It is already non-blocking.
     *
     * @return the source end of the wake-up pipe
     * @throws IllegalStateException if this signaler is closed
     */
    public SelectableChannel channel() {
        ensureOpen();
        return pipe.source();
    }

    @Override
    void writeWakeup() {
        ByteBuffer one = ByteBuffer.allocate(1); // per wake: signallers never share a buffer
        one.put(0, (byte) 1);
        try {
            // 0 means the pipe is full of unread bytes, i.e. readable already: nothing is lost.
            pipe.sink().write(one);
        } catch (IOException e) {
            throw new UncheckedIOException("NioSignaler: write to the wake-up pipe failed", e);
        }
    }

    @Override
    boolean readWakeup() {
        readBuffer.clear();
        try {
            int n = pipe.source().read(readBuffer);
            if (n < 0) {
                throw new IllegalStateException("NioSignaler: wake-up pipe at end of stream");
            }
            return n > 0;
        } catch (IOException e) {
            throw new UncheckedIOException("NioSignaler: read from the wake-up pipe failed", e);
        }
    }

    @Override
    void awaitWakeup(long nanos) {
        // The signaller that won the wake-up is between its state change and its one write:
        // back off briefly and let the caller look again.
        LockSupport.parkNanos(this, Math.min(nanos, TimeUnit.MICROSECONDS.toNanos(20)));
    }

    @Override
    void closeResources() {
        closeQuietly(pipe);
    }

    private static void closeQuietly(Pipe p) {
        try {
            p.source().close();
        } catch (IOException ignored) {
            // closing is best effort; the descriptor is released by the JDK either way
        }
        try {
            p.sink().close();
        } catch (IOException ignored) {
            // as above
        }
    }

    @Override
    String typeName() {
        return "NioSignaler";
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
    public NioSignaler named(String name) {
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
