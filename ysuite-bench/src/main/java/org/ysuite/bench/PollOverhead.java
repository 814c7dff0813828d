package org.ysuite.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Wake;

/**
 * The cost of the signalers alone: a signal bounced between two threads (no pipe), the owner
 * waiting each time, for YSemaphore, YPollset and YSocketPair (socketpair and eventfd), in
 * pure-park and spin-then-park. One invocation is a round trip, counted as two signals.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class PollOverhead {

    /** Two signalers of one kind and the echo thread. */
    @State(Scope.Benchmark)
    public static class Signals {
        /** Which signaler. */
        @Param({Wake.SEMAPHORE, Wake.POLLSET, Wake.SOCKETPAIR, Wake.EVENTFD})
        public String signaler;
        /** The waiting policy ({@link Wake#policy(int)}): 0 is pure park, 200 the default. */
        @Param({"0", "200"})
        public int spin;

        Wake echoWake;
        Wake mainWake;
        Partner echo;

        @Setup(Level.Trial)
        public void setup() {
            echoWake = Wake.create(signaler, spin);
            mainWake = Wake.create(signaler, spin);
            echo = Partner.start("signal-echo", () -> {
                echoWake.await();
                mainWake.signal();
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            echo.stop(null);
            echoWake.close();
            mainWake.close();
        }
    }

    /**
     * Signal the echo, wait for its signal.
     *
     * @param s state
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "signal round trip", kind = Transport.Kind.YSUITE)
    public void signal(Signals s) throws InterruptedException {
        s.echoWake.signal();
        s.mainWake.await();
    }
}
