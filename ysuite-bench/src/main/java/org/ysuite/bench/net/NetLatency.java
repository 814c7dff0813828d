package org.ysuite.bench.net;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Seed 003's latency test: one message bounced between the application thread and an echoing
 * {@link NetServer} process; one operation is a round trip (the report halves it for the one-way
 * latency). JeroMQ runs REQ/REP.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NetLatency extends NetBench {

    /** The transport ({@code netty_periodic} is left out: a ping-pong flushes every message). */
    @Param({"ysuite", "ysuite_loop", "ysuite_zmq", "tcp", "jeromq", "netty_flush"})
    public String peer;

    private byte[] reply;

    /**
     * Starts the server process and connects.
     *
     * @throws Exception if either fails
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        start(peer, "echo");
        reply = new byte[NetServer.MAX];
    }

    /**
     * One round trip.
     *
     * @return the reply's length (consumed by JMH)
     * @throws Exception if the connection fails or the reply is not the request's size
     */
    @Benchmark
    public int roundTrip() throws Exception {
        int n = client.request(msg, size, reply);
        if (n != size) {
            throw new IllegalStateException("reply of " + n + " bytes to a request of " + size);
        }
        return n;
    }
}
