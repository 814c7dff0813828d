// Over 600 lines, one concept: the one home of the ring's private positions and memory. The writer's and the
// reader's steps, their two waits and the snapshot all read them, and the JIT's hot paths
// rely on these final fields; split out, each would need them widened to the package.
package org.ysuite;

import static org.ysuite.internal.RecordDescriptor.PADDING;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;
import org.ysuite.internal.AnchoredCounts;
import org.ysuite.internal.DirectMemory;
import org.ysuite.internal.RecordDescriptor;
import org.ysuite.internal.RecordRing;
import org.ysuite.internal.RoomWait;
import org.ysuite.internal.SideGuard;
import org.ysuite.internal.SpinWait;
import org.ysuite.internal.Waits;
import org.ysuite.internal.event.Outcome;
import org.ysuite.internal.event.ParkEvent;

/**
 * {@link OffHeapYPipe}'s machinery under its public methods: the ring's memory, the protocol's
 * moves over its records ({@link RecordRing}, given the positions of {@link PipeProtocol} and
 * {@link OffHeapYPipeFields}), and the writer's wait for space.
 */
abstract class OffHeapRing extends OffHeapYPipeFields {

    /** Alignment of the ring in memory: a cache line. */
    static final int CACHE_LINE_BYTES = 64;

    final int capacity;
    final int maxMessageLength;
    private final DirectMemory memory;
    /** The records in the ring's memory; the positions stay in this object's padded fields. */
    final RecordRing records;
    /**
     * {@code records}' buffer, for the hot paths: {@link RecordRing}'s static steps over this
     * object's own final fields, loaded once each after the side guard's atomics.
     */
    private final ByteBuffer ring;
    /** {@link #drain}'s hand-back of each consumed record. */
    private final Consumed consumedStep = new Consumed();
    /** How a writer waiting for space waits (its own state: see {@link WaitPolicy#newState()}). */
    final WaitPolicy writerPolicy;
    /** The spin phase of a wait for space (see {@link SpinWait}). */
    private final RoomSpin roomWait = new RoomSpin();
    /** The wait for space once the ring was found full, in its flight-recorder event. */
    private final Blocked blockedWait = new Blocked();
    /** The user's name for the pipe in events, or null (see {@link OffHeapYPipe#named}). */
    volatile String name;

    /**
     * One look of the spin phase: does a record of {@code length} fit now, or is the deadline
     * past? (A timed wait must not outlast its deadline however long the policy spins.)
     */
    private final class RoomSpin extends SpinWait {
        /** The awaited message's length, and the wait's deadline; writer thread only. */
        int length;
        boolean timed;
        long deadline;

        @Override
        protected boolean ready() {
            return hasRoom(length) // heap fields only: needs no guard
                    || timed && deadline - System.nanoTime() <= 0;
        }
    }

    OffHeapRing(int capacity, WaitPolicy readerPolicy, WaitPolicy writerPolicy) {
        this.capacity = RecordRing.checkCapacity(capacity);
        this.readerPolicy = Waits.checkPolicy(readerPolicy, "readerPolicy");
        this.writerPolicy = Waits.checkPolicy(writerPolicy, "writerPolicy");
        this.maxMessageLength = RecordDescriptor.maxLength(capacity);
        this.memory = DirectMemory.allocate(capacity, CACHE_LINE_BYTES);
        memory.freeWhenUnreachable(this); // a pipe nobody closed still gives its memory back
        this.records = new RecordRing(memory.buffer());
        this.ring = records.buffer;
        initC(false);
        // The final fields above are published with the object; the plain position fields and
        // the two words start at zero (open, idle, head 0), which every thread sees.
    }

    /** {@link RecordRing#checkCapacity}, for the constructors' argument checks. */
    static int checkCapacity(int capacityBytes) {
        return RecordRing.checkCapacity(capacityBytes);
    }

    @Override
    final void freeMemory() {
        memory.free();
    }

    /** Test seam: true once the ring's memory is freed. */
    final boolean memoryFreed() {
        return memory.isFreed();
    }

    static void checkOpen(long word) {
        if (SideGuard.isClosed(word)) {
            throw new IllegalStateException("pipe is closed");
        }
    }

    /**
     * Reader: the records in [from, to), estimated from the size of the first (its header is
     * published by the acquire of c that found {@code to}).
     */
    @Override
    final long itemsBetween(long from, long to) {
        long first = RecordRing.end(capacity, from, RecordRing.headerAt(ring, capacity, from)) - from;
        return (to - from) / first;
    }

