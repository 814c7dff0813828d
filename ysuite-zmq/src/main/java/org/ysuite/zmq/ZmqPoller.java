package org.ysuite.zmq;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.ysuite.YSemaphore;

/**
 * Waits for any of several sockets to become readable or writable (libzmq's {@code zmq_poll}, JeroMQ's
 * {@code ZMQ.Poller}). Used by one thread, the thread that uses the registered sockets.
 *
 * <p>Each registered socket fires this poller's own ysuite semaphore when a peer delivers a message into an
 * empty queue, takes one from a full one, connects or leaves; {@link #poll} checks the sockets and parks on
 * the semaphore until one fires, so an idle poll costs no CPU.
 */
public final class ZmqPoller implements AutoCloseable {

    /** Readable: a receive would not block (libzmq ZMQ_POLLIN). */
    public static final int POLLIN = 1;
    /** Writable: a send would not block (libzmq ZMQ_POLLOUT). */
    public static final int POLLOUT = 2;

    private final YSemaphore signal = new YSemaphore();
    private final List<ZmqSocket> sockets = new ArrayList<>();
    private final List<Integer> interests = new ArrayList<>();
    private int[] ready = new int[0];
    private boolean closed;

    /** A poller with no socket. */
    public ZmqPoller() {
    }

    /**
     * Adds a socket.
     *
     * @param events {@link #POLLIN} and/or {@link #POLLOUT}
     * @return the socket's index for {@link #isReadable}/{@link #isWritable}
     * @throws ZmqException EINVAL if {@code events} has other bits, ETERM if the poller is closed
     */
    public int register(ZmqSocket socket, int events) {
        if (closed) {
            throw new ZmqException(ZmqError.ETERM, "register: the poller is closed");
        }
        if ((events & ~(POLLIN | POLLOUT)) != 0 || events == 0) {
            throw new ZmqException(ZmqError.EINVAL, "events: " + events + ", POLLIN (1) and/or POLLOUT (2)");
        }
        sockets.add(socket);
        interests.add(events);
        socket.addSignal(signal);
        ready = new int[sockets.size()];
        return sockets.size() - 1;
    }

    /**
     * Waits until at least one socket is ready for what it was registered for.
     *
     * @param timeoutMillis the longest wait; 0 checks once; -1 waits forever
     * @return how many sockets are ready (0 on timeout)
     * @throws ZmqException EINTR if interrupted (interrupt status set), ETERM if a socket is closed
     */
    public int poll(long timeoutMillis) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (;;) {
            int n = 0;
            for (int i = 0; i < sockets.size(); i++) {
                ZmqSocket s = sockets.get(i);
                int want = interests.get(i);
                int r = 0;
                if ((want & POLLIN) != 0 && s.canReceive()) {
                    r |= POLLIN;
                }
                if ((want & POLLOUT) != 0 && s.canSend()) {
                    r |= POLLOUT;
                }
                ready[i] = r;
                if (r != 0) {
                    n++;
                }
            }
            if (n > 0) {
                return n;
            }
            try {
                if (deadline == Long.MAX_VALUE) {
                    signal.await();
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return 0;
                    }
                    signal.await(left, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ZmqException(ZmqError.EINTR, "poll: interrupted", e);
            }
        }
    }

    /** Whether the socket at {@code index} was readable at the last {@link #poll}. */
    public boolean isReadable(int index) {
        return (ready[index] & POLLIN) != 0;
    }

    /** Whether the socket at {@code index} was writable at the last {@link #poll}. */
    public boolean isWritable(int index) {
        return (ready[index] & POLLOUT) != 0;
    }

    /** The number of registered sockets. */
    public int size() {
        return sockets.size();
    }

    /** Unregisters every socket. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ZmqSocket s : sockets) {
            s.removeSignal(signal);
        }
        sockets.clear();
        interests.clear();
    }
}
