package org.ysuite;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A {@link YPipe}'s store: the chain of fixed-size chunks (libzmq's yqueue) that the writer
 * fills at its back and the reader drains at its front, the moves from chunk to chunk, and the
 * nulling of consumed slots. The positions and the protocol on {@code c} are in
 * {@link PipeProtocol}; the fields' cache-line layout is in YPipeFields.
 *
 * @param <T> the type of the items
 */
abstract class YPipeChunks<T> extends YPipeSides {

    /** Writer: stores an item at the back and moves f past it if it is complete. */
    final void store(T value, boolean incomplete) {
        // Plain store: published to the reader by the release of c in flush().
        try {
            backChunk.items[backPos] = value;
        } catch (ArrayIndexOutOfBoundsException | NullPointerException e) {
            // Two writers on the fast path (no signal) set no mark for advanceBack's check to see.
            throw secondThread(ThreadCheck.busyWriter(null, "write"), e);
        }
        backChunk.incomplete[backPos] = incomplete; // writer-only: lets unwrite() rewind f
        tail++;
        if (++backPos == backChunk.items.length) {
            advanceBack();
        }
        if (!incomplete) {
            f = tail;
        }
    }

    /** Writer: takes back the item stored last, unless it is flushed ({@code null} then). */
    final T unstore() {
        if (tail == w) {
            return null;
        }
        if (backPos == 0) {
            retreatBack();
        }
        backPos--;
        tail--;
        @SuppressWarnings("unchecked")
        T value = (T) backChunk.items[backPos];
        backChunk.items[backPos] = null;
        if (f > tail) {
            rewindF();
        }
        return value;
    }

    /**
     * A complete item was taken back: f moves to the end of the last complete item still
     * written, skipping back over the incomplete items before it (never below w).
     */
    private void rewindF() {
        f = tail;
        Chunk chunk = backChunk;
        int slot = backPos;
        while (f > w) {
            if (slot == 0) {
                chunk = chunk.prev; // holds item f - 1 >= w: the reader has not reached it
                slot = chunk.items.length;
            }
            slot--;
            if (!chunk.incomplete[slot]) {
                return;
            }
            f--;
        }
    }

    /** Writer: moves to a fresh chunk, reusing a drained one when the reader has returned any. */
    private void advanceBack() {
        Thread inside = writerInside; // once per chunk: another writer thread inside its signal?
        if (inside != null && inside != Thread.currentThread()) {
            throw ThreadCheck.busyWriter(inside, "write");
        }
        Chunk next = freeChunks;
        if (next == null) {
            // Acquire: the reader's release in recycle() published its last reads of (and nulls
            // in) these chunks, so our writes to them cannot be seen by those reads.
            next = takeSpares();
        }
        if (next == null) {
            next = new Chunk(backChunk.items.length);
        } else {
            freeChunks = next.next;
        }
        next.next = null;
        next.prev = backChunk;
        // Plain: the reader follows this link only to reach items of a later flush, which
        // publishes it.
        backChunk.next = next;
        backChunk = next;
        backPos = 0;
    }

    /** Writer: unwrite crossed to the previous chunk; keep the emptied one for the next advance. */
    private void retreatBack() {
        Chunk gone = backChunk;
        // gone.prev holds items >= w, so the reader has never reached gone (and never wrote it).
        backChunk = gone.prev;
        backChunk.next = null;
        gone.prev = null;
        gone.next = freeChunks;
        freeChunks = gone;
        backPos = backChunk.items.length;
    }

    /** Takes the item at front; the caller knows it has been prefetched. */
    @SuppressWarnings("unchecked")
    final T take() {
        Object[] items;
        T value;
        try {
            items = frontChunk.items;
            value = (T) items[frontPos];
        } catch (ArrayIndexOutOfBoundsException | NullPointerException e) {
            // Two readers on the fast path (no wait, no handler) set no mark for a check to see.
            throw secondThread(ThreadCheck.overlappedReader(null), e);
        }
        // The slot is not nulled here: that store would land on the cache line the writer is
        // filling. Consumed slots are nulled in bulk when the reader sleeps or leaves the chunk.
        front++;
        if (++frontPos == items.length) {
            advanceFront();
        }
        return value;
    }

