package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How a {@link MessageWriter} wakes its stream's event loop: through Netty's own wake-up, by
 * queueing its pipe's preallocated drain task with {@code execute}, once per sleep of the loop on
 * that pipe. The loop is held inside a task of the test while the writer sends, so the loop's task
 * queue can be counted without a race.
 */
@Timeout(120)
class MessageWriterWakeTest {

    private static void send(MessageWriter w, String s) throws Exception {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        w.send(b, 0, b.length);
    }

    private static String receive(MessageStream s) throws Exception {
        byte[] in = new byte[64];
        int n = s.receive(in);
        return new String(in, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void aWriterQueuesOneDrainTaskPerSleepOfTheLoopNotOnePerMessage(Transport t) throws Exception {
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t, b -> { })) {
            SingleThreadEventExecutor loop = (SingleThreadEventExecutor) p.group.next(); // both streams' loop
            MessageWriter w = p.client.newWriter();
            for (int sleep = 0; sleep < 3; sleep++) {
                CountDownLatch release = new CountDownLatch(1);
                try {
                    LoopHold.hold(loop, release);
                    int before = loop.pendingTasks();
                    send(w, "a" + sleep);
                    assertEquals(before + 1, loop.pendingTasks(),
                            "sleep " + sleep + ": the first send did not queue the pipe's drain task");
                    send(w, "b" + sleep);
                    byte[] c = {'c'};
                    w.write(c, 0, 1);
                    w.flush();
                    assertEquals(before + 1, loop.pendingTasks(),
                            "sleep " + sleep + ": a send queued a task while the pipe's task was queued");
                } finally {
                    release.countDown(); // also when an assertion failed: the loop must be let go
                }
                // The peer has them only after the loop's drain found the pipe empty: the loop is
                // asleep on the pipe again, and the next round's first send must queue the task again.
                assertEquals("a" + sleep, receive(p.accepted));
                assertEquals("b" + sleep, receive(p.accepted));
                assertEquals("c", receive(p.accepted));
            }
            assertEquals(3, p.client.outboundWakeups(), "one wake-up of the loop per sleep");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"EPOLL_EVENTFD", "NIO"})
    void aSendAfterCloseThrowsIOExceptionWhetherOrNotTheLoopSleepsOnThePipe(Transport t) throws Exception {
        try (MessageStreamTest.Pair p = new MessageStreamTest.Pair(t, b -> { })) {
            MessageWriter idle = p.client.newWriter(); // the loop sleeps on its pipe
            MessageWriter used = p.client.newWriter();
            send(used, "x");
            assertEquals("x", receive(p.accepted));
            p.client.close();
            IOException e1 = assertThrows(IOException.class, () -> send(idle, "y"));
            IOException e2 = assertThrows(IOException.class, () -> send(used, "z"));
            assertEquals("MessageStream is closed", e1.getMessage());
            assertEquals("MessageStream is closed", e2.getMessage());
        }
    }
}
