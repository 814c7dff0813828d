package org.ysuite.amqp;

import com.rabbitmq.client.AMQP;
import java.util.Arrays;

/**
 * The writers that woke the publisher's thread and have not been read empty since, and the reading
 * of their pipes: the publisher's thread's own (no field is shared; each writer's pipe is read by
 * this thread only).
 *
 * <p>A writer stays on the list until a read finds its pipe empty, which puts the pipe's reader to
 * sleep: the writer's next flush then wakes the publisher's thread, which adds it again. A writer
 * whose channel's confirm window is full is passed over, not read, and stays on the list: a confirm
 * on that channel lets it on.
 */
final class AwakeWriters {

    private PublisherWriter[] awake = new PublisherWriter[4];
    /** How many writers are on the list. */
    int count;
    private final byte[] scratch;

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
                if (lane.ledger.room() == 0) {
                    i++; // its channel's window is full: it waits, the writers of other channels go on
                    continue;
                }
                int length = w.pipe.read(scratch);
                if (length < 0) {
                    drop(i); // empty: its reader is asleep, its next flush wakes this thread
                    continue;
                }
                lane.publish(w, scratch, length, properties);
                n++;
                i++;
            }
            if (n == before) {
                break;
            }
        }
        return n;
    }

    /**
     * After a round that published nothing: whether the channel of some awake writer has room now.
     * Reads each ledger's volatile {@code settled} (the publisher's side of its Dekker with the
     * confirm listeners).
     */
    boolean roomForAny(ConfirmLedger[] ledgers) {
        for (int i = 0; i < count; i++) {
            if (ledgers[awake[i].lane].room() > 0) {
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

    private void drop(int i) {
        awake[i].onActiveList = false;
        awake[i] = awake[--count];
        awake[count] = null;
    }
}
