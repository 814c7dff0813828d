// The public API with its javadoc, and each public call beside its checked-mode twin
// (ThreadCheck: the twin must sit beside the call so that a constant false drops it). The
// chunked store is in YPipeChunks, the side marks in YPipeSides, the cache-line layout of the
// fields in YPipeFields.
package org.ysuite;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.ysuite.internal.event.WakeupEvent;

/**
 * A lock-free, wait-free pipe of references from one writer thread to one reader thread, with
 * <em>passive synchronisation</em>: ØMQ's ypipe (libzmq {@code src/ypipe.hpp}) over an unbounded
 * store of fixed-size chunks (libzmq's yqueue).
 *
 * <h2>Protocol</h2>
 * The writer owns three positions and the reader one; one word, {@code c}, is shared:
 * <pre>
 *   w  (writer)  first item not yet flushed
 *   f  (writer)  end of the last complete item; incomplete items are never flushed
 *   r  (reader)  end of what the reader has prefetched
 *   c  (shared)  end of the last flush, or ASLEEP: the reader found nothing and went to sleep
 * </pre>
 * {@link #flush()} moves {@code c} from {@code w} to {@code f} with one CAS; the CAS fails only when
 * the reader has swapped {@code c} to ASLEEP, and then {@code flush} returns {@code false}: the
 * caller must wake the reader (a {@link Signaler}). {@link #checkRead()} swaps {@code c} to ASLEEP
 * when it finds nothing new, so a wake-up is sent only on the one flush that finds the reader asleep
 * and at most one signal per pipe is ever outstanding.
 *
 * <h2>Usage</h2>
 * <pre>{@code
 * // writer                                   // reader
 * pipe.write(msg);                            for (;;) {
 * if (!pipe.flush()) semaphore.signal(0);         T msg = pipe.read();
 *                                                 if (msg == null) { semaphore.await(); continue; }
 *                                                 handle(msg);
 *                                             }
 * }</pre>
 * The reader that got {@code null} (or {@code 0} from {@link #readBatch}) must wait for the signal
 * before it trusts the pipe to be empty; the writer must signal whenever {@code flush} returns
 * {@code false}. Items written with {@code incomplete = true} travel together with the next complete
 * item (a multipart message is delivered whole or not at all).
 *
 * <p>Exactly one thread may act as the writer ({@code write}, {@code unwrite}, {@code flush}) and
 * one as the reader ({@code checkRead}, {@code read}, {@code readBatch}, {@code readBatchAwake},
 * {@code probe}) at a time; handing a side to another thread needs its own happens-before edge.
 * Every operation is wait-free: a bounded number of steps and at most one atomic instruction on
 * {@code c}.
 *
 * <h2>Misuse</h2>
 * A second reader thread, or a second writer thread, is refused with
 * {@link IllegalStateException} ("... has one reader thread at a time: ...") where the check
 * costs nothing: a reader call made while another thread runs a {@code readBatch} handler (or a
 * {@code probe} predicate) on this pipe, or made from inside one; a reader call, or a move to
 * the next chunk, while another reader thread spins before it sleeps (the reader's slow path); a
 * move to the next chunk while another thread is the writer inside its signal (a
 * {@link YMailbox.Writer}); a {@code flush()} that finds the pipe flushed by another thread (where
 * its atomic instruction fails anyway). So two reader threads are caught eventually, once one
 * finds the pipe empty while the other reads, but not at once: until then items may be lost,
 * delivered twice or delivered as {@code null}, and a call may fail with another exception.
 * Checking every call would cost an atomic instruction per call, as much again as the pipe's own
 * work.
 *
 * <p>For tests, {@code -Dysuite.checkThreads=true} (read once, when the pipe classes load) turns
 * on the checked mode: every call of either side marks its side with a compare-and-set, and a
 * second thread entering a side that another thread is inside is refused at once, before it
 * touches anything. A side handed from one thread to another through a happens-before edge (a
 * lock, a queue, a thread start) is fine in either mode. For many writers use a {@link YMailbox}
 * (a pipe per writer thread); for many readers, another queue.
 *
 * <h2>Memory</h2>
 * The reader nulls the slots it consumed in bulk, when it goes to sleep and when it leaves a
 * chunk, so at most one chunk's worth of consumed items stays reachable while it keeps reading.
 * Chunks drained by the reader are handed back to the writer for reuse (up to
 * {@value #MAX_SPARE_CHUNKS} of them), so a pipe in steady state allocates nothing per message.
 *
 * @param <T> the type of the items; {@code null} is not an item
 */
