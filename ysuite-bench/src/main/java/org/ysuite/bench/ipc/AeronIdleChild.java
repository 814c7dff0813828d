package org.ysuite.bench.ipc;

import io.aeron.Aeron;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.ysuite.shared.SharedSignaler;
import org.ysuite.agrona.SharedSignalerIdleStrategy;

/**
 * The subscribing JVM of {@link AeronIdle}: {@code AeronIdleChild <aeronDir> <strategy> <doorbell>}
 * connects to the benchmark's media driver, subscribes to {@code aeron:ipc} stream
 * {@value #STREAM}, creates the doorbell ({@link SharedSignaler}) when the strategy is
 * {@code ysuite}, prints {@code READY} once the publication is there, and polls on a thread named
 * {@value IpcChild#READER} with the named idle strategy. Each message's first long is its kind
 * (a sequence number {@code >= 0}, or {@link #START}, {@link #STOP}, {@link #END}) and its second
 * the sender's {@code System.nanoTime()}. Between {@code START} and {@code STOP} it records every
 * message's one-way latency (receipt's {@code nanoTime} minus the stamp, in a {@link Latencies}
 * histogram) and its reader thread's CPU time; at {@code STOP} it prints
 * {@code STATS <count> <meanNs> <p99Ns> <cpuNanos> <wallNanos>}; at {@code END} (or when the
 * publication goes) it exits 0, on a failure 1.
 */
public final class AeronIdleChild {

    /** The stream, parent to child. */
    static final int STREAM = 1101;
    /** Kind of the message that starts a measurement. */
    static final long START = -1;
    /** Kind of the message that ends it (the child prints its {@code STATS}). */
    static final long STOP = -2;
    /** Kind of the last message. */
    static final long END = -3;

    private final Latencies latencies = new Latencies();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long cpu0;
    private long wall0;
    private boolean done;

    private AeronIdleChild() {
    }

    /**
     * The subscriber's idle strategy by name.
     *
     * @param name {@code busySpin}, {@code backoff}, {@code sleeping}, {@code ysuite},
     *     {@code ysuiteFenced} (its doorbell made with {@code fenceSenders} false: each ring fences)
     *     or {@code ysuiteFixed} (the default spins and yields, not adapted to the traffic)
     * @param doorbell the doorbell ({@code ysuite} only)
     * @return the strategy
     */
    static IdleStrategy strategy(String name, SharedSignaler doorbell) {
        switch (name) {
            case "busySpin":
                return new BusySpinIdleStrategy();
            case "backoff":
                return new BackoffIdleStrategy();
            case "sleeping":
                return new SleepingIdleStrategy();
            case "ysuite":
            case "ysuiteFenced":
                return new SharedSignalerIdleStrategy(doorbell);
            case "ysuiteFixed":
                return new SharedSignalerIdleStrategy(doorbell, SharedSignalerIdleStrategy.DEFAULT_SPINS,
                        SharedSignalerIdleStrategy.DEFAULT_YIELDS, SharedSignalerIdleStrategy.DEFAULT_MAX_SLEEP_NANOS,
                        TimeUnit.NANOSECONDS);
            default:
                throw new IllegalArgumentException("unknown idle strategy: " + name
                        + " (busySpin, backoff, sleeping, ysuite, ysuiteFenced or ysuiteFixed)");
        }
    }

    /**
     * Runs the child.
     *
     * @param args {@code <aeronDir> <strategy> <doorbell>}
     * @throws Exception if the reader thread cannot be joined
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: AeronIdleChild <aeronDir> <strategy> <doorbell>");
            System.exit(2);
        }
        int[] status = {1};
        Thread reader = new Thread(() -> status[0] = new AeronIdleChild().serve(args), IpcChild.READER);
        reader.start();
        reader.join();
        System.exit(status[0]);
    }

    private int serve(String[] args) {
        boolean ysuite = args[1].startsWith("ysuite");
        try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(args[0]));
                Subscription in = aeron.addSubscription("aeron:ipc", STREAM);
                SharedSignaler doorbell = !ysuite ? null : !"ysuiteFenced".equals(args[1])
                        ? SharedSignaler.create(Paths.get(args[2]), 1)
                        : SharedSignaler.create(Paths.get(args[2]), 1, false)) {
            IdleStrategy idle = strategy(args[1], doorbell);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (in.imageCount() == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no publication within 30 s");
                }
                Thread.sleep(1);
            }
            System.out.println("READY");
            System.out.flush();
            FragmentHandler handler = (buffer, offset, length, header) -> {
                long kind = buffer.getLong(offset);
                if (kind >= 0) {
                    latencies.record(System.nanoTime() - buffer.getLong(offset + Long.BYTES));
                } else {
                    control(kind);
                }
            };
            while (!done) {
                idle.idle(in.poll(handler, 16));
                if (in.imageCount() == 0) {
                    throw new IllegalStateException("the publication went before END");
                }
            }
            return 0;
        } catch (Exception | Error e) {
            System.err.println("AeronIdleChild " + args[1] + ": failed");
            e.printStackTrace();
            return 1;
        }
    }

    private void control(long kind) {
        if (kind == START) {
            latencies.clear();
            cpu0 = threads.getCurrentThreadCpuTime();
            wall0 = System.nanoTime();
        } else if (kind == STOP) {
            long wall = System.nanoTime() - wall0;
            long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            System.out.println("STATS " + latencies.count() + " " + latencies.mean() + " "
                    + latencies.percentile(0.99) + " " + cpu + " " + wall);
            System.out.flush();
        } else if (kind == END) {
            done = true;
        }
    }
}
