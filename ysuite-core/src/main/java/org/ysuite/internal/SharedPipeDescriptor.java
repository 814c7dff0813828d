package org.ysuite.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The layout of the shared pipe's file (drawn in {@link org.ysuite.shared.SharedYPipe}): the header's fields, the
 * shared words' offsets, the side states, and the views that access them. The ring after the
 * header holds {@link RecordDescriptor}'s records. Native byte order throughout.
 */
public final class SharedPipeDescriptor {

    private SharedPipeDescriptor() {
    }

    /** "YSPIPE01" read as a native-order long. */
    public static final long MAGIC = ByteBuffer.wrap("YSPIPE01".getBytes(StandardCharsets.US_ASCII))
            .order(ByteOrder.nativeOrder()).getLong();
    /**
     * 4: the message counts derived from an anchor at 1024 (version 3 stored flushed and consumed
     * counts there and at 1152; version 2 had the same words without counters; version 1 had flag
     * bits in c and head).
     */
    public static final int VERSION = 4;
    public static final int HEADER_SIZE = 4096;

    public static final int MAGIC_AT = 0;
    public static final int VERSION_AT = 8;
    public static final int HEADER_SIZE_AT = 12;
    public static final int CAPACITY_AT = 16;
    /** The smallest ring capacity a file may hold, in bytes (the record ring's). */
    public static final int MIN_CAPACITY = RecordRing.MIN_CAPACITY;
    /** The largest ring capacity a file may hold, in bytes (the record ring's). */
    public static final int MAX_CAPACITY = RecordRing.MAX_CAPACITY;
    /** Each side's record: state (int), pid (int), start time in epoch ms (long, -1 unknown). */
    public static final int WRITER_AT = 64;
    public static final int READER_AT = 96;
    /*
     * The shared words, each written by one side only, 128 bytes apart where they are hot (their
     * own cache lines, and the adjacent-line prefetch). See SharedWords for the protocol.
     */
    /** Writer's: the end of the last flush (a position). */
    public static final int C_AT = 128;
    /** Reader's: how far it has consumed (a position). */
    public static final int HEAD_AT = 256;
    /** Reader's: its sleep counter (long), odd while it is (going) asleep. */
    public static final int READER_SLEEP_AT = 384;
    /** Reader's: the futex word (int) a writer waiting for space sleeps on; the reader bumps it. */
    public static final int WRITER_WAKE_AT = 392;
    /**
     * Reader's: how it waits (int): 0 in the futex, not {@link org.ysuite.shared.SharedYPipe.Builder#pollable()
     * pollable}; 1 pollable, in the futex; 2 pollable, in poll/epoll on the FIFO beside the file.
     * The writer reads it only on its wake path (see {@code SharedPipeWakeFifo.WriterBell}). Zero in a new file (and in files of earlier
     * releases, which therefore keep the same layout version).
     */
    public static final int READER_POLLS_AT = 400;
    /** Writer's: its sleep counter (long), odd while it waits for space. */
    public static final int WRITER_SLEEP_AT = 512;
    /** Writer's: the futex word (int) the reader sleeps on; the writer bumps it. */
    public static final int READER_WAKE_AT = 520;
    /*
     * The counters (docs/observability.md), each a long written only by its side's thread with an
     * opaque or release store (never torn) and read by anyone, never trusted: one 128-byte block
     * per side, away from the hot words above. The message counts are not stored per message:
     * they are derived from c, head and the writer's anchor (see SharedPipeCounters).
     */
    /** Writer's anchor: the messages flushed before {@link #ANCHOR_AT} (records, each part counts). */
    public static final int ANCHOR_COUNT_AT = 1024;
    /** Writer's: wake-ups sent (flushes that found the reader asleep and woke it). */
    public static final int WAKEUPS_AT = 1032;
    /** Writer's: writer waits (awaitSpace calls that found no room and waited). */
    public static final int WRITER_WAITS_AT = 1040;
    /** Writer's anchor: a position the writer flushed (a c it published), where the count holds. */
    public static final int ANCHOR_AT = 1048;
    /** Writer's anchor: its sequence, odd while the writer changes the anchor (a seqlock). */
    public static final int ANCHOR_SEQ_AT = 1056;
    /** Reader's: sleeps (awaitMessage calls that slept in the futex, however many slices). */
    public static final int SLEEPS_AT = 1160;
    /** Reader's: time asleep in those sleeps, in nanoseconds (System.nanoTime around the futex). */
    public static final int SLEEP_NANOS_AT = 1168;

    public static final int FREE = 0;
    public static final int OPEN = 1;
    public static final int CLOSED = 2;

    public static final VarHandle INT =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    public static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    public static boolean isKnownState(int state) {
        return state == FREE || state == OPEN || state == CLOSED;
    }
}
