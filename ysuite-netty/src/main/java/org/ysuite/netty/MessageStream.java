package org.ysuite.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.IoEventLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.YSemaphore;

/**
 * A stream of length-prefixed byte messages over one Netty channel (TCP), with ysuite pipes
 * between the application threads and the channel's event loop: seed 003's "application thread →
 * poll thread → socket → poll thread → application thread", with Netty as the I/O engine.
 *
 * <h2>Wire format</h2>
 * Each message is a 4-byte big-endian length followed by that many bytes. Both ends of the
 * connection must speak it (a {@code MessageStream} on each end, or any peer writing the same
 * frames).
 *
 * <h2>Outbound: consumer-driven batching</h2>
 * Each application thread writes through its own {@link Writer} (from {@link #newWriter()}): an
 * {@link OffHeapYPipe} (the outbound window) whose reader is the event loop. A send copies the
 * message into the pipe and flushes it; only the flush that finds the loop asleep on that pipe
 * (it found the pipe empty last time) wakes it, through a {@link LoopMailbox} sender. The loop
 * then drains everything flushed so far into buffers of at most {@link Builder#bufferSize} bytes
 * and hands each full buffer, and the last partial one, to the socket with one
 * {@code writeAndFlush}: a batch ends when the loop has nothing more, or when it reaches the buffer
 * size (seed 003's "ØMQ buffer size"; frames may straddle buffers). A message whose rest, once the
 * batch buffer is empty, is at least a buffer long goes to the socket in one buffer of its own
 * (as ØMQ's encoder does), not in buffer-sized writes.
 *
 * <h2>Inbound</h2>
 * The loop decodes frames straight into a second {@link OffHeapYPipe} (the inbound window; a
 * message is claimed whole and filled as its bytes arrive) and flushes it once per read; the
 * application thread reads it with {@link #receive(byte[])} or {@link #receiveBatch}, sleeping on
 * a {@link YSemaphore} when it is empty, woken only by the flush that finds it asleep.
 *
 * <h2>Back-pressure</h2>
 * <ul>
 *   <li>Outbound: a writer whose window is full blocks until the loop has drained room
 *       ({@link OnFull#BLOCK}, the default) or gets {@link WindowFullException}
 *       ({@link OnFull#FAIL}); {@link Writer#offer} never blocks. The loop stops draining while the
 *       channel is not writable (Netty's write-buffer water marks), so a slow peer fills the
 *       windows.</li>
 *   <li>Inbound: when the inbound window is full, the loop turns the channel's {@code autoRead}
 *       off and keeps the bytes already read; the reader, after it has consumed, turns it back on.
 *       So a slow application reader slows the sender through TCP's own flow control.</li>
 * </ul>
 * No message is lost, duplicated or reordered on a live connection; messages of one writer keep
 * their order, messages of different writers interleave whole.
 *
 * <h2>Closing and errors</h2>
 * {@link #close()} sends what every writer had flushed when it was called (waiting at most
 * {@link Builder#lingerMillis} for the socket to take it), closes the channel and releases the
 * pipes and the mailbox's descriptors. When the peer closes, {@link #receive(byte[])} returns the
 * messages that arrived and then {@code -1}; when the connection fails (reset, a malformed frame,
 * a close in the middle of a message) it returns them and then throws {@link IOException} with the
 * cause. Writers get {@link IOException} once the connection is gone. Close the stream in every
 * case: that frees its off-heap memory.
 *
 * <pre>{@code
 * // in a ChannelInitializer (client or server child), before the channel reads:
 * MessageStream stream = MessageStream.builder().bufferSize(8192).attach(ch);
 * // any application thread:
 * MessageStream.Writer out = stream.newWriter();
 * out.send(bytes, 0, bytes.length);
 * // the one reading thread:
 * byte[] buf = new byte[stream.maxMessageLength()];
 * int n = stream.receive(buf);   // -1: the peer closed
 * stream.close();
 * }</pre>
 */
public final class MessageStream implements AutoCloseable {

    /** The default {@link Builder#bufferSize}: {@value} bytes, as in seed 003's runs. */
    public static final int DEFAULT_BUFFER_SIZE = 8192;
    /**
     * The default window (ring capacity) of each direction: {@value} bytes, sixteen messages of
     * the default maximum length. (With 256 KiB, a stream of 64 KiB messages fitted three per
     * window: the writer waited for room and the inbound side stalled every few messages, each a
     * thread hand-off; see docs/network.md.) Off-heap, per writer and per stream's inbound side.
     */
    public static final int DEFAULT_WINDOW = 1 << 20;
    /** The default {@link Builder#maxMessageLength}: {@value} bytes. */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 1 << 16;
    /** The smallest {@link Builder#bufferSize}: {@value} bytes. */
    public static final int MIN_BUFFER_SIZE = 1;
    /** The largest {@link Builder#bufferSize}: {@value} bytes. */
    public static final int MAX_BUFFER_SIZE = 1 << 24;

