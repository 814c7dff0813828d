package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code publish} allocates nothing on the application thread once warm, and publishing allocates
 * nothing per message on the publisher's thread ({@link FrameBatch}).
 */
@Timeout(45)
class AllocationTest {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    @Test
    void publishAllocatesNothingOnTheWritersThreadNorPerMessageOnThePublishers() throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        BROKER.declare("alloc");
        byte[] body = new byte[64];
        try (AmqpPublisher publisher = AmqpPublisher.builder().open(BROKER.factory())) {
            PublisherWriter w = publisher.newWriter();
            for (int i = 0; i < 20_000; i++) { // warm: the JIT compiles publish
                w.publish("", "alloc", body);
            }
            assertTrue(w.awaitSettled(20_000, 20, TimeUnit.SECONDS));
            long tid = Thread.currentThread().getId();
            long publisherTid = publisherThread().getId();
            long before = threads.getThreadAllocatedBytes(tid);
            long publisherBefore = threads.getThreadAllocatedBytes(publisherTid);
            for (int i = 0; i < 20_000; i++) {
                w.publish("", "alloc", body);
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            assertTrue(w.awaitSettled(40_000, 20, TimeUnit.SECONDS));
            long publisherAllocated = threads.getThreadAllocatedBytes(publisherTid) - publisherBefore;
            System.out.println("the publisher's thread allocated " + publisherAllocated + " bytes for 20000 messages");
            assertEquals(40_000, w.confirmed());
            System.out.println("publish allocated " + allocated + " bytes for 20000 messages");
            // a few hundred bytes at most: the measurement's own; nothing per message
            assertTrue(allocated < 20_000, allocated + " bytes for 20000 messages");
            // the frames are encoded into the publisher's own buffer: nothing per message there either
            assertTrue(publisherAllocated < 20_000, "the publisher's thread: " + publisherAllocated
                    + " bytes for 20000 messages");
        }
    }

    private static Thread publisherThread() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("ysuite-amqp-publisher")).findFirst()
                .orElseThrow(() -> new AssertionError("no thread ysuite-amqp-publisher"));
    }
}