public final class YPipe<T> extends YPipeChunks<T> {

    /** Default number of items per chunk of the store (libzmq's granularity). */
    public static final int DEFAULT_CHUNK_SIZE = 256;

    /** Largest chunk size accepted by {@link #YPipe(int)}. */
    public static final int MAX_CHUNK_SIZE = 1 << 20;

    /** Most drained chunks kept for reuse; beyond that the reader lets them go to the GC. */
    static final int MAX_SPARE_CHUNKS = 64;

    /** The user's name for the pipe in events, or null (see {@link #named}). */
    private volatile String name;

    /** Creates a pipe with {@value #DEFAULT_CHUNK_SIZE} items per chunk; the reader starts awake. */
    public YPipe() {
        this(DEFAULT_CHUNK_SIZE);
    }

    /**
     * Creates a pipe whose store grows and shrinks by chunks of {@code chunkSize} items; the reader
     * starts awake (the first flush does not ask for a signal).
     *
     * @param chunkSize items per chunk, {@code 1 <= chunkSize <= MAX_CHUNK_SIZE}
     * @throws IllegalArgumentException if {@code chunkSize} is out of range
     */
    public YPipe(int chunkSize) {
        this(chunkSize, false, WaitPolicy.defaultPolicy());
    }

    /**
     * Creates a pipe whose reader, finding nothing new, spins as {@code readerPolicy} says
     * before it goes to sleep; the reader starts awake.
     *
     * <p>While the reader spins it is awake: the writer's flushes succeed without a signal, and
     * the reader picks their items up without any atomic instruction. Only a reader that spun
     * its whole limit swaps in "asleep" and makes the next flush ask for a signal. Use
     * {@link WaitPolicy#purePark()} for a reader whose {@link #read()} must answer at once (one
     * that polls many pipes, say).
     *
     * @param chunkSize items per chunk, {@code 1 <= chunkSize <= MAX_CHUNK_SIZE}
     * @param readerPolicy how long the reader spins before it sleeps
     * @throws IllegalArgumentException if {@code chunkSize} is out of range
     * @throws NullPointerException if {@code readerPolicy} is null
     */
    public YPipe(int chunkSize, WaitPolicy readerPolicy) {
        this(chunkSize, false, Objects.requireNonNull(readerPolicy, "readerPolicy"));
    }

