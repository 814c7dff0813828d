package org.ysuite.zmq.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ysuite.YSemaphore;

/** The socket's spin-then-park wait keeps the semaphore's semantics: signals, deadlines, interrupts. */
class SocketWaitTest {

    private final YSemaphore signal = new YSemaphore();
    private final SocketWait wait = new SocketWait(signal);

    @Test
    void aSignalFiredBeforeTheWaitIsTaken() throws InterruptedException {
        signal.signal(0);
        assertTrue(wait.await(Long.MAX_VALUE));
        assertTrue(wait.budget() > 0, "a wait caught at once keeps a spin budget");
    }

    @Test
    void aSignalFromAnotherThreadEndsTheWait() throws Exception {
        Thread t = new Thread(() -> signal.signal(0));
        t.start();
        assertTrue(wait.await(Long.MAX_VALUE));
        t.join();
    }

    @Test
    void aPassedDeadlineWithoutSignalReturnsFalse() throws InterruptedException {
        assertFalse(wait.await(System.nanoTime() - 1));
    }

    @Test
    void anInterruptedThreadGetsInterruptedExceptionAndTheSignalStays() throws InterruptedException {
        signal.signal(0);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> wait.await(Long.MAX_VALUE));
        assertFalse(Thread.currentThread().isInterrupted(), "the status is cleared, as java.util.concurrent does");
        assertTrue(wait.await(Long.MAX_VALUE), "the signal was not taken by the interrupted wait");
    }
}
