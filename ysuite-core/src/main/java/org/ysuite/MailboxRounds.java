package org.ysuite;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The reader's side of a {@link YMailbox}: which pipes a round visits. A round visits the pipes
 * left awake by the last round and the pipes of the ids fired since (each once, by writer index),
 * and nothing else; it clears only the ids that fired. Every field is owned by the reader thread.
 * As an {@link IntConsumer} it takes the fired ids from the signaler's {@code check}/{@code poll}.
 */
final class MailboxRounds implements IntConsumer {

    private final boolean[] fired;          // fired[id]: id is in firedIds
    private final int[] firedIds;           // the ids fired since the last round
    private int firedCount;
    private Thread drainer;                 // the thread running a handler, else null: see requireNotDraining
    private int[] awakeList = new int[0];   // writer indexes whose pipe was left awake
    private int awakeCount;
    private int[] nextAwake = new int[0];
    private int[] visitedIn = new int[0];   // the round that last visited writer i
    private int round;
    private int[][] writersOf = new int[0][]; // writer indexes per signal id
    private int known;                      // writers the arrays cover

    MailboxRounds(int capacity) {
        fired = new boolean[capacity];
        firedIds = new int[capacity];
    }

    /** True if no pipe was left awake: only a signal can bring news. */
    boolean noneAwake() {
        return awakeCount == 0;
    }

    @Override
    public void accept(int id) {
        if (!fired[id]) {
            fired[id] = true;
            firedIds[firedCount++] = id;
        }
    }

    /**
     * One round: one batch from each pipe left awake and each pipe of a fired id, each visited
     * once. {@code sleep}: a pipe found empty goes to sleep (its next flush fires its id) and
     * leaves the awake list; otherwise it stays awake, and listed.
     */
    @SuppressWarnings("unchecked")
    <T> int drain(YMailbox.Writer<?>[] ws, Consumer<? super T> handler, boolean sleep) {
        requireNotDraining();
        if (ws.length != known) {
            cover(ws);
        }
        int stamp = ++round;
        int n = 0;
        int next = 0;
        boolean done = false;
        drainer = Thread.currentThread(); // a plain store per round, not per message
        try {
            for (int k = 0; k < awakeCount; k++) {
                int i = awakeList[k];
                visitedIn[i] = stamp;
                int got = read((YMailbox.Writer<T>) ws[i], handler, sleep);
                n += got;
                if (got > 0 || !sleep) {
                    nextAwake[next++] = i;
                }
            }
            for (int f = 0; f < firedCount; f++) {
                for (int i : writersOf[firedIds[f]]) {
                    if (visitedIn[i] != stamp) {
                        visitedIn[i] = stamp;
                        int got = read((YMailbox.Writer<T>) ws[i], handler, sleep);
                        n += got;
                        if (got > 0 || !sleep) {
                            nextAwake[next++] = i;
                        }
                    }
                }
            }
            done = true;
        } finally {
            for (int f = 0; f < firedCount; f++) {
                fired[firedIds[f]] = false;
            }
            firedCount = 0;
            if (done) {
                int[] t = awakeList;
                awakeList = nextAwake;
                nextAwake = t;
                awakeCount = next;
            } else {
                // The handler threw mid-round: the pipe it came from still holds prefetched
                // messages and will not signal. Visit every pipe next round.
                visitAllNext(ws);
            }
            drainer = null;
        }
        return n;
    }

    /**
     * Refuses a reader call while a handler runs: a re-entrant call from the handler, or a second
     * reader thread. The second thread sees {@code drainer} when the handler it overlaps has
     * published anything to it (a latch, a queue), which is how a blocked handler shows; two
     * readers racing with no such edge may go unseen (see {@link YMailbox}'s Misuse).
     */
    void requireNotDraining() {
        Thread inside = drainer;
        if (inside == null) {
            return;
        }
        if (inside == Thread.currentThread()) {
            throw new IllegalStateException("YMailbox.check/poll called from inside its own handler:"
                    + " the reader is in use by that drain (re-entrant reads are not supported)");
        }
        throw new IllegalStateException("a YMailbox has one reader thread at a time: " + inside
                + " is running a handler, so " + Thread.currentThread() + " may not check or poll now");
    }

    private static <T> int read(YMailbox.Writer<T> w, Consumer<? super T> handler, boolean sleep) {
        return sleep ? w.pipe.readBatch(handler) : w.pipe.readBatchAwake(handler);
    }

    /** The next round visits every pipe (asleep ones answer 0 and stay asleep). */
    void visitAllNext(YMailbox.Writer<?>[] ws) {
        if (ws.length != known) {
            cover(ws);
        }
        for (int i = 0; i < ws.length; i++) {
            awakeList[i] = i;
        }
        awakeCount = ws.length;
    }

    /** Grows the reader-owned arrays to cover {@code ws}, and indexes writers by signal id. */
    private void cover(YMailbox.Writer<?>[] ws) {
        int count = ws.length;
        awakeList = Arrays.copyOf(awakeList, count); // new pipes start asleep: not listed
        nextAwake = new int[count];
        visitedIn = Arrays.copyOf(visitedIn, count);
        int[] perId = new int[fired.length];
        for (YMailbox.Writer<?> w : ws) {
            perId[w.id]++;
        }
        int[][] byId = new int[fired.length][];
        for (int id = 0; id < byId.length; id++) {
            byId[id] = new int[perId[id]];
            perId[id] = 0;
        }
        for (int i = 0; i < count; i++) {
            int id = ws[i].id;
            byId[id][perId[id]++] = i;
        }
        writersOf = byId;
        known = count;
    }
}
