package org.ysuite.examples;

import java.io.PrintStream;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import org.ysuite.YSocketPair;

/**
 * The {@link PollLoop} over {@code epoll} (level-triggered, no {@code EPOLLET}): the listening
 * socket, the connection and a {@link YSocketPair}'s descriptor in one epoll set.
 *
 * <pre>
 * java -jar ysuite-examples/target/ysuite-examples.jar epoll [socketMessages [pipeMessagesPerWriter [socketpair|eventfd]]]
 * </pre>
 */
public final class EpollLoop {

    private static final int TAG_LISTEN = 0;
    private static final int TAG_CONN = 1;
    private static final int TAG_SIGNALS = 2;
    private static final int MAX_EVENTS = 8;

    private EpollLoop() {
    }

    /**
     * Runs the example.
     *
     * @param args optional: socket messages, pipe messages per writer, {@code socketpair} or {@code eventfd}
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        run(System.out, args);
    }

    /**
     * Runs the example, printing to {@code out}.
     *
     * @param out where the summary goes
     * @param args as for {@link #main}
     * @throws Exception if the example fails or exceeds its time limit
     */
    public static void run(PrintStream out, String[] args) throws Exception {
        YSocketPair.Kind kind = args.length > 2 ? YSocketPair.Kind.valueOf(args[2].toUpperCase()) : YSocketPair.Kind.SOCKETPAIR;
        NativeNet c = NativeNet.Lib.C;
        int size = NativeNet.Lib.EPOLL_EVENT_SIZE;
        int dataOffset = NativeNet.Lib.EPOLL_DATA_OFFSET;
        LoopbackTraffic traffic = new LoopbackTraffic(args);
        int[] listener = NativeNet.Lib.listenLoopback();
        int listenFd = listener[0];
        int connFd = -1;
        int epfd = NativeNet.Lib.check(c.epoll_create1(NativeNet.EPOLL_CLOEXEC), "epoll_create1");
        int waits = 0;
        int wakeups = 0;
        Pointer event = Memory.allocateDirect(NativeNet.Lib.RUNTIME, size, true);
        Pointer events = Memory.allocateDirect(NativeNet.Lib.RUNTIME, size * MAX_EVENTS, true);
        Pointer buf = Memory.allocateDirect(NativeNet.Lib.RUNTIME, 4096, true);
        byte[] bytes = new byte[4096];
        try (YSocketPair signals = new YSocketPair(kind)) {
            add(c, epfd, event, dataOffset, listenFd, TAG_LISTEN);
            add(c, epfd, event, dataOffset, signals.fd(), TAG_SIGNALS);
            traffic.startWriters(signals);
            traffic.startClient(listener[1]);
            for (;;) {
                traffic.drainSignalledPipes();
                if (traffic.done()) {
                    break;
                }
                traffic.checkHealth();
                int fired = signals.check(traffic.fired); // 0: none, and the descriptor is armed
                int n = c.epoll_wait(epfd, events, MAX_EVENTS, fired > 0 ? 0 : traffic.waitMillis());
                waits++;
                if (n < 0) {
                    if (NativeNet.Lib.errno() == NativeNet.EINTR) {
                        continue;
                    }
                    NativeNet.Lib.check(n, "epoll_wait");
                }
                for (int i = 0; i < n; i++) {
                    int tag = events.getInt((long) i * size + dataOffset);
                    if (tag == TAG_SIGNALS) {
                        wakeups++; // check() at the top of the loop reads the wake-up back
                    } else if (tag == TAG_LISTEN) {
                        int fd = c.accept4(listenFd, null, null, NativeNet.SOCK_NONBLOCK | NativeNet.SOCK_CLOEXEC);
                        if (fd >= 0 && connFd < 0) {
                            connFd = fd;
                            add(c, epfd, event, dataOffset, connFd, TAG_CONN);
                        } else if (fd >= 0) {
                            c.close(fd);
                        }
                    } else if (tag == TAG_CONN && connFd >= 0) {
                        if (PollLoop.readSocket(c, connFd, buf, bytes, traffic)) {
                            c.epoll_ctl(epfd, NativeNet.EPOLL_CTL_DEL, connFd, event);
                            c.close(connFd);
                            connFd = -1;
                            traffic.onSocketEnd();
                        }
                    }
                }
            }
            traffic.join();
        } finally {
            if (connFd >= 0) {
                c.close(connFd);
            }
            c.close(listenFd);
            c.close(epfd);
        }
        out.println(traffic.summary("EpollLoop", "epoll"));
        out.println("EpollLoop: " + waits + " epoll_wait calls, " + wakeups + " signaler wake-ups, kind " + kind);
    }

    private static void add(NativeNet c, int epfd, Pointer event, int dataOffset, int fd, int tag) {
        event.putInt(0, NativeNet.EPOLLIN); // level-triggered: no EPOLLET
        event.putLong(dataOffset, tag);
        NativeNet.Lib.check(c.epoll_ctl(epfd, NativeNet.EPOLL_CTL_ADD, fd, event), "epoll_ctl");
    }
}