    /** Writer: true if a message of {@code length} fits at tail, re-reading head if it must. */
    final boolean hasRoom(int length) {
        long need = tail + RecordRing.footprint(capacity, tail, length) - capacity;
        if (need <= headCache) {
            return true;
        }
        // The reader is done with the bytes up to head; the anchor moves before any is reused.
        headCache = newHead(headOf(getAcquireReaderWord()));
        return need <= headCache;
    }

    /**
     * Writer, having read {@code head} and before caching it: moves the counters' anchor to w if
     * head moved (see {@link #snapshot}). A ring lap apart at most while the reader keeps up,
     * and only where the writer re-reads head (the ring looked full by the old one), out of the
     * write that fits. Touches the ring only for unflushed messages ([w, f)), which a writer
     * waiting for space has none of, so it is safe outside the writer side too.
     */
    private long newHead(long head) {
        if (head != headCache) {
            long count = messagesWritten;
            if (w != f) { // unflushed messages: never while waiting for space
                count -= records.lastPartsIn(w, f);
            }
            moveAnchor(count, w);
        }
        return head;
    }

    /**
     * Writer: enters the writer side and finds room for a message at tail, writing the padding
     * record if the message must start at the ring's beginning. The caller exits the side.
     *
     * @return the record's position, or -1 (and the side left) if the ring has no room now
     */
    final long beginWrite(int length) {
        enterWriter(); // fails while a claim is open: claim() keeps the side entered
        long start = tail;
        int size = RecordDescriptor.recordSize(length);
        // The common case in one test: the record fits before the ring's end (no padding), and
        // behind the head last read. Either slack negative makes the OR negative.
        if (((capacity - RecordRing.index(start, capacity) - size)
                | (headCache + capacity - start - size)) < 0) {
            return beginWriteAgain(length);
        }
        return start;
    }

    /**
     * Writer, {@link #beginWrite} out of line: the record must start after a padding record at
     * the ring's end, or the ring looked full (head is read again). Kept out of the hot path so
     * that write stays small enough for the JIT to inline it (see docs/design.md).
     */
    private long beginWriteAgain(int length) {
        if (!hasRoom(length)) {
            exitWriter();
            return -1;
        }
        return RecordRing.start(ring, capacity, tail, length); // padding: published by the next flush
    }

    /** Writer: the record at {@code start} is written; seal its header and advance. */
    final void append(long start, int length, boolean incomplete) {
        // Plain store: the flush that publishes the record (release CAS of c) orders it.
        tail = RecordRing.seal(ring, capacity, start, length, incomplete);
        if (!incomplete) {
            f = tail;
            messagesWritten++; // the counters' cost per message: an add on the writer's own line
        }
    }

    /** Writer: throws unless a message of {@code length} bytes can ever go through the ring. */
    final void checkLength(int length) {
        RecordRing.checkLength(length, maxMessageLength, capacity);
    }

    /** Writer: copies a payload into the record at {@code start}. */
    final void put(long start, byte[] src, int offset, int length) {
        RecordRing.put(ring, capacity, start, src, offset, length);
    }

    /** Writer: copies {@code src}'s remaining bytes into the record at {@code start}. */
    final void put(long start, ByteBuffer src, int length) {
        RecordRing.put(ring, capacity, start, src, length);
    }

    /** Writer, inside its side: takes back the last unflushed message. */
    final boolean unwriteLast() {
        long last = records.lastMessage(w, tail);
        if (last < 0) {
            tail = w; // only padding was unflushed
            return false;
        }
        tail = last;
        long complete = f;
        f = records.lastCompleteEnd(w, tail); // never below w
        messagesWritten -= records.lastPartsIn(f, complete); // 1 if a complete message went
        return true;
    }

    /** Reader: skips padding; true if a message is at front, false if the reader went asleep. */
    final boolean nextMessage() {
        return nextHeader() >= 0;
    }

    /**
     * Reader: skips padding, and returns the header of the message at front (read once, and
     * never negative), or -1 if there is none: the reader went asleep.
     */
    final int nextHeader() {
        while (checkReadPositions()) {
            int header = RecordRing.headerAt(ring, capacity, front);
            if (header != PADDING) {
                return header;
            }
            front = RecordRing.end(capacity, front, header); // head is published when the call leaves
        }
        return -1;
    }

    /** Reader, inside its side: {@link OffHeapYPipe#read(byte[])}. */
    final int copyNext(byte[] dst) {
        int header = nextHeader();
        if (header < 0) {
            return -1;
        }
        int length = records.copy(front, header, dst);
        front += RecordDescriptor.recordSize(length);
        return length;
    }

