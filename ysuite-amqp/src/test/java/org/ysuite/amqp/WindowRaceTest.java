package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The confirm window fills and empties many thousand times while writers wait for room in their
 * full pipes: a confirm that makes room between the publisher's look at the window and its sleep
 * must not leave it asleep (the writers would wait for good). A hang fails on the timeout.
 */
@Timeout(120) // about 8 s on 2 quiet vCPUs
class WindowRaceTest {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    @Test
    void writersWaitingForRoomWhileTheWindowFillsAndEmptiesAllGetThrough() throws Exception {
        try (Connection c = BROKER.factory().newConnection("declare"); Channel ch = c.createChannel()) {
            ch.exchangeDeclare("window-race", BuiltinExchangeType.FANOUT, false); // nothing bound
        }
        int writers = 2;
        int perWriter = 100_000;
        try (AmqpPublisher publisher = AmqpPublisher.builder().confirmWindow(8).maxBatch(8)
                .writerBufferBytes(4096).name("window-race").open(BROKER.factory())) {
            PublisherWriter[] w = new PublisherWriter[writers];
            for (int i = 0; i < writers; i++) {
                w[i] = publisher.newWriter();
            }
            WriterThreads.run(writers, id -> {
                byte[] body = new byte[8];
                for (int s = 0; s < perWriter; s++) {
                    w[id].publish("window-race", "", body);
                }
            });
            for (int i = 0; i < writers; i++) {
                assertTrue(w[i].awaitSettled(perWriter, 30, TimeUnit.SECONDS), "writer " + i + " settled");
                assertEquals(perWriter, w[i].confirmed());
            }
        }
    }
}
