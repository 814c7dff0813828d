package org.ysuite;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The opt-in soak: the {@link PipeWorkload} of {@link PipeStressTest} at 10^9 messages per pipe type
 * (about 45 minutes on two cores), with a progress line every ten seconds and a rate per run. Tagged
 * {@code soak}: the default build excludes it, the {@code soak} profile runs only it:
 *
 * <pre>
 * mvn -B -pl ysuite-core verify -Psoak [-Dysuite.soak.messages=1e7] [-Dysuite.soak.pipes=offheap,mailbox]
 * </pre>
 *
 * A run fails on a wrong, lost or duplicated message, on a reader wait that outlives 30 s (a lost
 * wake-up) and when no message moves for 30 s (the threads' stacks are printed).
 */
@Tag("soak")
class SoakTest {

    static final long MESSAGES = (long) Double.parseDouble(System.getProperty("ysuite.soak.messages", "1e9"));
    static final String PIPES = System.getProperty("ysuite.soak.pipes",
            "ypipe-semaphore,ypipe-pollset,ypipe-socketpair,offheap,mailbox");
    /** Far beyond the expected run time; the stall watchdog (30 s without a message) is the real guard. */
    static final Duration WATCHDOG = Duration.ofHours(24);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ypipe-semaphore", "ypipe-pollset", "ypipe-socketpair", "offheap", "mailbox"})
    void soak(String pipe) throws Throwable {
        assumeTrue(Stream.of(PIPES.split(",")).map(String::trim).anyMatch(pipe::equals),
                pipe + " is not selected by -Dysuite.soak.pipes=" + PIPES);
        System.out.printf(Locale.ROOT, "soak %s: %,d messages, java %s, %d CPUs%n",
                pipe, MESSAGES, Runtime.version(), Runtime.getRuntime().availableProcessors());
        switch (pipe) {
            case "ypipe-semaphore":
                PipeWorkload.yPipe("YPipe<Long> + YSemaphore", MESSAGES, new YSemaphore()).run(WATCHDOG, System.out);
                break;
            case "ypipe-pollset":
                PipeWorkload.yPipe("YPipe<Long> + YPollset", MESSAGES, new YPollset()).run(WATCHDOG, System.out);
                break;
            case "ypipe-socketpair":
                try (YSocketPair pair = new YSocketPair()) {
                    PipeWorkload.yPipe("YPipe<Long> + YSocketPair", MESSAGES, pair).run(WATCHDOG, System.out);
                }
                break;
            case "offheap":
                try (OffHeapYPipe ring = new OffHeapYPipe(1 << 16)) {
                    PipeWorkload.offHeap("OffHeapYPipe(64 KiB)", MESSAGES, ring, WaitPolicy.DEFAULT_SPINS)
                            .run(WATCHDOG, System.out);
                }
                break;
            default:
                PipeWorkload.mailbox("YMailbox<Long>, 2 writers", MESSAGES, new YMailbox<>(), 2)
                        .run(WATCHDOG, System.out);
                break;
        }
    }
}