    /** Reader, inside its side: {@link OffHeapYPipe#readBatch}'s loop, at most {@code max >= 1} messages. */
    final int drain(MessageHandler handler, int max) {
        int header = nextHeader();
        if (header < 0) {
            return 0;
        }
        return records.drain(front, r, header, handler, consumedStep, max);
    }

    /**
     * Reader, in {@link #drain}: a record is consumed; the writer may reuse it at once.
     *
     * @return true if the handler closed the pipe
     */
    final boolean consumed(long next) {
        front = next; // counts as read
        setReleaseConsumed(next); // the writer may reuse it (head follows at exit)
        // Opaque is enough: the question is whether this thread's own handler called close(),
        // whose store to the word comes before this read in program order.
        return (getOpaqueReaderWord() & SideGuard.CLOSING) != 0;
    }

    /** {@link #consumed} for the ring (a few bytecodes: the JIT inlines it at every call site). */
    private final class Consumed implements RecordRing.Reader {
        @Override
        public boolean consumedTo(long next) {
            return consumed(next);
        }
    }

    /**
     * Reader: leaves the reader side, publishing head (= front) if this call consumed anything,
     * and wakes the writer if it was waiting for space. One release CAS does it all (see
     * {@link OffHeapYPipeFields}): the reader pays no fence, waiting writer or not.
     */
    final void leaveReader(long consumedFrom) {
        if (!exitReaderQuiet(front)) { // the common case: no writer waiting, no close
            leaveReaderSlow(consumedFrom);
        }
    }

    /** {@link #leaveReader} out of line: a writer waits for space, or close() came. */
    private void leaveReaderSlow(long consumedFrom) {
        boolean moved = front != consumedFrom;
        long before = exitReader(front, moved);
        if (moved && (before & WAITING) != 0) {
            // Our CAS read the writer's WAITING (written by its volatile CAS after it wrote
            // waitingWriter); the acquire fence makes that write visible to the read below.
            VarHandle.acquireFence();
            LockSupport.unpark(waitingWriter);
        }
    }

    /**
     * Reader: waits until a message can be read; {@code timeoutNanos < 0} means no time limit.
     * Stays inside the reader side throughout (a second reader thread is refused; close() frees
     * the memory only once this call has left).
     *
     * @return true if a message is prefetched; false if the time ran out
     */
    final boolean awaitReadable(long timeoutNanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        boolean timed = timeoutNanos >= 0;
        long deadline = timed ? Waits.deadline(timeoutNanos) : 0L;
        enterReader();
        long consumedFrom = front;
        try {
            for (;;) {
                // Spins as the reader's policy says, then swaps c to ASLEEP: a false answer
                // means the next flush will find the reader asleep and signal it.
                if (nextMessage()) {
                    return true;
                }
                if (!sleepUntilSignalled(timed, deadline)) {
                    return false;
                }
            }
        } finally {
            leaveReader(consumedFrom);
        }
    }

    /**
     * Reader, asleep in the protocol (c is ASLEEP): parks until a flush signals (see
     * {@link #signalReader()}), the time runs out, the thread is interrupted or the pipe closes.
     *
     * <p>Close: this thread writes sleepingReader and then reads the reader word (volatile);
     * close() CASes the reader word and then reads sleepingReader (volatile). Volatile accesses
     * are totally ordered, so either the read here sees the close, or close() sees this thread
     * and unparks it (and the loop's next look sees the close).
     *
     * @return true to look at the pipe again (a signal was taken, or may have been); false if
     *     the time ran out
     */
    private boolean sleepUntilSignalled(boolean timed, long deadline) throws InterruptedException {
        if (takeReaderSignal()) {
            return true; // a flush since the reader went asleep (or a stale one: look again)
        }
        if (!publishParked()) {
            leaveSleep();
            takeReaderSignal(); // SIGNALLED meanwhile: take it and look again
            return true;
        }
        ParkEvent event = ParkEvent.begin("OffHeapYPipe reader", name);
        long parkedAt = System.nanoTime();
        try {
            return parkUntilSignalled(timed, deadline, event);
        } finally {
            sleeps++;
            sleepNanos += System.nanoTime() - parkedAt;
        }
    }

