package org.ysuite.amqp;

/**
 * One channel's outstanding messages, by delivery tag: which writer each belongs to and what the
 * broker said of it, in a ring as large as the confirm window (a power of two), so that tracking
 * allocates nothing. A publisher has one ledger per channel ({@link PublisherLane}), and each writer
 * publishes through one of them only. Tags are {@code 1, 2, 3, ...}: the publisher's thread is the
 * channel's only publisher, and the channel is in confirm mode from its start; after a reconnection
 * the new channel's delivery tags restart at 1 and {@link PublisherLane} adds its base (this
 * ledger's last tag when it opened, every tag up to it settled) to them.
 *
 * <p>Threads: the publisher's thread {@link #record records} tags; the settling methods run under
 * this object's lock: the connection's thread ({@link #answer}, {@link #returned}) while the channel
 * is up, and the publisher's thread ({@link #settleAll}) once it is down. The lock (taken once per
 * confirm, never on an application thread) keeps a late confirm from racing the final settle: after
 * {@code settleAll} every tag is settled and a later answer finds nothing to do. Ordering: {@link #record} writes the slot,
 * then the volatile {@link #published}; the broker can answer a tag only after it was published, so
 * the settler's volatile read of {@code published} (at least that tag) sees the slot. The settler
 * clears a slot before its volatile write of {@link #settled}; the publisher reuses a slot only
 * for a tag at most {@code settled + capacity}, read from that volatile, so it sees the slot clear.
 * Settling is in tag order, so each writer learns its fates in its own order.
 */
final class ConfirmLedger {

    private static final byte PENDING = 0;
    private static final byte ACKED = 1;
    private static final byte NACKED = 2;
    private static final byte RETURNED_BIT = 4;

    private final int mask;
    private final PublisherWriter[] writerOf;
    private final byte[] state;

    /** The last tag recorded; written by the publisher's thread only. */
    private volatile long published;
    /** Every tag up to this one is settled; written by the settling thread only. */
    private volatile long settled;

    ConfirmLedger(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.mask = capacity - 1;
        this.writerOf = new PublisherWriter[capacity];
        this.state = new byte[capacity];
    }

    /** Publisher: how many more tags fit in the window now. */
    int room() {
        return writerOf.length - (int) (published - settled);
    }

    /** Publisher: the last tag recorded. */
    long published() {
        return published;
    }

    /** Any thread: tags published and not settled yet. */
    long outstanding() {
        return published - settled;
    }

    /** Publisher: records the next tag, before it is published; the caller checked {@link #room()}. */
    long record(PublisherWriter writer) {
        long tag = published + 1;
        int slot = (int) tag & mask;
        writerOf[slot] = writer;
        state[slot] = PENDING;
        published = tag; // release: the slot is visible to whoever sees this tag
        return tag;
    }

    /** Settler: the broker's basic.ack or basic.nack. */
    synchronized void answer(long tag, boolean multiple, boolean ack) {
        long top = published; // acquire: the slots up to it are visible
        long last = Math.min(tag, top); // a tag beyond it would be the broker's error
        byte answer = ack ? ACKED : NACKED;
        if (multiple) {
            for (long t = settled + 1; t <= last; t++) {
                mark(t, answer);
            }
        } else if (tag > settled && tag <= last) {
            mark(tag, answer);
        }
        // Up to the top, not the tag: an answer that closes a gap (single acks out of order, as
        // Broker-J sends them) also settles the later tags answered before it.
        advance(top, false);
    }

    /** Settler: a basic.return of the message published with {@code tag}; its ack follows. */
    synchronized void returned(long tag) {
        if (tag > settled && tag <= published) {
            state[(int) tag & mask] |= RETURNED_BIT;
        }
    }

    /**
     * Publisher, once the channel is down: settles every outstanding tag, as the broker answered
     * or {@link Fate#LOST}.
     */
    synchronized void settleAll() {
        advance(published, true);
    }

    private void mark(long tag, byte answer) {
        int slot = (int) tag & mask;
        if ((state[slot] & (ACKED | NACKED)) == 0) {
            state[slot] |= answer;
        }
    }

    private void advance(long last, boolean lost) {
        long t = settled;
        while (t < last) {
            int slot = (int) (t + 1) & mask;
            byte s = state[slot];
            Fate fate;
            if ((s & ACKED) != 0) {
                fate = (s & RETURNED_BIT) != 0 ? Fate.RETURNED : Fate.CONFIRMED;
            } else if ((s & NACKED) != 0) {
                fate = Fate.NACKED;
            } else if (lost) {
                fate = Fate.LOST;
            } else {
                break; // a gap: an earlier tag is still unanswered
            }
            PublisherWriter writer = writerOf[slot];
            writerOf[slot] = null;
            state[slot] = PENDING;
            t++;
            writer.settle(fate);
        }
        settled = t; // release: the cleared slots may be reused
    }
}
