package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The loop's linger after a delivery: its budget (fed with times), and its end on a real loop. */
class LoopLingerTest {

    private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final IoEventLoop loop = (IoEventLoop) group.next();

    @AfterEach
    void shutDown() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void answersGrowTheBudgetRunsOfMissesHalveItAndADrainSoonAfterADeliveryBringsItBack() {
        LoopLinger l = new LoopLinger(loop, 20_000);
        assertEquals(20_000, l.budget());
        for (int i = 0; i < SpinBudget.FAILURES_PER_HALVING - 1; i++) {
            l.learnMiss();
        }
        assertEquals(20_000, l.budget(), "an odd miss costs nothing");
        l.learnMiss();
        assertEquals(10_000, l.budget(), "a run of misses halves the budget");
        l.learnHit(1_000);
        assertEquals(10_000, l.budget(), "a quick answer keeps it");
        l.learnHit(7_000);
        assertEquals(14_000, l.budget(), "an answer after t raises it to 2t");
        for (int i = 0; i < 20 * SpinBudget.FAILURES_PER_HALVING; i++) {
            l.learnMiss();
        }
        assertEquals(0, l.budget(), "a reader that never answers: no linger");
        l.learnUnlingered(30_000);
        assertEquals(0, l.budget(), "a drain later than the cap after a delivery: still none");
        l.learnUnlingered(3_000);
        assertEquals(5_000, l.budget(), "a drain soon after a delivery: a quarter of the cap");
    }

    /**
     * A linger ends as soon as a task is pending: with a 60 s budget, the task queued from
     * another thread runs long before the linger could run out.
     */
    @Test
    void aLingerEndsWhenATaskIsQueued() throws Exception {
        LoopLinger l = new LoopLinger(loop, TimeUnit.SECONDS.toNanos(60));
        loop.submit(l::delivered).sync(); // on the loop: queues the linger behind this task
        CompletableFuture<Thread> answered = new CompletableFuture<>();
        loop.execute(() -> answered.complete(Thread.currentThread()));
        assertTrue(answered.get(30, TimeUnit.SECONDS) != null, "the answer ran");
        long[] counts = loop.submit(() -> new long[] {l.lingers(), l.hits()}).get(30, TimeUnit.SECONDS);
        assertEquals(1, counts[0], "one linger ran");
        assertEquals(1, counts[1], "and it ended on the pending task");
    }

    /** A linger with nothing pending runs out; four in a row halve its budget. */
    @Test
    void aLingerWithNothingPendingRunsOut() {
        LoopLinger l = new LoopLinger(loop, 200_000);
        for (int i = 0; i < SpinBudget.FAILURES_PER_HALVING; i++) {
            l.run(); // the idle loop has no task pending
        }
        assertEquals(SpinBudget.FAILURES_PER_HALVING, l.lingers());
        assertEquals(0, l.hits());
        assertEquals(100_000, l.budget());
    }

    @Test
    void noneAndAZeroCapNeverLinger() throws Exception {
        LoopLinger zero = new LoopLinger(loop, 0);
        loop.submit(zero::delivered).sync();
        loop.submit(() -> { }).sync(); // a linger queued by delivered() would have run before this
        assertEquals(0, zero.lingers());
        LoopLinger.NONE.delivered();
        assertEquals(0, LoopLinger.NONE.lingers());
        assertEquals(0, LoopLinger.NONE.budget());
    }
}