    /** {@link #sleepUntilSignalled}, registered as PARKED: parks until the wait ends. */
    private boolean parkUntilSignalled(boolean timed, long deadline, ParkEvent event) throws InterruptedException {
        for (;;) {
            if (readerClosing()) {
                withdrawParked();
                ParkEvent.end(event, Outcome.CLOSE);
                throw new IllegalStateException("pipe is closed");
            }
            if (!Waits.park(this, timed, deadline)) {
                withdrawParked(); // a signal that came meanwhile stays for the next wait
                ParkEvent.end(event, Outcome.TIMEOUT);
                return false;
            }
            if (Thread.interrupted()) {
                withdrawParked();
                ParkEvent.end(event, Outcome.INTERRUPT);
                throw new InterruptedException();
            }
            if (!stillParked()) {
                leaveSleep();
                takeReaderSignal();
                ParkEvent.end(event, Outcome.SIGNAL);
                return true;
            }
            // a spurious wake-up, or a stale unpark: still PARKED, park again
        }
    }

    /**
     * Writer: waits until a message of {@code length} fits; {@code timeoutNanos < 0} means no
     * time limit.
     */
    final boolean awaitRoom(int length, long timeoutNanos) throws InterruptedException {
        records.checkLength(length);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        boolean timed = timeoutNanos >= 0;
        long deadline = timed ? Waits.deadline(timeoutNanos) : 0L;
        if (roomNow(length)) {
            return true;
        }
        if (timeoutNanos == 0) {
            return false; // checked once; never raise WAITING for a wait we will not do
        }
        writerWaits++;
        return blockedWait.blocked(name, length, timed, deadline);
    }

    /** {@link #waitForRoom} in the byte pipes' {@link RoomWait} (its flight-recorder event). */
    private final class Blocked extends RoomWait<RuntimeException> {
        Blocked() {
            super("OffHeapYPipe writer");
        }

        @Override
        protected boolean waitForRoom(int length, boolean timed, long deadline) throws InterruptedException {
            return OffHeapRing.this.waitForRoom(length, timed, deadline);
        }
    }

    /** {@link #awaitRoom} once the ring was found full: the policy's spin, then park. */
    private boolean waitForRoom(int length, boolean timed, long deadline) throws InterruptedException {
        RoomSpin spin = roomWait;
        spin.length = length;
        spin.timed = timed;
        spin.deadline = deadline;
        if (spin.spin(writerPolicy)) {
            return hasRoom(length); // false: the deadline came first
        }
        ParkEvent event = null;
        String outcome = Outcome.CLOSE;
        try {
            for (;;) {
                if (raiseWaiting(length)) {
                    outcome = Outcome.SIGNAL;
                    return true;
                }
                if (event == null) {
                    event = ParkEvent.begin("OffHeapYPipe writer", name);
                }
                if (!Waits.park(this, timed, deadline)) {
                    clearWaiting(); // time is up: the reader need not wake us any more
                    outcome = Outcome.TIMEOUT;
                    return false;
                }
                if (Thread.interrupted()) {
                    clearWaiting();
                    outcome = Outcome.INTERRUPT;
                    throw new InterruptedException();
                }
                if (roomNow(length)) {
                    clearWaiting(); // woken by something else than the reader (spurious, stale)
                    outcome = Outcome.SIGNAL;
                    return true;
                }
            }
        } finally {
            ParkEvent.end(event, outcome);
        }
    }

    /** Writer: enters its side to check the wait's preconditions and the room; then leaves. */
    private boolean roomNow(int length) {
        enterWriter(); // throws once closed: a writer woken by close() ends here
        try {
            if (w != f) {
                throw new IllegalStateException("flush() (and signal the reader if it returns"
                        + " false) before awaiting space: " + (f - w)
                        + " unflushed bytes would never be consumed");
            }
            long held = tail - f; // incomplete parts: the reader cannot consume them yet
            if (held + records.footprint(tail, length) > capacity) {
                throw new IllegalArgumentException("length " + length + " can never fit: "
                        + held + " bytes of incomplete parts are held in a ring of "
                        + capacity + " bytes");
            }
            return hasRoom(length);
        } finally {
            exitWriter();
        }
    }

    /**
     * Writer: raises WAITING in the reader's word with a CAS that expects the head it judged by,
     * so that the reader's exit (the other RMW on that word) either comes first (our CAS fails
     * and we see its head) or sees WAITING and unparks us. Also sees a close: close() CASes the
     * same word and then reads waitingWriter, so either our CAS sees its CLOSED/CLOSING bits, or
     * close() comes after our CAS and unparks us.
     *
     * @return true if the message fits now (WAITING down); false if WAITING is up: park
     */
    private boolean raiseWaiting(int length) {
        long seen = getAcquireReaderWord();
        for (;;) {
            checkOpen(seen);
            headCache = newHead(headOf(seen));
            if (tail + records.footprint(tail, length) - capacity <= headCache) {
                if ((seen & WAITING) != 0) {
                    clearWaiting();
                }
                return true;
            }
            if ((seen & WAITING) != 0) {
                return false; // raised in an earlier round, no room yet: park again
            }
            waitingWriter = Thread.currentThread(); // published by the CAS below
            long witness = casReaderWord(seen, seen | WAITING);
            if (witness == seen) {
                return false;
            }
            seen = witness; // the reader moved head (or entered/left), or close() came
        }
    }