    /**
     * Creates a pipe, optionally with the reader asleep from the start, so that the first flush
     * returns {@code false} (a {@link YMailbox} uses this: its reader cannot visit a pipe it has
     * not yet been told of), and with the reader's spin policy.
     */
    YPipe(int chunkSize, boolean readerAsleep, WaitPolicy readerPolicy) {
        if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
            throw new IllegalArgumentException(
                    "chunkSize must be in [1, " + MAX_CHUNK_SIZE + "]: " + chunkSize);
        }
        Chunk first = new Chunk(chunkSize);
        backChunk = first;
        frontChunk = first;
        initC(readerAsleep);
        this.readerPolicy = readerPolicy;
    }

    // ------------------------------------------------------------------------------------------
    // Writer
    // ------------------------------------------------------------------------------------------

    /**
     * Writes a complete item; it becomes visible to the reader at the next {@link #flush()}.
     *
     * @param value the item
     * @throws NullPointerException if {@code value} is null
     */
    public void write(T value) {
        write(value, false);
    }

    /**
     * Writes an item; it becomes visible to the reader at the next {@link #flush()} after the
     * item, or a later one, is written complete.
     *
     * @param value the item
     * @param incomplete {@code true} if more items of the same message follow: the item is held
     *     back from flushing until a complete item is written after it
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalStateException if another thread is found inside the writer side (see
     *     Misuse above)
     */
    public void write(T value, boolean incomplete) {
        Objects.requireNonNull(value, "value");
        if (ThreadCheck.CHECKED) {
            enterWriter("write");
            try {
                store(value, incomplete);
            } finally {
                leaveWriter();
            }
        } else {
            store(value, incomplete);
        }
    }

    /**
     * Takes back the item written last, if it has not been flushed yet (complete or not).
     *
     * @return the item taken back, or {@code null} if every written item has been flushed
     * @throws IllegalStateException in checked mode, if another thread is inside the writer side
     */
    public T unwrite() {
        if (ThreadCheck.CHECKED) {
            enterWriter("unwrite");
            try {
                return unstore();
            } finally {
                leaveWriter();
            }
        }
        return unstore();
    }

    /**
     * Names this pipe: the name appears in its Flight Recorder events (see
     * docs/observability.md), so that a recording tells them apart. Name it before handing it
     * to other threads, or their events may still carry the old name for a while.
     *
     * @param name the name
     * @return this pipe
     * @throws NullPointerException if {@code name} is null
     */
    public YPipe<T> named(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * Returns the name given by {@link #named(String)}.
     *
     * @return the name, or {@code null} if it has none
     */
    public String name() {
        return name;
    }

    /**
     * Returns a snapshot of this pipe's counters (see {@link PipeStats}): items flushed,
     * wake-ups asked for (flushes that returned {@code false}), and the depth, items flushed and
     * not yet read. Sleeps and writer waits are 0: the reader sleeps on your signaler (see its
     * events), and the store is unbounded. Any thread may call it; it allocates the snapshot and
     * nothing else.
     *
     * @return the counters
     */
    public PipeStats stats() {
        return new PipeStats(flushedCount(), wakeupsSent, 0, 0, 0, unreadCount());
    }

    /** Any thread: items flushed (the writer's plain {@code w}, read racily: a 64-bit long is never torn). */
    long flushedCount() {
        return w;
    }

    /** Any thread: items flushed and not yet read, approximately (two racy reads), never negative. */
    long unreadCount() {
        return Math.max(0, w - front);
    }

    /**
     * Makes every complete item written so far visible to the reader.
     *
     * @return {@code true} if the reader is awake (or nothing needed flushing); {@code false} if
     *     the reader had gone to sleep and must now be woken by a signal from the caller
     * @throws IllegalStateException if this flush finds that another thread has flushed the pipe
     *     (a second writer thread; see Misuse above), or in checked mode if another thread is
     *     inside the writer side
     */
    public boolean flush() {
        if (ThreadCheck.CHECKED) {
            enterWriter("flush");
            try {
                return publish();
            } finally {
                leaveWriter();
            }
        }
        return publish();
    }

    private boolean publish() {
        if (flushPositions()) {
            return true;
        }
        wakeupsSent++;
        WakeupEvent.emit("YPipe flush", name);
        return false;
    }

    // ------------------------------------------------------------------------------------------
    // Reader
    // ------------------------------------------------------------------------------------------

    /**
     * Tells whether an item can be read, prefetching every item flushed so far.
     *
     * <p>When nothing new was flushed, the reader first spins as its {@link WaitPolicy} allows
     * (the default policy unless the pipe was made with another). A {@code false} answer puts
     * the reader to sleep: the writer's next flush will ask for a signal, and the reader must
     * wait for it.
     *
     * @return {@code true} if {@link #read()} will return an item
     * @throws IllegalStateException if called from inside a {@link #readBatch} handler, or while
     *     another thread runs one (see Misuse above)
     */
    public boolean checkRead() {
        if (ThreadCheck.CHECKED) {
            enterReader("checkRead");
            try {
                return look();
            } finally {
                leaveReader();
            }
        }
        requireReaderFree("checkRead");
        return look();
    }

    /** {@link #checkRead()} once the side is checked. */
    private boolean look() {
        if (checkReadPositions()) {
            return true;
        }
        releaseConsumed();
        return false;
    }

    /**
     * Reads the next item.
     *
     * @return the item, or {@code null} if the pipe is empty: the reader is then asleep and must
     *     wait for the writer's signal before it trusts the pipe to be empty
     * @throws IllegalStateException if called from inside a {@link #readBatch} handler, or while
     *     another thread runs one (see Misuse above)
     */
    public T read() {
        if (ThreadCheck.CHECKED) {
            enterReader("read");
            try {
                return look() ? take() : null;
            } finally {
                leaveReader();
            }
        }
        requireReaderFree("read");
        return look() ? take() : null;
    }

    /**
     * Hands every prefetched item, or if there is none every item flushed so far, to
     * {@code handler}: consumer-side batching at the cost of at most one atomic instruction.
     *
     * @param handler called once per item, in order, on the calling (reader) thread; an exception
     *     from it propagates, and the item it was given counts as read. It must not read from
     *     this pipe itself ({@code read}, {@code readBatch}, {@code checkRead}, {@code probe}
     *     throw {@link IllegalStateException} while it runs, on any thread); writing to it is
     *     fine.
     * @return how many items were handed over; {@code 0} if the pipe is empty, which puts the
     *     reader to sleep exactly as {@link #read()} returning {@code null} does
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalStateException if called from inside a {@code readBatch} handler, or while
     *     another thread runs one (see Misuse above)
     */
    public int readBatch(Consumer<? super T> handler) {
        Objects.requireNonNull(handler, "handler");
        if (ThreadCheck.CHECKED) {
            enterReader("readBatch");
            try {
                return look() ? drainPrefetched(handler) : 0;
            } finally {
                leaveReader();
            }
        }
        requireReaderFree("readBatch");
        return look() ? drainPrefetched(handler) : 0;
    }

    /**
     * Like {@link #readBatch} but never spins and never puts the reader to sleep: {@code 0}
     * leaves the reader awake, so the writer's flushes keep returning {@code true} and nobody
     * signals. The caller must look again by itself, and end with {@link #readBatch} (or
     * {@link #checkRead}) when it means to sleep: a reader that polls between other work, such as
     * a {@link YMailbox} reader spinning over its awake pipes, or an event loop's task that looks
     * once more in the loop's next turn.
     *
     * @param handler called once per item, as for {@link #readBatch}
     * @return how many items were handed over; {@code 0} if none was flushed (the reader stays
     *     awake)
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalStateException if called from inside a {@code readBatch} handler, or while
     *     another thread runs one (see Misuse above)
     */
    public int readBatchAwake(Consumer<? super T> handler) {
        Objects.requireNonNull(handler, "handler");
        if (ThreadCheck.CHECKED) {
            enterReader("readBatchAwake");
            try {
                return checkReadPositionsAwake() ? drainPrefetched(handler) : 0;
            } finally {
                leaveReader();
            }
        }
        requireReaderFree("readBatchAwake");
        return checkReadPositionsAwake() ? drainPrefetched(handler) : 0;
    }

    /**
     * Applies {@code predicate} to the next item without reading it.
     *
     * @param predicate the test
     * @return the predicate's answer, or {@code false} if the pipe is empty (the reader is then
     *     asleep, as after {@link #read()} returning {@code null})
     * @throws NullPointerException if {@code predicate} is null
     * @throws IllegalStateException if called from inside a {@link #readBatch} handler, or while
     *     another thread runs one (see Misuse above)
     */
    @SuppressWarnings("unchecked")
    public boolean probe(Predicate<? super T> predicate) {
        Objects.requireNonNull(predicate, "predicate");
        if (ThreadCheck.CHECKED) {
            enterReader("probe");
            try {
                return look() && predicate.test((T) frontChunk.items[frontPos]);
            } finally {
                leaveReader();
            }
        }
        requireReaderFree("probe");
        if (!look()) {
            return false;
        }
        readerInside = Thread.currentThread(); // the predicate must not read on either
        try {
            return predicate.test((T) frontChunk.items[frontPos]);
        } finally {
            readerInside = null;
        }
    }
}
