package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/** Endpoints per transport and bounded waits for the socket tests. */
final class ZmqTestSupport {

    /** The failure bound of every wait: generous, for a loaded 2-core machine. */
    static final long BOUND_MILLIS = 30_000;

    private ZmqTestSupport() {
    }

    /** An endpoint to bind for {@code transport}: a fresh inproc name, tcp port 0, a fresh ipc path. */
    static String bindable(String transport) {
        switch (transport) {
            case "inproc": return "inproc://t-" + UUID.randomUUID();
            case "tcp": return "tcp://127.0.0.1:0";
            case "ipc": return "ipc:///tmp/ysuite-zmq-" + UUID.randomUUID() + ".sock";
            default: throw new IllegalArgumentException(transport);
        }
    }

    /** Binds {@code s} and returns the endpoint peers connect to. */
    static String bind(ZmqSocket s, String transport) {
        s.bind(bindable(transport));
        return s.lastEndpoint();
    }

    /** Waits until {@code condition} holds; fails after {@link #BOUND_MILLIS}. */
    static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + BOUND_MILLIS + " ms: " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * An endpoint of {@code transport} that nobody serves: bound by a probe socket that is closed again
     * (for tcp a port just freed, for ipc a path just unlinked).
     */
    static String unservedEndpoint(ZmqContext ctx, String transport) {
        ZmqSocket probe = ctx.socket(SocketType.PULL);
        probe.setLinger(0);
        String ep = bind(probe, transport);
        probe.close();
        return ep;
    }

    /** The next event a listener queued; fails if none comes within {@link #BOUND_MILLIS}. */
    static ZmqEvent nextEvent(BlockingQueue<ZmqEvent> events, String what) {
        try {
            ZmqEvent e = events.poll(BOUND_MILLIS, TimeUnit.MILLISECONDS);
            if (e == null) {
                fail("no event within " + BOUND_MILLIS + " ms: " + what);
            }
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for " + what, e);
        }
    }

    /** Counts a socket's CONNECTED events. */
    static AtomicInteger connectedCounter(ZmqSocket s) {
        AtomicInteger n = new AtomicInteger();
        s.setEventListener(e -> {
            if (e.kind() == ZmqEvent.Kind.CONNECTED) {
                n.incrementAndGet();
            }
        });
        return n;
    }

    /** Receives one frame with the failure bound as the timeout; fails if none comes. */
    static byte[] recv(ZmqSocket s) {
        s.setReceiveTimeout((int) BOUND_MILLIS);
        byte[] b = s.receive(0);
        if (b == null) {
            fail("no message within " + BOUND_MILLIS + " ms on " + s);
        }
        return b;
    }

    /** {@link #recv} as UTF-8. */
    static String recvStr(ZmqSocket s) {
        return new String(recv(s), StandardCharsets.UTF_8);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
