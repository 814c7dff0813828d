package org.ysuite.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SparseTrafficShutdownTest {

    /** Waits until the reader thread is blocked inside the Disruptor's BlockingWaitStrategy. */
    private static void awaitReaderAsleepInTheDisruptor() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadline < 0) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().equals("sparse-reader") && t.getState() == Thread.State.WAITING
                        && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getClassName().endsWith("BlockingWaitStrategy"))) {
                    return;
                }
            }
            Thread.yield();
        }
        fail("the reader never waited in BlockingWaitStrategy");
    }

    @Test
    void theDisruptorReaderStopsWithoutASevereLog() throws Exception {
        List<LogRecord> severe = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    severe.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        try {
            for (int round = 0; round < 3; round++) {
                SparseTraffic.Peers s = new SparseTraffic.Peers();
                s.peer = SparseTraffic.Peer.disruptorBlocking;
                s.rate = 0; // idle: the reader sleeps in the wait strategy when the benchmark stops
                s.setup();
                awaitReaderAsleepInTheDisruptor();
                s.tearDown();
            }
        } finally {
            root.removeHandler(capture);
        }
        assertEquals(List.of(), severe.stream().map(r -> r.getMessage() + " " + r.getThrown())
                .collect(Collectors.toList()));
    }
}
