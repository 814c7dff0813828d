package org.ysuite.netty;

import java.io.IOException;

/**
 * What the loop side of a {@link MessageStream} tells its application side: why the connection
 * ended, whether every inbound message has been flushed, and the reader's wake-up.
 *
 * <p>Ordering: the loop records the failure, then flushes the inbound pipe for the last time, then
 * sets {@link #inboundDone()} (a volatile store), then signals. A reader that sees
 * {@code inboundDone} reads the pipe once more and sees every message and the failure.
 */
final class StreamStatus {

    private final ReaderWait readerWait;
    /** The first reason the connection ended badly; written by the loop thread, read by any. */
    private volatile IOException failure;
    private volatile boolean inboundDone;
    StreamStatus(long readerSpinNanos, long replySpinNanos) {
        this.readerWait = new ReaderWait(readerSpinNanos, replySpinNanos);
    }

    /** Names the reader's sleep in the Flight Recorder events. */
    void name(String name) {
        readerWait.name(name);
    }

    /** Records {@code e} unless a reason is recorded already (the first one wins). */
    void fail(IOException e) {
        if (failure == null) {
            failure = e;
        }
    }

    IOException failure() {
        return failure;
    }

    /** Loop: no more inbound messages will come (called after the last flush of the pipe). */
    void endInbound() {
        inboundDone = true;
        readerWait.signal();
    }

    boolean inboundDone() {
        return inboundDone;
    }

    /** Wakes the reader (it found the inbound pipe empty and sleeps, or it must look again). */
    void wakeReader() {
        readerWait.signal();
    }

    /** Loop, after {@link #wakeReader()}: whether the reader was spinning (a hint, see {@link ReaderWait#spinning()}). */
    boolean readerSpinning() {
        return readerWait.spinning();
    }

    /** Reader: waits for {@link #wakeReader()} or {@link #endInbound()}. */
    void awaitReader() throws InterruptedException {
        readerWait.await();
    }

    /** The reader's wait, for its counters (read by the reader thread, or after it is joined). */
    ReaderWait readerWait() {
        return readerWait;
    }
}
