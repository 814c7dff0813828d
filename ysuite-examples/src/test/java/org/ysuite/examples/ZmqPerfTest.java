package org.ysuite.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The percentile {@code remote_lat} prints: the nearest rank, as {@code zmq_perf.c} computes it. */
class ZmqPerfTest {

    @Test
    void p99IsTheNearestRank() {
        // 1..100 in reverse: the 99th of 100 values is 99
        assertEquals(99, ZmqPerf.p99(LongStream.rangeClosed(1, 100).map(i -> 101 - i).toArray()));
        // 1..1000: rank ceil(990) = 990
        assertEquals(990, ZmqPerf.p99(LongStream.rangeClosed(1, 1000).toArray()));
        // 1..101: rank ceil(99.99) = 100
        assertEquals(100, ZmqPerf.p99(LongStream.rangeClosed(1, 101).toArray()));
        assertEquals(7, ZmqPerf.p99(new long[] {7}));
    }
}
