package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The loop's one more look before it puts a sender's pipe to sleep ({@link LoopDrain}): a send
 * that answers a delivery finds the pipe awake and queues no drain task, and a loop that blocks
 * has put the pipe to sleep first, so the next send wakes it.
 */
class LoopMailboxLookTest {

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aSendMadeRightAfterADrainFindsThePipeAwakeAndQueuesNoTask(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        AfterTheDrain after = new AfterTheDrain();
        try {
            IoEventLoop loop = group.next();
            List<String> seen = new CopyOnWriteArrayList<>();
            CountDownLatch both = new CountDownLatch(2);
            LoopMailbox<String> box = transport.<String>builder(loop, m -> {
                seen.add(m);
                if (m.equals("a")) {
                    after.holdTheLoop(loop);
                }
                both.countDown();
            }).register();
            box.registrationFuture().get(10, TimeUnit.SECONDS);
            LoopMailbox.Sender<String> out = box.newSender();
            out.send("a");
            // the drain of "a" is over and its next look has not run yet
            after.sendWhileHeld(() -> out.send("b"), "the loop did not deliver the first message");
            awaitOrFail(both, "the second message was not delivered");
            assertEquals(List.of("a", "b"), seen);
            assertEquals(1, box.wakeups(), "the send after the drain found the pipe asleep and queued a task");
        } finally {
            after.letGo(); // also when an assertion failed: the loop must be let go
            Transport.shutdown(group);
        }
    }

    /**
     * A dense stream (a batch of {@link LoopDrain#LOOK_AGAIN_BELOW} or more in one turn) is drained
     * and the pipe put to sleep at once: the loop does not poll a writer that is far ahead.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aLargeBatchPutsThePipeToSleepWithoutAnotherLook(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        CountDownLatch release = new CountDownLatch(1);
        AfterTheDrain after = new AfterTheDrain();
        try {
            IoEventLoop loop = group.next();
            int batch = LoopDrain.LOOK_AGAIN_BELOW;
            CountDownLatch all = new CountDownLatch(batch + 1);
            LoopMailbox<Integer> box = transport.<Integer>builder(loop, m -> {
                if (m == batch - 1) {
                    after.holdTheLoop(loop);
                }
                all.countDown();
            }).register();
            box.registrationFuture().get(10, TimeUnit.SECONDS);
            LoopMailbox.Sender<Integer> out = box.newSender();
            LoopHold.hold(loop, release);
            for (int i = 0; i < batch; i++) {
                out.send(i); // the first queues the drain task; the loop takes them in one turn
            }
            release.countDown();
            after.sendWhileHeld(() -> out.send(batch), "the loop did not deliver the batch");
            awaitOrFail(all, "the message after the batch was not delivered");
            assertEquals(2, box.wakeups(), "the pipe stayed awake after a batch of " + batch);
        } finally {
            release.countDown();
            after.letGo();
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aLoopThatBlocksHasPutThePipeToSleepSoTheNextSendWakesIt(Transport transport) throws Exception {
        BlockingWaits waits = new BlockingWaits(transport.factory());
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, waits);
        try {
            IoEventLoop loop = group.next();
            CountDownLatch blocked = new CountDownLatch(1);
            CountDownLatch second = new CountDownLatch(1);
            LoopMailbox<String> box = transport.<String>builder(loop, m -> {
                if (m.equals("a")) {
                    waits.next = blocked; // loop thread: the next blocking wait after this delivery
                } else {
                    second.countDown();
                }
            }).register();
            box.registrationFuture().get(10, TimeUnit.SECONDS);
            LoopMailbox.Sender<String> out = box.newSender();
            out.send("a");
            awaitOrFail(blocked, "the loop never blocked again after a delivery (it kept looking)");
            out.send("b");
            awaitOrFail(second, "a send after the loop blocked was not delivered (lost wake-up)");
            assertEquals(2, box.wakeups(), "the send after the loop blocked did not queue the drain task");
        } finally {
            Transport.shutdown(group);
        }
    }

    private static void awaitOrFail(CountDownLatch latch, String message) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS), message);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(message, e);
        }
    }

    /**
     * Holds the loop between a drain task and that task's next look, so that the test thread can
     * send then: a task queued by the handler runs after the drain task that called the handler
     * has returned, and before the look (queued only at the end of the loop's turn).
     */
    private static final class AfterTheDrain {
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch sent = new CountDownLatch(1);

        /** Loop thread, from the handler. */
        void holdTheLoop(IoEventLoop loop) {
            loop.execute(() -> {
                held.countDown();
                awaitOrFail(sent, "the test thread did not send");
            });
        }

        /** Test thread: waits for the hold, runs {@code send} while the loop is held, lets it go. */
        void sendWhileHeld(Runnable send, String notHeld) {
            awaitOrFail(held, notHeld);
            send.run();
            sent.countDown();
        }

        /** Lets the loop go if a test failed before it sent. */
        void letGo() {
            sent.countDown();
        }
    }

    /**
     * Wraps the loop's {@link IoHandler} to see its blocking waits: a {@code run} whose context
     * can block is a turn that found no task and goes to {@code epoll_wait}/{@code select}.
     */
    private static final class BlockingWaits implements IoHandlerFactory {
        private final IoHandlerFactory delegate;
        /** Loop thread only: counted down at the next blocking wait. */
        CountDownLatch next;

        BlockingWaits(IoHandlerFactory delegate) {
            this.delegate = delegate;
        }

        @Override
        public IoHandler newHandler(ThreadAwareExecutor executor) {
            IoHandler h = delegate.newHandler(executor);
            return new IoHandler() {
                @Override
                public void initialize() {
                    h.initialize();
                }

                @Override
                public int run(IoHandlerContext context) {
                    CountDownLatch l = next;
                    if (l != null && context.canBlock()) {
                        next = null;
                        l.countDown();
                    }
                    return h.run(context);
                }

                @Override
                public void prepareToDestroy() {
                    h.prepareToDestroy();
                }

                @Override
                public void destroy() {
                    h.destroy();
                }

                @Override
                public IoRegistration register(IoHandle handle) throws Exception {
                    return h.register(handle);
                }

                @Override
                public void wakeup() {
                    h.wakeup();
                }

                @Override
                public boolean isCompatible(Class<? extends IoHandle> handleType) {
                    return h.isCompatible(handleType);
                }
            };
        }

        @Override
        public boolean isChangingThreadSupported() {
            return delegate.isChangingThreadSupported();
        }
    }
}
