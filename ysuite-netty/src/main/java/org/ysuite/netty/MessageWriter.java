package org.ysuite.netty;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.ysuite.OffHeapYPipe;

/**
 * One application thread's way out: an outbound pipe of its own, drained by the event loop.
 * Used by one thread at a time: a second thread that sends while the first waits for room gets
 * {@link IllegalStateException} (checked where a writer waits, so the hot path pays nothing);
 * two threads writing at once are refused by the pipe's own guard. No allocation per message.
 */
public final class MessageWriter {
    private final MessageStream stream;
    private final OutboundPipe out;
    private final OffHeapYPipe pipe;
    private final ReaderWait replies;
    /** The thread waiting for room, or null: one at a time (see {@link #waitForRoom}). */
    private volatile Thread waiting;

    MessageWriter(MessageStream stream, OutboundPipe out) {
        this.stream = stream;
        this.out = out;
        this.pipe = out.pipe;
        this.replies = stream.readerWait();
    }

    /**
     * Sends one message: copies it into the outbound window and makes it visible to the loop.
     * With {@link MessageStream.OnFull#BLOCK}, waits for room if the window is full.
     *
     * @param src the bytes
     * @param offset where the message starts
     * @param length its length, {@code 0 <= length <= maxMessageLength()}
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
     * @throws IllegalArgumentException if {@code length} is over {@link MessageStream#maxMessageLength()}
     * @throws IllegalStateException if another thread is using this writer
     * @throws MessageStream.WindowFullException with {@link MessageStream.OnFull#FAIL}, if the window is full
     * @throws IOException if the stream is closed or the connection is gone
     * @throws InterruptedException if the thread is interrupted while waiting for room
     */
    public void send(byte[] src, int offset, int length) throws IOException, InterruptedException {
        write(src, offset, length);
        flush();
    }

    /**
     * Sends the remaining bytes of {@code src} as one message, advancing its position.
     *
     * @param src the bytes
     * @throws NullPointerException if {@code src} is null
     * @throws IllegalArgumentException if the message is longer than {@link MessageStream#maxMessageLength()}
     * @throws IllegalStateException if another thread is using this writer
     * @throws MessageStream.WindowFullException with {@link MessageStream.OnFull#FAIL}, if the window is full
     * @throws IOException if the stream is closed or the connection is gone
     * @throws InterruptedException if the thread is interrupted while waiting for room
     */
    public void send(ByteBuffer src) throws IOException, InterruptedException {
        Objects.requireNonNull(src, "src");
        int length = checkLength(src.remaining());
        try {
            while (!pipe.write(src, false)) {
                waitForRoom(length);
            }
            publish();
        } catch (IllegalStateException e) {
            throw stream.closedOr(e);
        }
    }

    /**
     * Writes one message without making it visible; {@link #flush()} publishes everything
     * written since the last flush at once (sender-side batching). With {@link MessageStream.OnFull#BLOCK},
     * waits for room if the window is full (flushing first).
     *
     * @param src the bytes
     * @param offset where the message starts
     * @param length its length, {@code 0 <= length <= maxMessageLength()}
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
     * @throws IllegalArgumentException if {@code length} is over {@link MessageStream#maxMessageLength()}
     * @throws IllegalStateException if another thread is using this writer
     * @throws MessageStream.WindowFullException with {@link MessageStream.OnFull#FAIL}, if the window is full
     * @throws IOException if the stream is closed or the connection is gone
     * @throws InterruptedException if the thread is interrupted while waiting for room
     */
    public void write(byte[] src, int offset, int length) throws IOException, InterruptedException {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.length);
        checkLength(length);
        try {
            while (!pipe.write(src, offset, length, false)) {
                waitForRoom(length);
            }
        } catch (IllegalStateException e) {
            throw stream.closedOr(e);
        }
    }

    /**
     * Sends one message if the window has room now; never blocks.
     *
     * @param src the bytes
     * @param offset where the message starts
     * @param length its length, {@code 0 <= length <= maxMessageLength()}
     * @return {@code true} if sent; {@code false} if the window is full
     * @throws NullPointerException if {@code src} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
     * @throws IllegalArgumentException if {@code length} is over {@link MessageStream#maxMessageLength()}
     * @throws IllegalStateException if another thread is using this writer
     * @throws IOException if the stream is closed or the connection is gone
     */
    public boolean offer(byte[] src, int offset, int length) throws IOException {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.length);
        checkLength(length);
        try {
            boolean written = pipe.write(src, offset, length, false);
            publish();
            return written;
        } catch (IllegalStateException e) {
            throw stream.closedOr(e);
        }
    }

    /**
     * Makes every message written so far visible to the loop, waking it if it is asleep.
     *
     * @throws IllegalStateException if another thread is using this writer
     * @throws IOException if the stream is closed or the connection is gone
     */
    public void flush() throws IOException {
        try {
            publish();
        } catch (IllegalStateException e) {
            throw stream.closedOr(e);
        }
    }

    private int checkLength(int length) {
        if (length > stream.maxMessageLength()) {
            throw new IllegalArgumentException("length (" + length + ") must be at most maxMessageLength ("
                    + stream.maxMessageLength() + ")");
        }
        return length;
    }

    private void publish() {
        if (!pipe.flush()) {
            stream.mailbox.signal(out); // the loop found this pipe empty last time: wake it for it
        }
        replies.sent(); // on the reading thread, its next wait is for a reply
    }

    private void waitForRoom(int length) throws IOException, InterruptedException {
        publish(); // the loop frees room only by draining what is flushed
        if (stream.onFull == MessageStream.OnFull.FAIL) {
            throw new MessageStream.WindowFullException(length, stream.outboundWindow);
        }
        // The pipe keeps one waiting writer; a second would sleep unseen by both the loop's
        // wake-up and close(). Only the waiting path pays for this check (one CAS).
        Thread me = Thread.currentThread();
        if (!WAITING.compareAndSet(this, null, me)) {
            Thread other = waiting;
            throw new IllegalStateException("MessageWriter used by two threads at once: thread "
                    + me.getName() + " found thread " + (other == null ? "?" : other.getName())
                    + " waiting for room; a writer belongs to one thread (use newWriter() per thread)");
        }
        try {
            pipe.awaitSpace(length); // the loop's read unparks us; close() too (ISE)
        } finally {
            waiting = null;
        }
    }

    private static final VarHandle WAITING;

    static {
        try {
            WAITING = MethodHandles.lookup().findVarHandle(MessageWriter.class, "waiting", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
