package org.ysuite.zmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A PUSH over tcp sending same-sized messages allocates nothing per message on its thread once warm:
 * each copy goes into an array the I/O thread handed back after writing it. The arrays in circulation
 * are bounded (the mark, plus those drained and not yet handed back), so whatever the two threads'
 * speeds, the sender allocates a bounded number of them, never one per message.
 */
@Timeout(120)
class SendAllocationTest {

    private static final int WARM = 200_000;
    private static final int MEASURED = 200_000;

    @Test
    void aPushSenderAllocatesNothingPerMessage() throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ZmqContext ctx = ZmqContext.create(); ZmqSocket pull = ctx.socket(SocketType.PULL);
                ZmqSocket push = ctx.socket(SocketType.PUSH)) {
            String ep = ZmqTestSupport.bind(pull, "tcp");
            push.connect(ep);
            CompletableFuture<Integer> received = CompletableFuture.supplyAsync(() -> {
                byte[] in = new byte[64];
                int n = 0;
                for (int i = 0; i < WARM + MEASURED; i++) {
                    n += pull.receive(in, 0, in.length, 0) == 64 ? 1 : 0;
                }
                return n;
            });
            byte[] m = new byte[64];
            for (int i = 0; i < WARM; i++) { // warm: the JIT compiles send, the circulation fills
                push.send(m, 0, m.length, 0);
            }
            long tid = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < MEASURED; i++) {
                push.send(m, 0, m.length, 0);
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            assertEquals(WARM + MEASURED, received.get(60, TimeUnit.SECONDS));
            // at most the arrays a sender at the mark may lack once (about 1,300 of 80 B), never 80 B a message
            assertTrue(allocated < 2 * MEASURED / 4, allocated + " bytes for " + MEASURED + " messages");
        }
    }
}
