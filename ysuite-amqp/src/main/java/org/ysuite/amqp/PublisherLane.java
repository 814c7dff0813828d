package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ReturnListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One confirm-mode channel of a {@link PublisherLink}, with the {@link ConfirmLedger} its delivery
 * tags go to. A publisher with {@code channels(n)} has {@code n} ledgers for its whole life and, on
 * each link, {@code n} lanes: lane {@code i} of every link records in ledger {@code i}. Each writer
 * is pinned to one lane index ({@link PublisherWriter#lane}), so all of a writer's messages go
 * through one channel and one ledger, which settles in tag order: the writer's fates stay in its
 * sequence order, and one lane's settler (under its ledger's lock) is the only thread that settles
 * that writer's messages.
 *
 * <p>Delivery tags restart at 1 on each channel, the ledger's tags do not: this channel's tag
 * {@code t} is the ledger's {@code base + t}, {@code base} being the ledger's last tag when the
 * channel opened (every earlier tag settled then). A late confirm of an earlier link's channel maps
 * to a tag at most that channel's last, which is settled already: the ledger ignores it. A
 * {@code basic.return} comes on the channel that published the message, so its tag header (the
 * ledger's tag) is looked up in this lane's ledger only: the right writer's message.
 *
 * <p>Threads: the fields the listeners read are final and set before the listeners are added;
 * amqp-client keeps its listeners in copy-on-write lists, so the connection's thread that calls a
 * listener sees them (the volatile array read after the add's write). The publisher's thread
 * creates the lane, is the only one to publish on its channel and the only one to touch
 * {@link #unreported}.
 */
final class PublisherLane {

    final Channel channel;
    final ConfirmLedger ledger;
    /** The ledger's tag before this channel's first delivery tag. */
    final long base;
    private final PublisherLink link;
    /**
     * Messages of the batch at hand whose frames joined the link's {@link FrameBatch}, not yet told
     * to the link's {@code MetricsCollector}: {@link PublisherLink#endBatch} tells it once it knows
     * whether the batch reached the socket. Counted only where the link has a collector.
     */
    int unreported;

    PublisherLane(PublisherLink link, Channel channel, ConfirmLedger ledger, AmqpPublisher publisher)
            throws IOException {
        this.link = link;
        this.channel = channel;
        this.ledger = ledger;
        this.base = ledger.published();
        selectConfirms(channel);
        channel.addConfirmListener(new ConfirmListener() {
            @Override
            public void handleAck(long deliveryTag, boolean multiple) {
                publisher.answered(ledger, base + deliveryTag, multiple, true);
            }

            @Override
            public void handleNack(long deliveryTag, boolean multiple) {
                publisher.answered(ledger, base + deliveryTag, multiple, false);
            }
        });
        channel.addReturnListener((ReturnListener) this::returned);
    }

    /**
     * Puts {@code channel} in confirm mode by sending {@code confirm.select} itself rather than by
     * {@code Channel.confirmSelect()}: that one also makes amqp-client record every published tag in
     * a synchronized {@code TreeSet} and remove it on each ack, for {@code waitForConfirms}, which the
     * publisher never calls (its ledger keeps the tags). The channel's delivery tags and its acks
     * are the same either way; only that bookkeeping, a lock and a tree node per message on the
     * publisher's thread and on the connection's, is left out.
     */
    static void selectConfirms(Channel channel) throws IOException {
        Method reply = channel.rpc(new AMQP.Confirm.Select.Builder().build()).getMethod();
        if (!(reply instanceof AMQP.Confirm.SelectOk)) {
            throw new IOException("confirm.select answered with " + reply.protocolMethodName());
        }
    }

    /**
     * Publisher's thread: publishes the record of {@code length} bytes at {@code at} in
     * {@code record} (see {@link PublisherWriter}) for writer {@code w}, recorded in this lane's
     * ledger; the caller checked the ledger's room. The record's frames join the link's batch
     * ({@link FrameBatch}), or, where the link has none or the broker has stopped this channel's
     * flow, go through {@code basicPublish} (the record copied into {@code scratch} first, and the
     * batch written before it, so that the channel's messages keep their order). A failure takes
     * the whole link down.
     */
    void publish(PublisherWriter w, ByteBuffer record, int at, int length, byte[] scratch,
                 AMQP.BasicProperties properties) {
        boolean mandatory = record.get(at) != 0;
        long tag = ledger.record(w); // before the publish: a confirm may come at once
        AMQP.BasicProperties tagged = mandatory ? tagged(properties, tag) : null;
        FrameBatch frames = link.frames;
        try {
            if (frames != null && !FrameBatch.flowBlocked(channel)) {
                if (link.metrics != null) {
                    unreported++; // told as published or failed at the batch's end
                }
                if (!channel.isOpen()) {
                    link.failed("publishing failed: the channel is closed: " + channel.getCloseReason());
                    return;
                }
                frames.publish(channel.getChannelNumber(), record, at, length, tagged);
                return;
            }
            if (frames != null) {
                frames.write();
            }
            record.get(at, scratch, 0, length);
            int exchangeLength = scratch[1] & 0xFF;
            String exchange = w.exchange(scratch, 2, exchangeLength);
            int keyAt = 2 + exchangeLength;
            int keyLength = scratch[keyAt] & 0xFF;
            String routingKey = w.routingKey(scratch, keyAt + 1, keyLength);
            byte[] body = Arrays.copyOfRange(scratch, keyAt + 1 + keyLength, length);
            channel.basicPublish(exchange, routingKey, mandatory, tagged == null ? properties : tagged, body);
        } catch (IOException | RuntimeException e) {
            link.failedWriting(e); // settled as lost from the next round on
        }
    }

    private static AMQP.BasicProperties tagged(AMQP.BasicProperties properties, long tag) {
        Map<String, Object> headers = properties.getHeaders() == null
                ? new HashMap<>() : new HashMap<>(properties.getHeaders());
        headers.put(AmqpPublisher.TAG_HEADER, tag);
        return properties.builder().headers(headers).build();
    }

    /** A {@code basic.return}: its tag header (this ledger's tag) ties it to the message, whose ack follows it. */
    private void returned(int replyCode, String replyText, String exchange, String routingKey,
                          AMQP.BasicProperties props, byte[] body) {
        Map<String, Object> headers = props.getHeaders();
        Object tag = headers == null ? null : headers.get(AmqpPublisher.TAG_HEADER);
        if (tag instanceof Number) {
            ledger.returned(((Number) tag).longValue());
        }
    }
}
