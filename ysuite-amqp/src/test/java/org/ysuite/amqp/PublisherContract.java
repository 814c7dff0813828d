package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ysuite.amqp.broker.EmbeddedBroker;

/**
 * The publisher and the consumer against a real broker: every broker the tests know runs these
 * ({@link AmqpPublisherTest}: Broker-J, {@link EmbeddedBroker}; {@link RabbitMqPublisherTest}).
 */
@Timeout(45) // a hang (a lost wake-up, say) fails the test instead of the build
abstract class PublisherContract {

    /** The broker of the concrete class (its registered extension). */
    abstract BrokerExtension broker();

    /** Body: writer (4 bytes), sequence (8), filler, CRC-32 of all before it (8). */
    static byte[] body(int writer, long seq) {
        int filler = (int) ((seq * 31 + writer * 7) % 200);
        ByteBuffer b = ByteBuffer.allocate(4 + 8 + filler + 8);
        b.putInt(writer).putLong(seq);
        for (int i = 0; i < filler; i++) {
            b.put((byte) (seq + i));
        }
        CRC32 crc = new CRC32();
        crc.update(b.array(), 0, b.position());
        b.putLong(crc.getValue());
        return b.array();
    }

    @Test
    void fourWritersEveryMessageConfirmedOnceAndConsumedOnceInOrder() throws Exception {
        fourWriters("four-writers", 1);
    }

    /** Each writer on a channel of its own: four ledgers, four sets of delivery tags. */
    @Test
    void fourWritersOnFourChannelsEveryMessageConfirmedOnceAndConsumedOnceInOrder() throws Exception {
        fourWriters("four-writers-four-channels", 4);
    }

    /** Three channels for four writers: writers 0 and 3 share channel 0. */
    @Test
    void fourWritersOnThreeChannelsEveryMessageConfirmedOnceAndConsumedOnceInOrder() throws Exception {
        fourWriters("four-writers-three-channels", 3);
    }

    private void fourWriters(String queue, int channels) throws Exception {
        broker().declare(queue);
        int writers = 4;
        int perWriter = 5000;
        Fates[] fates = new Fates[writers];
        PublisherWriter[] w = new PublisherWriter[writers];
        try (AmqpPublisher publisher = AmqpPublisher.builder().confirmWindow(256).maxBatch(64).channels(channels)
                .writerBufferBytes(16 * 1024).name("four").open(broker().factory())) {
            for (int i = 0; i < writers; i++) {
                fates[i] = new Fates(perWriter);
                w[i] = publisher.newWriter(fates[i]);
            }
            WriterThreads.run(writers, id -> {
                for (long s = 1; s <= perWriter; s++) {
                    byte[] b = body(id, s);
                    assertEquals(s, w[id].publish("", queue, false, b, 0, b.length));
                }
            });
            for (int i = 0; i < writers; i++) {
                assertTrue(w[i].awaitSettled(perWriter, 20, TimeUnit.SECONDS), "writer " + i + " settled");
                assertNull(fates[i].error.get());
                assertEquals(perWriter, w[i].confirmed());
                assertEquals(perWriter, fates[i].count(Fate.CONFIRMED, perWriter));
                assertEquals(0, w[i].lost() + w[i].nacked() + w[i].returned());
            }
            assertEquals((long) writers * perWriter, publisher.published());
        }

        long[] lastSeq = new long[writers];
        List<String> errors = new ArrayList<>();
        int total = writers * perWriter;
        int received = 0;
        try (AmqpConsumer consumer = AmqpConsumer.open(broker().factory(), queue, 500, 1 << 20)) {
            while (received < total) {
                received += consumer.poll((buf, off, len, tag, redelivered) -> {
                    // the view: positioned on the body, big-endian as body() wrote it
                    if (buf.position() != off || buf.remaining() != len || buf.order() != ByteOrder.BIG_ENDIAN) {
                        errors.add("a body of " + len + " bytes at " + off + " seen as " + buf + ", " + buf.order());
                    }
                    int writer = buf.getInt(off);
                    long seq = buf.getLong(off + 4);
                    CRC32 crc = new CRC32();
                    crc.update(buf.duplicate().limit(off + len - 8)); // from the position: the body less its check
                    if (buf.getLong(off + len - 8) != crc.getValue()) {
                        errors.add("checksum of " + writer + "/" + seq);
                    }
                    if (seq != lastSeq[writer] + 1) {
                        errors.add("writer " + writer + ": " + seq + " after " + lastSeq[writer]);
                    }
                    lastSeq[writer] = seq;
                }, 20, TimeUnit.SECONDS);
            }
        }
        assertEquals(total, received);
        assertEquals(List.of(), errors);
        assertEquals(0, broker().messageCount(queue)); // every delivery acknowledged
    }

    @Test
    void mandatoryUnroutableIsNotConfirmed() throws Exception {
        String queue = "mandatory";
        broker().declare(queue);
        Fates fates = new Fates(3);
        try (AmqpPublisher publisher = AmqpPublisher.builder().open(broker().factory())) {
            PublisherWriter w = publisher.newWriter(fates);
            byte[] b = {1, 2, 3};
            w.publish("", queue, true, b, 0, 3);
            w.publish("amq.direct", "no-such-binding", true, b, 0, 3);
            long last = w.publish("", queue, b);
            assertTrue(w.awaitSettled(last, 20, TimeUnit.SECONDS));
        }
        assertNull(fates.error.get());
        assertEquals(Fate.CONFIRMED, fates.bySequence[1]);
        // RabbitMQ returns, then acks (RETURNED); Broker-J nacks, then returns (NACKED).
        assertTrue(fates.bySequence[2] == Fate.RETURNED || fates.bySequence[2] == Fate.NACKED,
                String.valueOf(fates.bySequence[2]));
        assertEquals(Fate.CONFIRMED, fates.bySequence[3]);
    }

