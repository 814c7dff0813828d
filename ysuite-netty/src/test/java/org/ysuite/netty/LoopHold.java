package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Holds an event loop inside a task of the test, so that its task queue can be counted without a race. */
final class LoopHold {

    private LoopHold() {
    }

    /** Runs a task on {@code loop} that holds it until {@code release}; returns once it holds it. */
    static void hold(EventExecutor loop, CountDownLatch release) throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        loop.execute(() -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(inside.await(10, TimeUnit.SECONDS), "the loop did not run the holding task");
    }
}