    /** Bytes the loop drains from the writers in one go before it lets its other work run. */
    private static final int DRAIN_BUDGET = 1 << 20;

    /** What a {@link Writer#send} does when its outbound window is full. */
    public enum OnFull {
        /** Wait until the event loop has drained room (interruptible). */
        BLOCK,
        /** Throw {@link WindowFullException} at once. */
        FAIL
    }

    /** A {@link Writer#send} found its outbound window full and the stream is set to {@link OnFull#FAIL}. */
    public static final class WindowFullException extends IOException {
        private static final long serialVersionUID = 1L;

        WindowFullException(int length, int window) {
            super("the outbound window (" + window + " bytes) has no room for a message of " + length
                    + " bytes: the peer or the loop is behind");
        }
    }

    private final Channel channel;
    private final IoEventLoop loop;
    private final int bufferSize;
    private final int outboundWindow;
    private final int maxMessageLength;
    private final OnFull onFull;
    private final long lingerMillis;
    private final WaitPolicy writerPolicy;

    private final LoopMailbox<Writer> mailbox;
    private final OffHeapYPipe inbound;
    private final YSemaphore readSignal;
    private final StreamHandler handler = new StreamHandler();

    private final Object writersLock = new Object();
    /** Copy-on-write under {@link #writersLock}; {@code null} once the loop has released them. */
    private Writer[] writers = new Writer[0];

    /** The loop's stall for inbound room and the reader's resume (see {@link InboundStall}). */
    private final InboundStall inboundStall = new InboundStall();
    /** Set by the loop when no more inbound messages will come (after its last flush). */
    private volatile boolean inboundDone;
    /** Why the connection failed, or null; written before inboundDone / the pipes' close. */
    private volatile IOException failure;
    /** Set by {@link #close()}. */
    private volatile boolean closeRequested;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final Runnable resumeTask = () -> handler.resume();
    private final Runnable closeTask = () -> handler.closeOnLoop();

    private MessageStream(Builder b, Channel channel) {
        if (!(channel.eventLoop() instanceof IoEventLoop)) {
            throw new IllegalArgumentException("channel must be registered with an IoEventLoop (a"
                    + " MultiThreadIoEventLoopGroup of epoll or NIO), not "
                    + channel.eventLoop().getClass().getName());
        }
        this.channel = channel;
        this.loop = (IoEventLoop) channel.eventLoop();
        this.bufferSize = b.bufferSize;
        this.outboundWindow = b.outboundWindow;
        this.maxMessageLength = b.maxMessageLength;
        this.onFull = b.onFull;
        this.lingerMillis = b.lingerMillis;
        this.writerPolicy = b.writerPolicy;
        this.readSignal = new YSemaphore(b.readerPolicy);
        this.inbound = new OffHeapYPipe(b.inboundWindow, b.readerPolicy, WaitPolicy.purePark());
        try {
            this.mailbox = LoopMailbox.register(loop, handler::drain);
        } catch (RuntimeException e) {
            inbound.close();
            throw e;
        }
    }

    /**
     * Starts the settings of a stream.
     *
     * @return a builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Attaches a stream with the default settings to {@code channel}; see {@link Builder#attach}.
     *
     * @param channel a registered TCP channel of an epoll or NIO {@code MultiThreadIoEventLoopGroup}
     * @return the stream
     * @throws IllegalArgumentException if the channel's loop is neither epoll nor NIO
     */
    public static MessageStream attach(Channel channel) {
        return builder().attach(channel);
    }

    /** Settings of a {@link MessageStream}. Not thread-safe; each {@link #attach} makes a new stream. */
    public static final class Builder {
        private int bufferSize = DEFAULT_BUFFER_SIZE;
        private int outboundWindow = DEFAULT_WINDOW;
        private int inboundWindow = DEFAULT_WINDOW;
        private int maxMessageLength = DEFAULT_MAX_MESSAGE_LENGTH;
        private OnFull onFull = OnFull.BLOCK;
        private long lingerMillis = 5000;
        private WaitPolicy readerPolicy = WaitPolicy.defaultPolicy();
        private WaitPolicy writerPolicy = WaitPolicy.defaultPolicy();