    // ------------------------------------------------------------------------------------------
    // Counters
    // ------------------------------------------------------------------------------------------

    /**
     * Any thread: the counters (see {@link OffHeapYPipe#stats()}). Flushed and depth are derived
     * from positions the protocol keeps anyway, not counted per flush or per read:
     * flushed = the anchor's count + the complete messages in [anchorAt, c), depth = the complete
     * messages in [head, c), where head is how far the reader is done ({@link #headOf}).
     *
     * <p>Why the walk reads only records as they were flushed, or sees that it may not have:
     * the writer writes position {@code p} only while {@code p < headCache + capacity}, and
     * caches a head only after it moved the anchor (odd sequence, store-store fence, anchor,
     * release of the even sequence) to {@code at = w >= head}. So within an anchor's epoch the
     * writer's headCache is at most {@code at}, and at most the head a snapshot reads after
     * acquiring that epoch's sequence (the writer read its head before the release). The records
     * from {@code min(at, head)} to {@code c} (at most two rings) therefore stay as they were
     * until the anchor moves again, and a byte written after it moves comes after the odd
     * sequence and the fence: a snapshot that read such a byte and then (load-load fence) the
     * sequence sees it changed and walks again. The records up to c were published by the
     * writer's release CAS of c, which the snapshot reads with acquire after head (so
     * {@code c >= head}: the reader consumes only what it saw flushed).
     *
     * <p>c is ASLEEP while the reader sleeps, which it does only when it has taken everything
     * flushed: only padding lies between head and the end of the last flush then, and the
     * walk ends at {@code max(head, at)}. Once closed, c is CLOSED and closedAt (written before
     * the release CAS that installed CLOSED) holds what c was. A walk that cannot land on
     * {@code at}, {@code head} and its end, or sees the sequence change, is tried again (for up
     * to about 7 ms, {@link AnchoredCounts}, the one counted walk of both byte pipes); then the
     * anchor's count is reported, with depth 0 (the writer stopped in the middle of moving its
     * anchor through every attempt).
     */
    final PipeStats snapshot() {
        if (!enterRing()) { // both sides closed: the memory is gone or going; the close's counts
            return stats(finalFlushed(), finalDepth());
        }
        try {
            return countedStats();
        } finally {
            exitRing(false);
        }
    }

    @Override
    final void takeFinalCounts() {
        PipeStats counted = countedStats();
        setFinalCounts(counted.messagesFlushed(), counted.depth());
    }

    private PipeStats stats(long flushed, long depth) {
        return new PipeStats(flushed, wakeupsSent, sleeps, sleepNanos, writerWaits, depth);
    }

    /** Inside {@link #enterRing}: the counters, walked between two equal anchor sequences. */
    private PipeStats countedStats() {
        Counts counts = new Counts();
        counts.count(records);
        return stats(counts.flushed(), counts.depth());
    }

    /**
     * The anchor and the positions as this pipe keeps them (in its fields), for the one counted
     * walk, {@link AnchoredCounts}: c is ASLEEP while the reader sleeps (the walk then ends at
     * {@code max(head, at)}), and once closed, c is CLOSED and closedAt holds what it was.
     */
    private final class Counts extends AnchoredCounts {
        @Override
        protected long acquireSeq() {
            return getAcquireAnchorSeq();
        }

        @Override
        protected long opaqueSeq() {
            return getOpaqueAnchorSeq();
        }

        @Override
        protected long anchorCount() {
            return getOpaqueAnchorCount();
        }

        @Override
        protected long anchorAt() {
            return getOpaqueAnchorAt();
        }

        @Override
        protected long acquireHead() {
            return headOf(getAcquireReaderWord());
        }

        @Override
        protected long acquireEnd(long head, long at) {
            long c = getAcquireC();
            if (c == CLOSED) {
                c = closedAt; // written before the release CAS that installed CLOSED
            }
            return c == ASLEEP ? Math.max(head, at) : c;
        }
    }
}
