package org.ysuite.examples;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqEvent;
import org.ysuite.zmq.ZmqSocket;

/**
 * What idle connections cost: one ROUTER and {@code connections} DEALERs in this JVM, connected over
 * loopback tcp with ZMTP heartbeats every {@code heartbeat-ms} on both ends (0: none), then left idle.
 * <pre>
 * java -jar ysuite-examples.jar idle_cpu &lt;seconds&gt; &lt;heartbeat-ms&gt; [connections [settle-seconds]]
 * </pre>
 * After each DEALER's first message has reached the ROUTER and {@code settle-seconds} (default 2) have
 * passed (the heartbeat path runs interpreted, then compiled, for its first tens of seconds), it
 * measures this process's CPU time (every thread: I/O, timers, GC, compiler) over {@code seconds} of
 * silence and prints {@code idle CPU: N.NNN % of a core}, then the disconnections seen meanwhile
 * ({@code disconnections: 0} when the heartbeats kept every connection up). Run it with
 * {@code heartbeat-ms} 0 beside it to see the JVM's own idle cost.
 */
public final class ZmqIdle {

    private ZmqIdle() {
    }

    /**
     * Runs the measurement.
     *
     * @param args {@code seconds}, {@code heartbeat-ms}, and optionally {@code connections} (default 1) and
     *     {@code settle-seconds} (default 2)
     * @throws InterruptedException if interrupted while idle
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2 || args.length > 4) {
            System.err.println("usage: idle_cpu <seconds> <heartbeat-ms> [connections [settle-seconds]]");
            System.exit(2);
        }
        int seconds = positive("seconds", args[0], 1);
        int heartbeat = positive("heartbeat-ms", args[1], 0);
        int connections = args.length >= 3 ? positive("connections", args[2], 1) : 1;
        int settle = args.length == 4 ? positive("settle-seconds", args[3], 0) : 2;
        AtomicInteger disconnections = new AtomicInteger();
        List<ZmqSocket> dealers = new ArrayList<>();
        try (ZmqContext ctx = ZmqContext.create(); ZmqSocket router = ctx.socket(SocketType.ROUTER)) {
            router.setLinger(0);
            router.setHeartbeatInterval(heartbeat);
            router.setEventListener(e -> {
                if (e.kind() == ZmqEvent.Kind.DISCONNECTED) {
                    disconnections.incrementAndGet();
                }
            });
            router.bind("tcp://127.0.0.1:0");
            try {
                for (int i = 0; i < connections; i++) {
                    ZmqSocket d = ctx.socket(SocketType.DEALER);
                    dealers.add(d);
                    d.setLinger(0);
                    d.setHeartbeatInterval(heartbeat);
                    d.connect(router.lastEndpoint());
                    d.send("up".getBytes(StandardCharsets.US_ASCII), 0);
                }
                for (int i = 0; i < connections; i++) {
                    router.receive(0); // the routing id
                    router.receive(0); // "up"
                }
                Thread.sleep(TimeUnit.SECONDS.toMillis(settle));
                long cpu0 = processCpuNanos();
                long t0 = System.nanoTime();
                Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
                long cpu = processCpuNanos() - cpu0;
                long wall = System.nanoTime() - t0;
                System.out.printf(Locale.ROOT, "connections: %d%nheartbeat interval: %d [ms]%nsettled: %d [s]%nidle time: %d [s]%n",
                        connections, heartbeat, settle, seconds);
                System.out.printf(Locale.ROOT, "idle CPU: %.3f %% of a core%n", 100.0 * cpu / wall);
                System.out.printf(Locale.ROOT, "disconnections: %d%n", disconnections.get());
            } finally {
                dealers.forEach(ZmqSocket::close);
            }
        }
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        throw new IllegalStateException("this JVM does not report its process CPU time");
    }

    private static int positive(String name, String value, int min) {
        int v = Integer.parseInt(value);
        if (v < min) {
            throw new IllegalArgumentException(name + " " + v + " must be at least " + min);
        }
        return v;
    }
}