        private Builder() {
        }

        /**
         * Sets the largest batch the loop hands to the socket in one call (seed 003's buffer size).
         *
         * @param bytes from {@value #MIN_BUFFER_SIZE} to {@value #MAX_BUFFER_SIZE}; default
         *     {@value #DEFAULT_BUFFER_SIZE}
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is out of range
         */
        public Builder bufferSize(int bytes) {
            if (bytes < MIN_BUFFER_SIZE || bytes > MAX_BUFFER_SIZE) {
                throw new IllegalArgumentException("bufferSize must be from " + MIN_BUFFER_SIZE + " to "
                        + MAX_BUFFER_SIZE + " bytes, not " + bytes);
            }
            this.bufferSize = bytes;
            return this;
        }

        /** A window size, checked; the message names the builder method's argument. */
        private static int checkWindow(String name, int bytes) {
            if (bytes < OffHeapYPipe.MIN_CAPACITY_BYTES || bytes > OffHeapYPipe.MAX_CAPACITY_BYTES
                    || Integer.bitCount(bytes) != 1) {
                throw new IllegalArgumentException(name + " must be a power of two from "
                        + OffHeapYPipe.MIN_CAPACITY_BYTES + " to " + OffHeapYPipe.MAX_CAPACITY_BYTES
                        + " bytes, not " + bytes);
            }
            return bytes;
        }

        /**
         * Sets the size of each writer's outbound pipe (how far a writer may run ahead of the loop).
         *
         * @param bytes a power of two from {@value OffHeapYPipe#MIN_CAPACITY_BYTES} to
         *     {@value OffHeapYPipe#MAX_CAPACITY_BYTES}; default {@value #DEFAULT_WINDOW}
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is out of range or not a power of two
         */
        public Builder outboundWindow(int bytes) {
            this.outboundWindow = checkWindow("outboundWindow", bytes);
            return this;
        }

        /**
         * Sets the size of the inbound pipe (how far the loop may read ahead of the reader before it
         * stops reading the channel).
         *
         * @param bytes a power of two from {@value OffHeapYPipe#MIN_CAPACITY_BYTES} to
         *     {@value OffHeapYPipe#MAX_CAPACITY_BYTES}; default {@value #DEFAULT_WINDOW}
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is out of range or not a power of two
         */
        public Builder inboundWindow(int bytes) {
            this.inboundWindow = checkWindow("inboundWindow", bytes);
            return this;
        }

        /**
         * Sets the longest message either side accepts; a longer incoming frame fails the
         * connection. It must fit both windows (checked by {@link #attach}).
         *
         * @param bytes {@code >= 0}; default {@value #DEFAULT_MAX_MESSAGE_LENGTH}
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is negative
         */
        public Builder maxMessageLength(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maxMessageLength must be >= 0, not " + bytes);
            }
            this.maxMessageLength = bytes;
            return this;
        }

