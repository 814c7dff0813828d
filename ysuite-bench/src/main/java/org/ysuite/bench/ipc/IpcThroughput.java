package org.ysuite.bench.ipc;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Transport;

/**
 * Maximal throughput across processes, one flush per message: the benchmark's JVM sends
 * messages as fast as the transport takes them to an {@link IpcChild} JVM that counts them and
 * acknowledges every {@link Session#ACK_EVERY}; the sender stays within a credit window of
 * {@link Msg#WINDOW} messages ({@link Session#push}). The score is ns per message sent.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE, Msg.AGRONA_OPENS})
@Timeout(time = 60)
public class IpcThroughput {

    /** The message size. */
    @State(Scope.Thread)
    public static class Size {
        /** Bytes per message. */
        @Param({"8", "1024"})
        public int bytes;
    }

    /**
     * y-suite: SharedYPipe, one flush per message; the reader sleeps when it has drained the pipe.
     *
     * @param s state
     * @param z message size
     * @return messages sent so far
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "SharedYPipe", kind = Transport.Kind.YSUITE)
    public long ysuite(Peers.Ysuite s, Size z) throws IOException {
        return s.push(z.bytes);
    }

    /**
     * Local sockets: AF_UNIX, blocking, one {@code write} per message.
     *
     * @param s state
     * @param z message size
     * @return messages sent so far
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "AF_UNIX SocketChannel", kind = Transport.Kind.SOCKET)
    public long unixSocket(Peers.Unix s, Size z) throws IOException {
        return s.push(z.bytes);
    }

    /**
     * Aeron IPC, spinning idle strategies.
     *
     * @param s state
     * @param z message size
     * @return messages sent so far
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "Aeron IPC", kind = Transport.Kind.BUSY_SPIN)
    public long aeron(Peers.Aeron s, Size z) throws IOException {
        return s.push(z.bytes);
    }

    /**
     * Aeron IPC, polling every millisecond.
     *
     * @param s state
     * @param z message size
     * @return messages sent so far
     * @throws IOException if the link fails
     */
    @Benchmark
    @Transport(label = "Aeron IPC (sleep 1 ms)", kind = Transport.Kind.POLLING)
    public long aeronSleeping(Peers.AeronSleeping s, Size z) throws IOException {
        return s.push(z.bytes);
    }
}
