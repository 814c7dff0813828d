package org.ysuite.amqp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import com.rabbitmq.client.impl.AMQImpl;
import com.rabbitmq.client.impl.Frame;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link FrameBatch} writes, for each record, exactly the frames amqp-client's own encoders give
 * that message (the frames {@code basicPublish} writes), on a real connection to Broker-J with a
 * small {@code frame_max} so that a body spans frames; and it is offered only over amqp-client's
 * blocking socket handler.
 */
@Timeout(30)
class FrameBatchTest {

    @RegisterExtension
    static final BrokerExtension BROKER = new BrokerExtension();

    private static final int FRAME_MAX = 4096;

    /** A record as {@link PublisherWriter} lays it out, {@code at} bytes into a direct buffer. */
    private static ByteBuffer record(int at, boolean mandatory, String exchange, String key, byte[] body) {
        byte[] e = exchange.getBytes(StandardCharsets.UTF_8);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocateDirect(at + 3 + e.length + k.length + body.length + 5);
        b.position(at);
        b.put((byte) (mandatory ? 1 : 0)).put((byte) e.length).put(e).put((byte) k.length).put(k).put(body);
        return b;
    }

    /** What amqp-client's encoders write for the message, its body cut at {@code frameMax}. */
    private static void expected(DataOutputStream out, int channel, boolean mandatory, String exchange, String key,
                                 AMQP.BasicProperties props, byte[] body, int frameMax) throws IOException {
        new AMQImpl.Basic.Publish(0, exchange, key, mandatory, false).toFrame(channel).writeTo(out);
        props.toFrame(channel, body.length).writeTo(out);
        int perFrame = frameMax - 8;
        for (int from = 0; from < body.length; from += perFrame) {
            Frame.fromBodyFragment(channel, ByteBuffer.wrap(body), from, Math.min(perFrame, body.length - from))
                    .writeTo(out);
        }
    }

    private static byte[] body(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + 3);
        }
        return b;
    }

    @Test
    void everyRecordBecomesTheFramesAmqpClientWouldWrite() throws Exception {
        ConnectionFactory small = BROKER.factory().clone();
        small.setRequestedFrameMax(FRAME_MAX);
        AMQP.BasicProperties props = MessageProperties.PERSISTENT_TEXT_PLAIN;
        AMQP.BasicProperties tagged = props.builder().headers(Map.of(AmqpPublisher.TAG_HEADER, 42L)).build();
        try (Connection c = small.newConnection("frames")) {
            assertEquals(FRAME_MAX, c.getFrameMax(), "the broker took the small frame_max");
            Channel channel = c.createChannel();
            int ch = channel.getChannelNumber();
            FrameBatch frames = FrameBatch.of(c, props);
            assertNotNull(frames, "a blocking socket connection gets a frame batch");
            assertFalse(FrameBatch.flowBlocked(channel), "amqp-client's flow state is read: not blocked");

            ByteArrayOutputStream want = new ByteArrayOutputStream();
            DataOutputStream w = new DataOutputStream(want);
            Object[][] messages = {
                {false, "", "q", new byte[0], null},
                {false, "amq.fanout", "key", body(8), null},
                {true, "ex-é", "routing.key", body(100), tagged},
                {false, "", "q", body(FRAME_MAX - 8), null},
                {false, "", "", body(10_000), null}, // three body frames
            };
            for (Object[] m : messages) {
                boolean mandatory = (boolean) m[0];
                String exchange = (String) m[1];
                String key = (String) m[2];
                byte[] body = (byte[]) m[3];
                AMQP.BasicProperties own = (AMQP.BasicProperties) m[4];
                ByteBuffer record = record(13, mandatory, exchange, key, body);
                frames.publish(ch, record, 13, record.position() - 13, own);
                expected(w, ch, mandatory, exchange, key, own == null ? props : own, body, FRAME_MAX);
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            frames.writeTo(new DataOutputStream(got));
            assertEquals(want.size(), frames.size());
            assertArrayEquals(want.toByteArray(), got.toByteArray());
            frames.discard(); // none of it goes to the broker
            assertEquals(0, frames.size());
        }
    }

    @Test
    @SuppressWarnings("deprecation") // useNio(): amqp-client 5.37 deprecates NIO mode, which applications still use
    void notOfferedOverNio() throws IOException, java.util.concurrent.TimeoutException {
        ConnectionFactory nio = BROKER.factory().clone();
        nio.useNio();
        try (Connection c = nio.newConnection("nio")) {
            assertNull(FrameBatch.of(c, MessageProperties.MINIMAL_BASIC), "NIO queues frames: basicPublish there");
        }
    }
}