        /**
         * Sets what {@link Writer#send} does when its window is full.
         *
         * @param policy {@link OnFull#BLOCK} (default) or {@link OnFull#FAIL}
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder onFull(OnFull policy) {
            this.onFull = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Sets how long {@link MessageStream#close()} waits for the socket to take the messages
         * already sent before it closes the channel anyway.
         *
         * @param millis {@code >= 0}; default 5000
         * @return this builder
         * @throws IllegalArgumentException if {@code millis} is negative
         */
        public Builder lingerMillis(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("lingerMillis must be >= 0, not " + millis);
            }
            this.lingerMillis = millis;
            return this;
        }

        /**
         * Sets how the reader waits when the inbound pipe is empty, and how a writer waits for
         * room.
         *
         * @param reader the reading thread's policy
         * @param writer the writers' policy (for {@link OnFull#BLOCK})
         * @return this builder
         * @throws NullPointerException if a policy is null
         */
        public Builder waitPolicies(WaitPolicy reader, WaitPolicy writer) {
            this.readerPolicy = Objects.requireNonNull(reader, "reader");
            this.writerPolicy = Objects.requireNonNull(writer, "writer");
            return this;
        }

        /**
         * Makes a stream over {@code channel} and adds its handler at the end of the channel's
         * pipeline. Call it before the channel reads (in a {@code ChannelInitializer}, or with
         * {@code autoRead} off): bytes read before are not the stream's.
         *
         * @param channel a registered TCP channel of an epoll or NIO {@code MultiThreadIoEventLoopGroup}
         * @return the stream
         * @throws NullPointerException if {@code channel} is null
         * @throws IllegalArgumentException if the channel's loop is neither epoll nor NIO, or
         *     {@link #maxMessageLength} does not fit a window
         */
        public MessageStream attach(Channel channel) {
            Objects.requireNonNull(channel, "channel");
            int fits = Math.min(OffHeapYPipe.maxMessageLength(outboundWindow),
                    OffHeapYPipe.maxMessageLength(inboundWindow));
            if (maxMessageLength > fits) {
                throw new IllegalArgumentException("maxMessageLength (" + maxMessageLength
                        + ") must be at most " + fits + " bytes for windows of " + outboundWindow
                        + " and " + inboundWindow + " bytes (window / 2 - 4)");
            }
            MessageStream s = new MessageStream(this, channel);
            channel.pipeline().addLast("ysuite-message-stream", s.handler);
            return s;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Application side
    // ------------------------------------------------------------------------------------------

    /**
     * Makes a writer for the calling application thread. Each writer is used by one thread at a
     * time; any number of writers may send concurrently.
     *
     * @return a new writer
     * @throws IllegalStateException if the stream is closed
     */
    public Writer newWriter() {
        synchronized (writersLock) {
            if (writers == null || closeRequested) {
                throw new IllegalStateException("MessageStream is closed: no new writer");
            }
            Writer w = new Writer(new OffHeapYPipe(outboundWindow, WaitPolicy.purePark(), writerPolicy));
            Writer[] grown = java.util.Arrays.copyOf(writers, writers.length + 1);
            grown[writers.length] = w;
            writers = grown;
            return w;
        }
    }

    /**
     * Copies the next message into {@code dst}, waiting for one if none has arrived. Only one
     * thread may read.
     *
     * @param dst where the message is copied, from index 0
     * @return the message's length, or {@code -1} if the peer closed the connection and every
     *     message has been read
     * @throws NullPointerException if {@code dst} is null
     * @throws IllegalArgumentException if the next message is longer than {@code dst} (it stays)
     * @throws IOException if the connection failed (after the messages that arrived before), or
     *     the stream is closed
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public int receive(byte[] dst) throws IOException, InterruptedException {
        Objects.requireNonNull(dst, "dst");
        for (;;) {
            int n = readOnce(dst);
            if (n >= 0) {
                return n;
            }
            if (inboundDone) {
                n = readOnce(dst); // the loop's last flush happened before inboundDone was set
                return n >= 0 ? n : endOfStream();
            }
            readSignal.await(); // the pipe's read put the reader to sleep: the next flush signals
        }
    }

    /**
     * Hands every message that has arrived to {@code handler} as views into the inbound pipe
     * (consumer-side batching, no copy), waiting for at least one. Only one thread may read.
     *
     * @param handler called once per message on this thread; the view is valid only during the call
     * @return how many messages were handled ({@code >= 1}), or {@code -1} if the peer closed the
     *     connection and every message has been read
     * @throws NullPointerException if {@code handler} is null
     * @throws IOException if the connection failed (after the messages that arrived before), or
     *     the stream is closed
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public int receiveBatch(OffHeapYPipe.MessageHandler handler) throws IOException, InterruptedException {
        Objects.requireNonNull(handler, "handler");
        for (;;) {
            int n = readBatchOnce(handler);
            if (n > 0) {
                return n;
            }
            if (inboundDone) {
                n = readBatchOnce(handler);
                return n > 0 ? n : endOfStream();
            }
            readSignal.await();
        }
    }

    private int readOnce(byte[] dst) throws IOException {
        int n;
        try {
            n = inbound.read(dst);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
        if (n >= 0) {
            consumed();
        }
        return n;
    }

    private int readBatchOnce(OffHeapYPipe.MessageHandler h) throws IOException {
        int n;
        try {
            n = inbound.readBatch(h);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
        if (n > 0) {
            consumed();
        }
        return n;
    }

    /**
     * Reader thread, after it consumed: restarts the loop's reading if it stopped for room.
     *
     * <p>Dekker with {@link InboundStall#stall}, the argument in {@link InboundStall}: the reader
     * publishes its consumption (the pipe's read publishes head), then loads the stall flag; the
     * loop stores the flag, then loads head (its claim retry). Either the loop's retry sees the
     * room, or this call takes the flag (one CAS per stall) and resumes the loop.
     */
    private void consumed() {
        if (inboundStall.consumed()) {
            try {
                loop.execute(resumeTask);
            } catch (RejectedExecutionException e) {
                // the loop is down: the channel is closed, nothing more will be read
            }
        }
    }

    private int endOfStream() throws IOException {
        if (closeRequested) {
            throw new IOException("MessageStream is closed");
        }
        IOException f = failure;
        if (f != null) {
            throw new IOException("connection failed: " + f.getMessage(), f);
        }
        return -1;
    }

    /** An exception for a call that found a pipe or the mailbox closed; other misuse is rethrown. */
    private IOException closedOr(IllegalStateException e) {
        IOException f = failure;
        if (closeRequested) {
            return new IOException("MessageStream is closed", e);
        }
        if (f != null) {
            return new IOException("connection failed: " + f.getMessage(), f);
        }
        if (inboundDone || !channel.isActive()) {
            return new IOException("connection closed by the peer", e);
        }
        throw e;
    }

    /**
     * Returns the longest message this stream sends or accepts.
     *
     * @return the limit in bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Returns the channel the stream runs over.
     *
     * @return the channel
     */
    public Channel channel() {
        return channel;
    }

    /**
     * Returns how many times the loop was woken by the writers (once per flush that found it asleep).
     *
     * @return the count of the outbound mailbox's wake-ups
     */
    public long outboundWakeups() {
        return mailbox.wakeups();
    }

    /**
     * Closes the stream: the messages flushed by every writer before this call are handed to the
     * socket (waiting at most {@link Builder#lingerMillis} for it to take them), the channel is
     * closed, writers and the reader get {@link IOException} from then on, and the pipes' memory and
     * the mailbox's descriptors are released. Waits for all that unless called on the event loop.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closeRequested) {
            closeRequested = true;
            readSignal.signal(0); // a reader waiting now wakes up and throws
            try {
                loop.execute(closeTask);
            } catch (RejectedExecutionException e) {
                handler.release(); // the loop is gone: nobody else touches the pipes
            }
        }
        if (!loop.inEventLoop()) {
            try {
                closed.get(lingerMillis + 10_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("MessageStream did not close in time", e);
            }
        }
    }

    /**
     * Returns a future completed once the stream is closed and everything it held is released.
     *
     * @return a new dependent future
     */
    public CompletableFuture<Void> closeFuture() {
        return closed.copy();
    }

    /**
     * Describes the stream.
     *
     * @return the channel and the state
     */
    @Override
    public String toString() {
        return "MessageStream[" + channel + (closeRequested ? ", closed" : inboundDone ? ", ended" : "")
                + ", bufferSize=" + bufferSize + "]";
    }

    /**
     * One application thread's way out: an outbound pipe of its own, drained by the event loop.
     * Used by one thread at a time. No allocation per message.
     */
    public final class Writer {
        private final OffHeapYPipe pipe;
        private final LoopMailbox.Sender<Writer> wake;
        /** Loop thread only: the loop has this writer in its list of pipes to drain. */
        private boolean pending;

        private Writer(OffHeapYPipe pipe) {
            this.pipe = pipe;
            // A new pipe's reader counts as awake (the ypipe protocol), so a first flush would not
            // ask for a wake-up. Put it to sleep here, on the reader side, before any write: the
            // loop, the reader from then on, receives this writer only through the mailbox, which
            // publishes this call's effects to it.
            pipe.checkRead();
            try {
                this.wake = mailbox.newSender();
            } catch (RuntimeException e) {
                pipe.close();
                throw e;
            }
        }

        /**
         * Sends one message: copies it into the outbound window and makes it visible to the loop.
         * With {@link OnFull#BLOCK}, waits for room if the window is full.
         *
         * @param src the bytes
         * @param offset where the message starts
         * @param length its length, {@code 0 <= length <= maxMessageLength()}
         * @throws NullPointerException if {@code src} is null
         * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
         * @throws IllegalArgumentException if {@code length} is over {@link #maxMessageLength()}
         * @throws WindowFullException with {@link OnFull#FAIL}, if the window is full
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
         * @throws IllegalArgumentException if the message is longer than {@link #maxMessageLength()}
         * @throws WindowFullException with {@link OnFull#FAIL}, if the window is full
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
                throw closedOr(e);
            }
        }

        /**
         * Writes one message without making it visible; {@link #flush()} publishes everything
         * written since the last flush at once (sender-side batching). With {@link OnFull#BLOCK},
         * waits for room if the window is full (flushing first).
         *
         * @param src the bytes
         * @param offset where the message starts
         * @param length its length, {@code 0 <= length <= maxMessageLength()}
         * @throws NullPointerException if {@code src} is null
         * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
         * @throws IllegalArgumentException if {@code length} is over {@link #maxMessageLength()}
         * @throws WindowFullException with {@link OnFull#FAIL}, if the window is full
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
                throw closedOr(e);
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
         * @throws IllegalArgumentException if {@code length} is over {@link #maxMessageLength()}
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
                throw closedOr(e);
            }
        }

        /**
         * Makes every message written so far visible to the loop, waking it if it is asleep.
         *
         * @throws IOException if the stream is closed or the connection is gone
         */
        public void flush() throws IOException {
            try {
                publish();
            } catch (IllegalStateException e) {
                throw closedOr(e);
            }
        }

        private int checkLength(int length) {
            if (length > maxMessageLength) {
                throw new IllegalArgumentException("length (" + length + ") must be at most maxMessageLength ("
                        + maxMessageLength + ")");
            }
            return length;
        }

        private void publish() {
            if (!pipe.flush()) {
                wake.send(this); // the loop found this pipe empty last time: wake it for this pipe
            }
        }

        private void waitForRoom(int length) throws IOException, InterruptedException {
            publish(); // the loop frees room only by draining what is flushed
            if (onFull == OnFull.FAIL) {
                throw new WindowFullException(length, outboundWindow);
            }
            pipe.awaitSpace(length); // the loop's read unparks us; close() too (ISE)
        }
    }

    // ------------------------------------------------------------------------------------------
    // Loop side
    // ------------------------------------------------------------------------------------------

    /** The channel handler; every method runs on the event loop thread. */
    private final class StreamHandler extends ChannelDuplexHandler implements OffHeapYPipe.MessageHandler,
            InboundStall.Room {
        private ChannelHandlerContext ctx;
        /** Writers with flushed messages the loop has not drained (not writable, or budget spent). */
        private final ArrayDeque<Writer> pendingWriters = new ArrayDeque<>();
        private boolean drainScheduled;
        /** Loop thread: inside {@link #drainPending}; {@link #redrain}: go round once more. */
        private boolean draining;
        private boolean redrain;
        /** Loop thread: the writers' pipes are closed (the channel is gone). */
        private boolean outboundClosed;
        private final Runnable drainPendingTask = this::drainPendingTask;
        private final Runnable forceClose = () -> channel.close();
        private ByteBuf chunk;
        private long drainedBytes;

        // inbound decoding state
        private int headerFill;
        private int header;
        /** Length of a message whose claim failed for room, or -1. */
        private int pendingLength = -1;
        private int claimPos;
        private int claimRemaining;
        private boolean claimOpen;
        /** Input read while the inbound window was full. */
        private final ArrayDeque<ByteBuf> heldInput = new ArrayDeque<>();
        private boolean paused;
        private boolean inputEnded;
        private boolean released;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        // ---- outbound -------------------------------------------------------------------------

        /** A writer's flush found the loop asleep on its pipe. */
        void drain(Writer w) {
            if (outboundClosed || ctx == null) {
                return;
            }
            if (!w.pending) {
                w.pending = true;
                pendingWriters.add(w);
            }
            drainPending(false);
        }

        private void drainPendingTask() {
            drainScheduled = false;
            if (!outboundClosed) {
                drainPending(false);
            }
        }

        /** Drains the pending writers while the channel takes data ({@code force}: regardless). */
        private void drainPending(boolean force) {
            if (draining) {
                // Re-entered from inside a drain: a writeAndFlush of ours made Netty fire
                // channelWritabilityChanged. A pipe's reader side must not be re-entered (and a
                // re-entrant read would fail); the drain in progress goes round once more.
                redrain = true;
                return;
            }
            draining = true;
            try {
                do {
                    redrain = false;
                    drainOnce(force);
                } while (redrain && !outboundClosed);
            } finally {
                draining = false;
            }
        }

        private void drainOnce(boolean force) {
            drainedBytes = 0;
            Writer w;
            while ((w = pendingWriters.peek()) != null && !outboundClosed) {
                if (!force && !channel.isWritable()) {
                    break; // channelWritabilityChanged goes on
                }
                if (!force && drainedBytes >= DRAIN_BUDGET) {
                    scheduleDrain();
                    break;
                }
                if (w.pipe.readBatch(this) == 0) {
                    // Empty: the pipe's reader (this loop) is now asleep, so the writer's next
                    // flush returns false and sends this writer through the mailbox again.
                    pendingWriters.poll();
                    w.pending = false;
                }
            }
            sendChunk();
        }

        private void scheduleDrain() {
            if (!drainScheduled) {
                drainScheduled = true;
                loop.execute(drainPendingTask); // from the loop thread: no wake-up
            }
        }

        /** One outbound message, a view into a writer's pipe: frame it into the chunks. */
        @Override
        public void onMessage(ByteBuffer buffer, int offset, int length) {
            drainedBytes += 4 + length;
            ByteBuf c = chunk();
            if (c.writableBytes() >= 4) {
                c.writeInt(length);
            } else {
                for (int shift = 24; shift >= 0; shift -= 8) {
                    chunk().writeByte(length >>> shift);
                    fullChunk();
                }
            }
            fullChunk();
            int pos = offset;
            int end = offset + length;
            while (pos < end) {
                if (chunk == null && end - pos >= bufferSize) {
                    // The batch buffer is empty and the rest of this message would fill it at
                    // least once (ØMQ's encoder makes the same choice): the rest goes in one
                    // buffer of its own, one copy and one write, not bufferSize-sized writes (a
                    // 64 KiB message took eight 8 KiB writes and syscalls, see docs/network.md).
                    // Order: every earlier byte was handed to the channel before this write, all
                    // on this loop thread.
                    sendWhole(buffer, pos, end - pos);
                    break;
                }
                c = chunk();
                int n = Math.min(end - pos, c.writableBytes());
                buffer.limit(pos + n).position(pos);
                c.writeBytes(buffer);
                pos += n;
                fullChunk();
            }
        }

        private ByteBuf chunk() {
            if (chunk == null) {
                chunk = ctx.alloc().directBuffer(bufferSize, bufferSize);
            }
            return chunk;
        }

        private void fullChunk() {
            if (chunk != null && !chunk.isWritable()) {
                sendChunk();
            }
        }

        /** The rest of a long message to the socket in one buffer: one write and one flush. */
        private void sendWhole(ByteBuffer buffer, int pos, int n) {
            ByteBuf whole = ctx.alloc().directBuffer(n, n);
            buffer.limit(pos + n).position(pos);
            whole.writeBytes(buffer);
            ctx.writeAndFlush(whole, ctx.voidPromise());
        }

        /** One batch to the socket: one write and one flush. */
        private void sendChunk() {
            ByteBuf c = chunk;
            if (c != null) {
                chunk = null;
                if (c.isReadable()) {
                    ctx.writeAndFlush(c, ctx.voidPromise());
                } else {
                    c.release();
                }
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (channel.isWritable() && !outboundClosed) {
                drainPending(false);
            }
            ctx.fireChannelWritabilityChanged();
        }

        // ---- inbound --------------------------------------------------------------------------

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf)) {
                ctx.fireChannelRead(msg);
                return;
            }
            ByteBuf in = (ByteBuf) msg;
            if (released) {
                in.release();
                return;
            }
            if (paused) {
                heldInput.add(in); // read after autoRead went off: keep it for resume()
                return;
            }
            try {
                if (decode(in)) {
                    in.release();
                } else {
                    heldInput.add(in);
                }
            } catch (IOException e) {
                in.release();
                fail(e);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            flushInbound();
            ctx.fireChannelReadComplete();
        }

        private void flushInbound() {
            if (!released && !inbound.flush()) {
                readSignal.signal(0); // the reader found the pipe empty and sleeps
            }
        }

        /**
         * Decodes frames from {@code in} into the inbound pipe.
         *
         * @return {@code true} if {@code in} was consumed; {@code false} if the loop stalled for room
         *     (paused, autoRead off, the rest of {@code in} unread)
         */
        private boolean decode(ByteBuf in) throws IOException {
            for (;;) {
                if (claimOpen) {
                    int n = Math.min(claimRemaining, in.readableBytes());
                    if (n > 0) {
                        ByteBuffer ring = inbound.claimBuffer();
                        ring.limit(claimPos + n).position(claimPos);
                        in.readBytes(ring);
                        claimPos += n;
                        claimRemaining -= n;
                    }
                    if (claimRemaining > 0) {
                        return true; // in is empty
                    }
                    claimOpen = false;
                    inbound.commit(false);
                }
                if (pendingLength < 0) {
                    if (headerFill == 0 && in.readableBytes() >= 4) {
                        header = in.readInt();
                        headerFill = 4;
                    } else {
                        while (headerFill < 4 && in.isReadable()) {
                            header = (header << 8) | in.readUnsignedByte();
                            headerFill++;
                        }
                        if (headerFill < 4) {
                            return true;
                        }
                    }
                    headerFill = 0;
                    if (header < 0 || header > maxMessageLength) {
                        throw new IOException("malformed frame: length " + (header & 0xffffffffL)
                                + " is over maxMessageLength (" + maxMessageLength + ")");
                    }
                    pendingLength = header;
                }
                if (!claim()) {
                    // The window is full. Let the reader see everything first, otherwise it could
                    // sleep on a pipe it cannot see is full; then declare the stall and retry (the
                    // Dekker pair with consumed(), see InboundStall). If the retry claims after
                    // the reader took the stall, its resume finds the loop not paused (or paused
                    // by a later stall, which it retries): harmless.
                    flushInbound();
                    if (inboundStall.stall(this) == InboundStall.PAUSE) {
                        paused = true;
                        channel.config().setAutoRead(false);
                        return false;
                    }
                }
            }
        }

        @Override
        public boolean claim() {
            int idx = inbound.claim(pendingLength);
            if (idx < 0) {
                return false;
            }
            claimOpen = true;
            claimPos = idx;
            claimRemaining = pendingLength;
            pendingLength = -1;
            return true;
        }

        /** The reader freed room after a stall: decode the held input, then read again. */
        void resume() {
            if (!paused || released) {
                return;
            }
            paused = false;
            try {
                ByteBuf in;
                while ((in = heldInput.peek()) != null) {
                    if (!decode(in)) {
                        flushInbound();
                        return; // stalled again
                    }
                    heldInput.poll().release();
                }
            } catch (IOException e) {
                fail(e);
                return;
            }
            flushInbound();
            if (inputEnded) {
                endInbound();
            } else {
                channel.config().setAutoRead(true);
            }
        }

        // ---- end of the connection ------------------------------------------------------------

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause instanceof IOException ? (IOException) cause : new IOException(cause));
        }

        private void fail(IOException e) {
            if (failure == null) {
                failure = e;
            }
            channel.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inputEnded = true;
            if (!paused) {
                endInbound();
            }
            // Outbound: nothing more can be sent; writers get an IOException from now on.
            closeWriters();
            ctx.fireChannelInactive();
        }

        /** No more input: the reader gets what arrived, then the end (or the failure). */
        private void endInbound() {
            if ((claimOpen || pendingLength >= 0 || headerFill > 0) && failure == null) {
                failure = new IOException("connection closed in the middle of a message");
            }
            flushInbound();
            inboundDone = true; // after the last flush: receive() reads once more when it sees it
            readSignal.signal(0);
        }

        private void closeWriters() {
            outboundClosed = true;
            Writer[] all;
            synchronized (writersLock) {
                all = writers;
                writers = null;
            }
            if (all != null) {
                mailbox.close();
                for (Writer w : all) {
                    w.pipe.close(); // a writer waiting for room wakes up and throws
                }
            }
            pendingWriters.clear();
            ByteBuf c = chunk;
            chunk = null;
            if (c != null) {
                c.release();
            }
        }

        /** {@link MessageStream#close()} on the loop: send what is flushed, then close the channel. */
        void closeOnLoop() {
            if (released) {
                return;
            }
            if (!channel.isOpen()) {
                release();
                return;
            }
            channel.closeFuture().addListener(f -> release());
            if (ctx != null && channel.isActive()) {
                Writer[] all;
                synchronized (writersLock) {
                    all = writers == null ? new Writer[0] : writers;
                }
                for (Writer w : all) {
                    if (!w.pending) {
                        w.pending = true;
                        pendingWriters.add(w);
                    }
                }
                drainPending(true);
                // Close once the socket has taken everything queued, or after the linger time.
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                loop.schedule(forceClose, lingerMillis, TimeUnit.MILLISECONDS);
            } else {
                channel.close();
            }
        }

        /** Frees everything once the channel is closed and close() was called. Idempotent. */
        void release() {
            if (released) {
                return;
            }
            released = true;
            closeWriters();
            ByteBuf in;
            while ((in = heldInput.poll()) != null) {
                in.release();
            }
            if (claimOpen) {
                claimOpen = false;
                try {
                    inbound.commit(false); // releases the writer side so the memory can be freed
                } catch (IllegalStateException ignored) {
                    // already closed
                }
            }
            inbound.close();
            inboundDone = true;
            readSignal.signal(0);
            mailbox.closeFuture().whenComplete((v, e) -> closed.complete(null));
        }
    }
}
