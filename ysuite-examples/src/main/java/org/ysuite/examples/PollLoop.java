package org.ysuite.examples;

import java.io.PrintStream;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import org.ysuite.YSocketPair;

/**
 * One thread waits in {@code poll(2)} (through jnr-ffi) on a TCP socket and on a
 * {@link YSocketPair}'s descriptor at once, serving a loopback client and two {@link org.ysuite.YPipe}
 * writers; ends after a bounded number of messages and prints a summary.
 *
 * <pre>
 * java -jar ysuite-examples/target/ysuite-examples.jar poll [socketMessages [pipeMessagesPerWriter [socketpair|eventfd]]]
 * java --enable-native-access=ALL-UNNAMED -cp ysuite-examples/target/ysuite-examples.jar org.ysuite.examples.PollLoop
 * </pre>
 */
public final class PollLoop {

    private PollLoop() {
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
        LoopbackTraffic traffic = new LoopbackTraffic(args);
        int[] listener = NativeNet.Lib.listenLoopback();
        int listenFd = listener[0];
        int connFd = -1;
        int polls = 0;
        int wakeups = 0;
        Pointer fds = Memory.allocateDirect(NativeNet.Lib.RUNTIME, 3 * 8, true);
        Pointer buf = Memory.allocateDirect(NativeNet.Lib.RUNTIME, 4096, true);
        byte[] bytes = new byte[4096];
        try (YSocketPair signals = new YSocketPair(kind)) {
            traffic.startWriters(signals);
            traffic.startClient(listener[1]);
            for (;;) {
                traffic.drainSignalledPipes();
                if (traffic.done()) {
                    break;
                }
                traffic.checkHealth();
                // Take the fired ids; 0 means none, and then the descriptor is armed.
                int fired = signals.check(traffic.fired);
                setPollFd(fds, 0, connFd < 0 ? listenFd : -1); // negative fds are ignored by poll(2)
                setPollFd(fds, 1, connFd);
                setPollFd(fds, 2, signals.fd());
                // Never sleep with signals in hand: their pipes are drained at the top of the loop.
                int n = c.poll(fds, 3, fired > 0 ? 0 : traffic.waitMillis());
                polls++;
                if (n < 0) {
                    if (NativeNet.Lib.errno() == NativeNet.EINTR) {
                        continue;
                    }
                    NativeNet.Lib.check(n, "poll");
                }
                if (revents(fds, 2) != 0) {
                    wakeups++; // check() at the top of the loop reads the wake-up back
                }
                if (revents(fds, 0) != 0) {
                    int fd = c.accept4(listenFd, null, null, NativeNet.SOCK_NONBLOCK | NativeNet.SOCK_CLOEXEC);
                    if (fd >= 0) {
                        connFd = fd;
                    }
                }
                if (connFd >= 0 && revents(fds, 1) != 0) {
                    if (readSocket(c, connFd, buf, bytes, traffic)) {
                        c.close(connFd);
                        connFd = -1;
                        traffic.onSocketEnd();
                    }
                }
            }
            traffic.join();
        } finally {
            if (connFd >= 0) {
                c.close(connFd);
            }
            c.close(listenFd);
        }
        out.println(traffic.summary("PollLoop", "poll(2)"));
        out.println("PollLoop: " + polls + " poll(2) calls, " + wakeups + " signaler wake-ups, kind " + kind);
    }

    /**
     * Reads what is there from a non-blocking socket.
     *
     * @return {@code true} at end of stream
     */
    static boolean readSocket(NativeNet c, int fd, Pointer buf, byte[] bytes, LoopbackTraffic traffic) {
        for (;;) {
            long r = c.read(fd, buf, bytes.length);
            if (r > 0) {
                buf.get(0, bytes, 0, (int) r);
                traffic.onSocketBytes(bytes, (int) r);
                continue;
            }
            if (r == 0) {
                return true;
            }
            int err = NativeNet.Lib.errno();
            if (err == NativeNet.EINTR) {
                continue;
            }
            if (err == NativeNet.EAGAIN) {
                return false;
            }
            throw new IllegalStateException("read failed: errno " + err);
        }
    }

    private static void setPollFd(Pointer fds, int i, int fd) {
        fds.putInt(i * 8L, fd);
        fds.putShort(i * 8L + 4, NativeNet.POLLIN);
        fds.putShort(i * 8L + 6, (short) 0);
    }

    private static int revents(Pointer fds, int i) {
        return fds.getShort(i * 8L + 6) & 0xffff;
    }
}
