package org.ysuite.zmq;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.ysuite.Signaler;
import org.ysuite.YSemaphore;
import org.ysuite.YSocketPair;

/**
 * How a {@link ZmqSocket}'s thread waits and is woken: a semaphore its blocking calls wait on, the
 * signalers of the pollers that watch it, and the descriptor of {@link ZmqSocket#fd()}. {@link #wake()} and
 * {@link #terminate()} may be called from any thread; the rest from the socket's thread.
 */
final class SocketSignals {

    private final YSemaphore signal = new YSemaphore();
    private final List<Signaler> extraSignals = new CopyOnWriteArrayList<>();
    private volatile YSocketPair fdSignal;
    private volatile boolean terminated;

    /** Wakes the socket's thread and its pollers (any thread). */
    void wake() {
        signal.signal(0);
        for (Signaler s : extraSignals) {
            s.signal(0);
        }
    }

    /** Marks the socket terminated by its context and wakes it: a blocked call throws ETERM (any thread). */
    void terminate() {
        terminated = true;
        wake();
    }

    /** Adds a signaler fired on each {@link #wake()} (a poller's). */
    void add(Signaler s) {
        extraSignals.add(s);
    }

    /** Removes a signaler added by {@link #add}. */
    void remove(Signaler s) {
        extraSignals.remove(s);
    }

    /** The descriptor of {@link ZmqSocket#fd()}, its socket pair named {@code name} and made on first use. */
    int fd(String name) {
        YSocketPair p = fdSignal;
        if (p == null) {
            p = new YSocketPair().named(name);
            fdSignal = p;
            extraSignals.add(p);
        }
        return p.fd();
    }

    /** Consumes the descriptor's pending wake-ups before the socket looks for input, if it has one. */
    void clearFd() {
        YSocketPair fdp = fdSignal;
        if (fdp != null) {
            fdp.check(id -> { });
        }
    }

    /** Closes the descriptor, if made. */
    void close() {
        YSocketPair f = fdSignal;
        if (f != null) {
            f.close();
        }
    }

    /** The {@link System#nanoTime()} deadline of a wait of {@code timeoutMillis}; -1: never. */
    static long deadline(int timeoutMillis) {
        if (timeoutMillis < 0) {
            return Long.MAX_VALUE;
        }
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /**
     * Waits for a wake-up until {@code deadline}; false once it has passed.
     *
     * @throws ZmqException ETERM once the context closed the socket, EINTR if the thread is interrupted
     */
    boolean await(long deadline) {
        if (terminated) {
            throw new ZmqException(ZmqError.ETERM, "the socket's context was closed");
        }
        try {
            if (deadline == Long.MAX_VALUE) {
                signal.await();
            } else {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                signal.await(left, TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZmqException(ZmqError.EINTR, "interrupted while waiting", e);
        }
        if (terminated) {
            throw new ZmqException(ZmqError.ETERM, "the socket's context was closed");
        }
        return true;
    }
}
