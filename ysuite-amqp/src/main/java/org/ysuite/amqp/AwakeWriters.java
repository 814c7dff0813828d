package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.ysuite.MessageHandler;

/**
 * The writers that woke the publisher's thread and have not been read empty since, and the reading
 * of their pipes: the publisher's thread's own (no field is shared; each writer's pipe is read by
 * this thread only).
 *
 * <p>A writer stays on the list until a read finds its pipe empty, which puts the pipe's reader to
 * sleep: the writer's next flush then wakes the publisher's thread, which adds it again. A writer
 * whose channel's confirm window is full is passed over, not read, and stays on the list: a confirm
 * on that channel lets it on.
 *
 * <p>Each turn takes up to {@link #PER_TURN} messages from a writer in one
 * {@link org.ysuite.OffHeapYPipe#readBatch(MessageHandler, int) readBatch}, so that a writer whose
 * pipe is full (the broker is slower than the writers) is woken once per turn, not once per
 * message: a wake-up is a system call on this thread and on the writer's, and on a machine whose
 * cores the broker needs as well, what they cost the publisher comes out of the broker's share.
 * 64 cost the client less CPU per message than 16 and than 256 with four writers on both brokers
 * ({@code ysuite-bench/amqp-cpu.sh}; docs/amqp-results.md); within a batch ({@code maxBatch}, 256 by
 * default) four full writers still take turns.
 */
final class AwakeWriters {

    /** The most messages a turn takes from one writer. */
    static final int PER_TURN = 64;

    private PublisherWriter[] awake = new PublisherWriter[4];
    /** How many writers are on the list. */
    int count;
    private final byte[] scratch;
    private final Take take = new Take();

    AwakeWriters(int maxRecord) {
        this.scratch = new byte[maxRecord];
    }

    void add(PublisherWriter w) {
        if (!w.onActiveList) {
            w.onActiveList = true;
            if (count == awake.length) {
                awake = Arrays.copyOf(awake, count * 2);
            }
            awake[count++] = w;
        }
    }

    /**
     * Publishes on {@code l}, one message per awake writer in turn, each on its own lane, until
     * nothing more is waiting on a channel with room, {@code maxBatch} went out, or the link is
     * blocked or down.
     *
     * @return how many messages were published
     */
    int publish(PublisherLink l, int maxBatch, AMQP.BasicProperties properties) {
        int n = 0;
        while (n < maxBatch) {
            int before = n;
            for (int i = 0; i < count && n < maxBatch; ) {
                if (l.blocked || l.down) {
                    return n;
                }
                PublisherWriter w = awake[i];
                PublisherLane lane = l.lanes[w.lane];
                int room = lane.ledger.room(); // one volatile read of the ledger's settled per turn
                if (room == 0) {
                    i++; // its channel's window is full: it waits, the writers of other channels go on
                    continue;
                }
                take.set(l, w, lane, properties);
                int taken = w.pipe.readBatch(take, Math.min(PER_TURN, Math.min(room, maxBatch - n)));
                if (taken == 0) {
                    drop(i); // empty: its reader is asleep, its next flush wakes this thread
                    continue;
                }
                n += taken;
                i++;
            }
            if (n == before) {
                break;
            }
        }
        return n;
    }

    /**
     * After a round that published nothing: whether the channel of some awake writer has room for
     * {@code least} messages now.
     * Reads each ledger's volatile {@code settled} (the publisher's side of its Dekker with the
     * confirm listeners).
     */
    boolean roomForAny(ConfirmLedger[] ledgers, int least) {
        for (int i = 0; i < count; i++) {
            if (ledgers[awake[i].lane].room() >= least) {
                return true;
            }
        }
        return false;
    }

    /**
     * After the link is down for good (every ledger settled): settles every record still in an
     * awake writer's buffer as lost.
     *
     * @return how many were settled
     */
    int drainLost() {
        int n = 0;
        for (int i = 0; i < count; ) {
            PublisherWriter w = awake[i];
            if (w.pipe.read(scratch) < 0) {
                drop(i);
                continue;
            }
            w.settle(Fate.LOST);
            n++;
        }
        return n;
    }

    /**
     * One turn's handler: publishes each record handed over on the turn's lane (see
     * {@link PublisherLane#publish}). A record handed over after the link went down is recorded,
     * not sent: the loss settles it as {@code LOST}, with the link's other outstanding messages,
     * and the link's metrics count it as a failed publish.
     */
    private final class Take implements MessageHandler {
        private PublisherLink link;
        private PublisherWriter writer;
        private PublisherLane lane;
        private AMQP.BasicProperties properties;

        void set(PublisherLink link, PublisherWriter writer, PublisherLane lane, AMQP.BasicProperties properties) {
            this.link = link;
            this.writer = writer;
            this.lane = lane;
            this.properties = properties;
        }

        @Override
        public void onMessage(ByteBuffer buffer, int offset, int length) {
            if (link.down) {
                lane.ledger.record(writer);
                if (link.metrics != null) {
                    lane.unreported++; // told as a failed publish at the batch's end
                }
                return;
            }
            lane.publish(writer, buffer, offset, length, scratch, properties);
        }
    }

    private void drop(int i) {
        awake[i].onActiveList = false;
        awake[i] = awake[--count];
        awake[count] = null;
    }
}
