package org.ysuite;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Millions of messages through each pipe, between real threads, under pure-park and spin-then-park
 * waits: the {@link PipeWorkload} (random batches, multipart messages, unwrites, pauses; every
 * message checked) at the size every build can afford. {@link SoakTest} runs the same workload at
 * 10^9. The message count: {@code -Dysuite.stress.messages=N}, 10^7 unless set; the build sets
 * CI's size (ysuite-core's pom).
 */
class PipeStressTest {

    static final long MESSAGES = Long.getLong("ysuite.stress.messages", 10_000_000L);
    /**
     * The outermost guard, far above a run on a loaded machine: the workload's own stall guard (no
     * message for 30 s) is what catches a lost wake-up, so a slow machine is not a failure.
     */
    static final Duration WATCHDOG = Duration.ofMinutes(30);

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {0, WaitPolicy.DEFAULT_SPINS})
    void yPipe(int spin) throws Throwable {
        PipeWorkload.yPipe("YPipe+YSemaphore", MESSAGES, new YSemaphore(WaitPolicy.spinThenPark(spin))).run(WATCHDOG, null);
    }

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {0, WaitPolicy.DEFAULT_SPINS})
    void offHeapYPipe(int spin) throws Throwable {
        try (OffHeapYPipe pipe = new OffHeapYPipe(1 << 16, WaitPolicy.defaultPolicy(), WaitPolicy.spinThenPark(spin))) {
            PipeWorkload.offHeap("OffHeapYPipe", MESSAGES, pipe, spin).run(WATCHDOG, null);
        }
    }

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {0, WaitPolicy.DEFAULT_SPINS})
    void yMailboxThreeWritersOverYPollset(int spin) throws Throwable {
        PipeWorkload.mailbox("YMailbox(3 writers)", MESSAGES, new YMailbox<>(new YPollset(WaitPolicy.spinThenPark(spin))), 3)
                .run(WATCHDOG, null);
    }

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {0, WaitPolicy.DEFAULT_SPINS})
    void yMailboxFortyWritersShareThePollsetsBits(int spin) throws Throwable {
        PipeWorkload.mailbox("YMailbox(40 writers)", MESSAGES / 10, new YMailbox<>(new YPollset(WaitPolicy.spinThenPark(spin))), 40)
                .run(WATCHDOG, null);
    }

    @ParameterizedTest(name = "spinIterations={0}")
    @ValueSource(ints = {0, WaitPolicy.DEFAULT_SPINS})
    void yMailboxOverAnyPollableSignalerThroughTheInterface(int spin) throws Throwable {
        PollableSignaler semaphore = new YSemaphore(WaitPolicy.spinThenPark(spin)); // one id shared by every writer
        PipeWorkload.mailbox("YMailbox(YSemaphore)", MESSAGES / 10, new YMailbox<>(semaphore), 3)
                .run(WATCHDOG, null);
    }
}