    /**
     * Two writers on two channels, each message mandatory: both channels' first delivery tag is 1,
     * and the return of writer 1's unroutable message must reach writer 1, not writer 0.
     */
    @Test
    void returnedMessageOnItsOwnChannelReachesItsOwnWriter() throws Exception {
        String queue = "mandatory-channels";
        broker().declare(queue);
        Fates routed = new Fates(2);
        Fates unroutable = new Fates(2);
        try (AmqpPublisher publisher = AmqpPublisher.builder().channels(2).open(broker().factory())) {
            PublisherWriter a = publisher.newWriter(routed); // channel 0
            PublisherWriter b = publisher.newWriter(unroutable); // channel 1
            byte[] body = {1, 2, 3};
            for (int i = 0; i < 2; i++) {
                a.publish("", queue, true, body, 0, 3);
                b.publish("amq.direct", "no-such-binding", true, body, 0, 3);
            }
            assertTrue(a.awaitSettled(2, 20, TimeUnit.SECONDS));
            assertTrue(b.awaitSettled(2, 20, TimeUnit.SECONDS));
            assertEquals(2, a.confirmed());
            assertEquals(0, a.returned() + a.nacked() + a.lost());
            assertEquals(2, b.returned() + b.nacked(), "RabbitMQ returns, Broker-J nacks");
            assertEquals(0, b.confirmed() + b.lost());
        }
        assertNull(routed.error.get());
        assertNull(unroutable.error.get());
        assertEquals(2, broker().messageCount(queue));
    }

    @Test
    void closePublishesEverythingAcceptedAndLeavesNoThread() throws Exception {
        String queue = "close";
        broker().declare(queue);
        AmqpPublisher publisher = AmqpPublisher.builder().name("closing").open(broker().factory());
        PublisherWriter a = publisher.newWriter();
        PublisherWriter b = publisher.newWriter();
        for (int i = 0; i < 2000; i++) {
            a.publish("", queue, body(0, i));
            b.publish("", queue, body(1, i));
        }
        publisher.close();
        // close() returned: every accepted message has its fate, confirmed by a live broker
        assertEquals(2000, a.settled());
        assertEquals(2000, b.settled());
        assertEquals(2000, a.confirmed());
        assertEquals(2000, b.confirmed());
        assertEquals(4000, broker().messageCount(queue));
        assertFalse(Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("closing-publisher")), "the publisher's thread ended");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.publish("", queue, new byte[1]));
        assertEquals("the publisher is closed", e.getMessage());
        assertThrows(IllegalStateException.class, publisher::newWriter);
        assertFalse(publisher.isOpen());
        publisher.close(); // idempotent
        assertEquals(2000, a.accepted());
    }

    @Test
    void argumentsAreCheckedAndNamed() throws Exception {
        AmqpPublisherBuilder builder = AmqpPublisher.builder();
        assertMessage("confirmWindow must be a power of two in 1..1048576: 3",
                () -> builder.confirmWindow(3));
        assertMessage("maxBatch must be in 1..65536: 0", () -> builder.maxBatch(0));
        assertMessage("channels must be in 1..256: 0", () -> builder.channels(0));
        assertMessage("channels must be in 1..256: 257", () -> builder.channels(257));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder.writerBufferBytes(0))
                .getMessage().startsWith("writerBufferBytes must be in "));
        assertEquals("onFull", assertThrows(NullPointerException.class, () -> builder.onFull(null)).getMessage());
        try (AmqpPublisher publisher = builder.writerBufferBytes(4096).open(broker().factory())) {
            PublisherWriter w = publisher.newWriter();
            String longKey = "k".repeat(256);
            assertMessage("routingKey is 256 UTF-8 bytes: at most 255 (an AMQP short string)",
                    () -> w.publish("", longKey, new byte[1]));
            assertMessage("exchange is 256 UTF-8 bytes: at most 255 (an AMQP short string)",
                    () -> w.publish("\u00e9".repeat(128), "k", new byte[1]));
            int max = w.maxRecordLength() - 3 - 1;
            assertMessage("body is " + (max + 1) + " bytes: at most " + max
                    + " fit with this exchange and routing key (writerBufferBytes 4096, largest record "
                    + w.maxRecordLength() + " bytes)", () -> w.publish("", "k", new byte[max + 1]));
            assertThrows(IndexOutOfBoundsException.class, () -> w.publish("", "k", false, new byte[4], 2, 3));
            assertEquals("exchange", assertThrows(NullPointerException.class,
                    () -> w.publish(null, "k", new byte[1])).getMessage());
            assertMessage("sequence must be in 1..0 (accepted so far): 1", () -> w.awaitSettled(1));
            assertEquals(0, w.accepted());
        }
    }

    /** More channels than the connection may open: open fails and says why, no connection is left. */
    @Test
    void moreChannelsThanTheConnectionsChannelMaxFailToOpen() throws Exception {
        com.rabbitmq.client.ConnectionFactory factory = broker().factory().clone();
        factory.setRequestedChannelMax(2);
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> AmqpPublisher.builder().channels(3).name("too-many").open(factory));
        assertEquals("the connection has no channel left for channel 3 of 3 (the connection's channel_max is 2)",
                e.getMessage());
        assertFalse(Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("too-many-publisher")), "no publisher's thread");
        try (AmqpPublisher publisher = AmqpPublisher.builder().channels(2).open(factory)) {
            assertTrue(publisher.isOpen(), "as many channels as channel_max");
        }
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, call).getMessage());
    }
}