    /**
     * Hands every prefetched item to {@code handler}, a chunk's run at a time: the positions live
     * in locals while the handler runs and are stored back on the way out (also when the handler
     * throws: the item it was given counts as read).
     */
    @SuppressWarnings("unchecked")
    final int drainPrefetched(Consumer<? super T> handler) {
        final long start = front;
        final long end = r;
        long at = start; // position of items[pos]
        int pos = frontPos;
        // Reader-owned plain field: a handler that read on would move front past end, and this
        // loop would walk into unflushed slots. A plain store per batch, not per item. (In
        // checked mode the side is marked already, by the call that holds it.)
        if (!ThreadCheck.CHECKED) {
            readerInside = Thread.currentThread();
        }
        try {
            while (at != end) {
                Object[] items = frontChunk.items;
                int stop = (int) Math.min(items.length, pos + (end - at));
                while (pos < stop) {
                    T value = (T) items[pos++];
                    at++;
                    handler.accept(value);
                }
                if (pos == items.length) {
                    advanceFront(); // reads neither front nor frontPos; the finally stores them
                    pos = 0;
                }
            }
        } finally {
            front = at;
            frontPos = pos;
            if (pos == frontChunk.items.length) {
                advanceFront(); // the handler threw on a chunk's last item
            }
            if (!ThreadCheck.CHECKED) {
                readerInside = null;
            }
        }
        return (int) (at - start);
    }

    /** Reader: the front chunk is drained; move on and give the drained chunk back to the writer. */
    private void advanceFront() {
        Thread inside = readerInside; // once per chunk: another reader thread inside its wait?
        if (inside != null && inside != Thread.currentThread()) {
            throw ThreadCheck.busyReader(inside, "read");
        }
        Chunk drained = frontChunk;
        if (drained.next == null) {
            // One reader never passes the last flushed item, which lies in a later chunk: another
            // reader thread moved the positions (see Misuse).
            throw ThreadCheck.overlappedReader(null);
        }
        // No reference kept alive by a drained chunk (a spare, or garbage): null what is left.
        try {
            Arrays.fill(drained.items, clearedPos, drained.items.length, null);
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            // clearedPos past the end: the other reader moved it on the fast path, unmarked.
            throw secondThread(ThreadCheck.overlappedReader(null), e);
        }
        clearedPos = 0;
        frontChunk = drained.next;
        // The writer reads prev only to unwrite across a chunk edge, which never reaches back
        // into items the reader has consumed; dropping it keeps drained chunks unlinked.
        frontChunk.prev = null;
        frontPos = 0;
        recycle(drained);
    }

    /**
     * Reader, going to sleep: nulls the front chunk's slots consumed since the last time, so a
     * sleeping reader keeps no consumed item alive. The writer never writes below frontPos in
     * the front chunk (those slots are consumed, and it reuses the chunk only after the reader
     * recycled it), so these plain stores race with nothing.
     */
    final void releaseConsumed() {
        if (clearedPos < frontPos) {
            try {
                Arrays.fill(frontChunk.items, clearedPos, frontPos, null);
            } catch (IndexOutOfBoundsException | NullPointerException e) {
                // frontPos past the end: moved by another reader's fast path, which sets no mark.
                throw secondThread(ThreadCheck.overlappedReader(null), e);
            }
            clearedPos = frontPos;
        }
    }

    /**
     * Positions past a chunk's end or a chunk gone: impossible for one thread per side, so two
     * threads moved them (see Misuse). The JVM's own bounds and null checks find it, so this
     * costs no instruction while the pipe is used right.
     */
    private static IllegalStateException secondThread(IllegalStateException e, RuntimeException cause) {
        e.initCause(cause);
        return e;
    }

    @Override
    final long itemsBetween(long from, long to) {
        return to - from;
    }

    /** One chunk of the store; {@code next} links the queue, or the spare list once drained. */
    static final class Chunk {
        final Object[] items;
        final boolean[] incomplete; // writer-only: was items[i] written incomplete?
        Chunk next;
        Chunk prev;
        int spares; // length of the spare list from this chunk on (reader-written)

        Chunk(int size) {
            items = new Object[size];
            incomplete = new boolean[size];
        }
    }
}
