package org.ysuite.netty;

import io.netty.channel.Channel;
import io.netty.channel.IoEventLoop;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.ysuite.MessageHandler;
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
 * Each application thread writes through its own {@link MessageWriter} (from {@link #newWriter()}): an
 * {@link OffHeapYPipe} (the outbound window) whose reader is the event loop. A send copies the
 * message into the pipe and flushes it; only the flush that finds the loop asleep on that pipe
 * (it found the pipe empty last time) wakes it, through Netty's own wake-up: it queues the pipe's
 * preallocated drain task with {@code eventLoop.execute} (once per sleep of the loop on that pipe,
 * no allocation). The loop then drains everything flushed so far into buffers of at most
 * {@link MessageStreamBuilder#bufferSize} bytes and hands each full buffer, and the last partial one, to the
 * socket with one {@code writeAndFlush}: a batch ends when the loop has nothing more, or when it
 * reaches the buffer size (seed 003's "ØMQ buffer size"; frames may straddle buffers). A message
 * whose rest, once the batch buffer is empty, is at least a buffer long goes to the socket in one
 * buffer of its own (as ØMQ's encoder does), not in buffer-sized writes. Messages sent before the
 * channel is connected wait in the window and go out once it is.
 *
 * <h2>Inbound</h2>
 * The loop decodes frames straight into a second {@link OffHeapYPipe} (the inbound window; a
 * message is claimed whole and filled as its bytes arrive) and flushes it once per read; the
 * application thread reads it with {@link #receive(byte[])} or {@link #receiveBatch}, sleeping on
 * a {@link YSemaphore} when it is empty, woken only by the flush that finds it asleep; before it
 * parks it spins on that signal, yielding the CPU, for about as long as recent waits took (at most
 * {@link MessageStreamBuilder#replySpin} after its own send, {@link MessageStreamBuilder#readerSpin}
 * otherwise; none while waits are longer).
 *
 * <h2>A server that answers on the loop</h2>
 * With {@link MessageStreamBuilder#onLoop(LoopHandler)} the inbound messages go to a
 * {@link LoopHandler} on the event loop instead, which answers through a {@link LoopReply} framed
 * straight into the outbound batch and flushed once per read: no thread hand-off on that side.
 *
 * <h2>Back-pressure</h2>
 * <ul>
 *   <li>Outbound: a writer whose window is full blocks until the loop has drained room
 *       ({@link OnFull#BLOCK}, the default) or gets {@link WindowFullException}
 *       ({@link OnFull#FAIL}); {@link MessageWriter#offer} never blocks. The loop stops draining while the
 *       channel is not writable (Netty's write-buffer water marks), so a slow peer fills the
 *       windows.</li>
 *   <li>Inbound: when the inbound window is full, the loop turns the channel's {@code autoRead}
 *       off and keeps the bytes already read; the reader, after it has consumed, turns it back on.
 *       So a slow application reader slows the sender through TCP's own flow control.</li>
 * </ul>
 * No message is lost, duplicated or reordered on a live connection; messages of one writer keep
 * their order, messages of different writers interleave whole.
 *
 * <h2>The channel's handlers</h2>
 * {@link MessageStreamBuilder#attach} adds three handlers, each with one job: {@code ysuite-frame-decoder} (the
 * frames into the inbound window, and its flow control), {@code ysuite-frame-encoder} (the writers'
 * windows into framed batches) and {@code ysuite-message-stream} (the connect's outcome, failures,
 * the end of the channel, {@link #close()}). With {@link MessageStreamBuilder#tls} an
 * {@code SslHandler} named {@code ysuite-tls} comes first, and the stream carries messages only once
 * its handshake has succeeded (see docs/network.md, "TLS").
 *
 * <h2>Closing and errors</h2>
 * {@link #close()} sends what every writer had flushed when it was called (waiting at most
 * {@link MessageStreamBuilder#lingerMillis} for the socket to take it), closes the channel and releases the
 * pipes and the mailbox's descriptor. When the peer closes, {@link #receive(byte[])} returns the
 * messages that arrived and then {@code -1}; when the connection fails (reset, a malformed frame,
 * a close in the middle of a message) it returns them and then throws {@link IOException} with the
 * cause. A connect that fails, a channel closed before it connected, and a channel closed by its
 * event loop's shutdown end the stream the same way, with an {@link IOException} that says which.
 * With {@code ALLOW_HALF_CLOSURE}, the peer's shutdown of its output ends {@code receive} and
 * leaves the writers working. Writers get {@link IOException} once the connection is gone (a writer
 * waiting for room is woken). Close the stream in every case: that frees its off-heap memory (the
 * mailbox's descriptor is freed as soon as the channel closes).
 *
 * <pre>{@code
 * // in a ChannelInitializer (client or server child), before the channel reads:
 * MessageStream stream = MessageStream.builder().bufferSize(8192).attach(ch);
 * // any application thread:
 * MessageWriter out = stream.newWriter();
 * out.send(bytes, 0, bytes.length);
 * // the one reading thread:
 * byte[] buf = new byte[stream.maxMessageLength()];
 * int n = stream.receive(buf);   // -1: the peer closed
 * stream.close();
 * }</pre>
 */
public final class MessageStream implements AutoCloseable {

    /** The default {@link MessageStreamBuilder#bufferSize}: {@value} bytes, as in seed 003's runs. */
    public static final int DEFAULT_BUFFER_SIZE = 8192;
    /**
     * The default window (ring capacity) of each direction: {@value} bytes, sixteen messages of
     * the default maximum length. (With 256 KiB, a stream of 64 KiB messages fitted three per
     * window: the writer waited for room and the inbound side stalled every few messages, each a
     * thread hand-off; see docs/network.md.) Off-heap, per writer and per stream's inbound side.
     */
    public static final int DEFAULT_WINDOW = 1 << 20;
    /** The default {@link MessageStreamBuilder#maxMessageLength}: {@value} bytes. */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 1 << 16;
    /** The smallest {@link MessageStreamBuilder#bufferSize}: {@value} bytes. */
    public static final int MIN_BUFFER_SIZE = 1;
    /** The largest {@link MessageStreamBuilder#bufferSize}: {@value} bytes. */
    public static final int MAX_BUFFER_SIZE = 1 << 24;

    /** What a {@link MessageWriter#send} does when its outbound window is full. */
    public enum OnFull {
        /** Wait until the event loop has drained room (interruptible). */
        BLOCK,
        /** Throw {@link WindowFullException} at once. */
        FAIL
    }

    /** A {@link MessageWriter#send} found its outbound window full and the stream is set to {@link OnFull#FAIL}. */
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
    final int outboundWindow;
    private final int maxMessageLength;
    final OnFull onFull;
    private final long lingerMillis;

    private final OffHeapYPipe inbound;
    private final StreamStatus status;
    private final String name;
    /** The loop's stall for inbound room and the reader's resume (see {@link InboundStall}). */
    private final InboundStall inboundStall = new InboundStall();
    final FrameDecoder decoder;
    final FrameEncoder encoder;
    final WriterMailbox mailbox;
    final StreamLifecycle lifecycle;
    /** Set by {@link #close()}. */
    private volatile boolean closeRequested;

    MessageStream(MessageStreamBuilder b, Channel channel) {
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
        this.status = new StreamStatus(b.readerSpinNanos, b.replySpinNanos);
        // The pipe's reader never spins: the reader's one spin is ReaderWait's, on the signal.
        this.inbound = new OffHeapYPipe(b.loopHandler != null ? OffHeapYPipe.MIN_CAPACITY_BYTES : b.inboundWindow,
                WaitPolicy.purePark(), WaitPolicy.purePark());
        this.encoder = new FrameEncoder(bufferSize);
        LoopDispatch dispatch = b.loopHandler == null ? null
                : new LoopDispatch(b.loopHandler, encoder, maxMessageLength);
        // The on-loop server answers on the loop itself: nothing to linger for.
        LoopLinger linger = dispatch == null ? new LoopLinger(loop, b.loopLingerNanos) : LoopLinger.NONE;
        this.decoder = new FrameDecoder(inbound, maxMessageLength, status, inboundStall, dispatch, linger);
        try {
            this.mailbox = new WriterMailbox(loop, encoder, linger, outboundWindow, b.writerPolicies);
        } catch (RuntimeException e) {
            inbound.close();
            throw e;
        }
        StreamTls tls = b.tlsContext == null ? null : new StreamTls(b.tlsContext, b.verifyHostname);
        this.lifecycle = new StreamLifecycle(channel, status, decoder, encoder, mailbox, inbound, lingerMillis, tls);
        this.name = b.name;
        if (name != null) { // before any writer or reader thread can see the pipes
            inbound.named(name);
            status.name(name);
            mailbox.name(name);
        }
        if (tls != null && !tls.needsPeer(channel)) {
            tls.install(channel, channel.remoteAddress(), encoder, status); // a server, or a connected client
        }
    }

    /**
     * Returns the name given by {@link MessageStreamBuilder#name(String)}: the name of this
     * stream's pipes and reader in their Flight Recorder events.
     *
     * @return the name, or {@code null} if none was given
     */
    public String name() {
        return name;
    }

    /**
     * Starts the settings of a stream.
     *
     * @return a builder with the defaults
     */
    public static MessageStreamBuilder builder() {
        return new MessageStreamBuilder();
    }

    /**
     * Attaches a stream with the default settings to {@code channel}; see {@link MessageStreamBuilder#attach}.
     *
     * @param channel a registered TCP channel of an epoll or NIO {@code MultiThreadIoEventLoopGroup}
     * @return the stream
     * @throws IllegalArgumentException if the channel's loop is neither epoll nor NIO
     */
    public static MessageStream attach(Channel channel) {
        return builder().attach(channel);
    }

    // ------------------------------------------------------------------------------------------
    // Application side
    // ------------------------------------------------------------------------------------------

    /**
     * Makes a writer for the calling application thread. Each writer is used by one thread at a
     * time; any number of writers may send concurrently.
     *
     * @return a new writer
     * @throws IllegalStateException if the stream is closed, or the connection is gone (the
     *     message says which: closed by this side, closed by the peer, or failed)
     */
    public MessageWriter newWriter() {
        if (closeRequested) {
            throw new IllegalStateException("MessageStream is closed: no new writer");
        }
        OutboundPipe p = mailbox.newPipe();
        if (p == null) {
            IOException f = status.failure();
            throw new IllegalStateException(f != null ? f.getMessage() + ": no new writer"
                    : closeRequested ? "MessageStream is closed: no new writer"
                    : "the connection is closed (the peer closed it, or the channel was closed): no new writer", f);
        }
        return new MessageWriter(this, p);
    }

    /**
     * Copies the next message into {@code dst}, waiting for one if none has arrived. Only one
     * thread may read.
     *
     * @param dst where the message is copied, from index 0
     * @return the message's length, or {@code -1} if the peer closed the connection (or shut its
     *     output down) and every message has been read
     * @throws NullPointerException if {@code dst} is null
     * @throws IllegalArgumentException if the next message is longer than {@code dst} (it stays)
     * @throws IOException if the connection failed (after the messages that arrived before), the
     *     connect failed, the channel's event loop shut down, or the stream is closed
     * @throws InterruptedException if the thread is interrupted while waiting
     * @see MessageStreamBuilder#onLoop (such a stream's {@code receive} only waits for the end)
     */
    public int receive(byte[] dst) throws IOException, InterruptedException {
        Objects.requireNonNull(dst, "dst");
        for (;;) {
            int n = readOnce(dst);
            if (n >= 0) {
                return n;
            }
            if (status.inboundDone()) {
                n = readOnce(dst); // the loop's last flush happened before inboundDone was set
                return n >= 0 ? n : endOfStream();
            }
            status.awaitReader(); // the pipe's read put the reader to sleep: the next flush signals
        }
    }

    /**
     * Hands every message that has arrived to {@code handler} as views into the inbound pipe
     * (consumer-side batching, no copy), waiting for at least one. Only one thread may read. If
     * the handler throws, the exception propagates, the message it was given counts as read, and
     * the stream goes on: the next call gets the messages after it.
     *
     * @param handler called once per message on this thread; the view is valid only during the call
     * @return how many messages were handled ({@code >= 1}), or {@code -1} if the peer closed the
     *     connection and every message has been read
     * @throws NullPointerException if {@code handler} is null
     * @throws IOException as {@link #receive(byte[])} does
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public int receiveBatch(MessageHandler handler) throws IOException, InterruptedException {
        Objects.requireNonNull(handler, "handler");
        for (;;) {
            int n = readBatchOnce(handler);
            if (n > 0) {
                return n;
            }
            if (status.inboundDone()) {
                n = readBatchOnce(handler);
                return n > 0 ? n : endOfStream();
            }
            status.awaitReader();
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

    private int readBatchOnce(MessageHandler h) throws IOException {
        boolean done = false;
        try {
            int n = inbound.readBatch(h);
            done = true;
            if (n > 0) {
                consumed();
            }
            return n;
        } catch (IllegalStateException e) {
            if (inbound.isClosed()) {
                done = true;
                throw closedOr(e);
            }
            throw e; // the handler's, or misuse
        } finally {
            if (!done) {
                consumed(); // the handler threw: what it was given counts as read, and freed room
            }
        }
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
                loop.execute(decoder.resumeTask);
            } catch (RejectedExecutionException e) {
                // the loop is down: the channel is closed, nothing more will be read
            }
        }
    }

    private int endOfStream() throws IOException {
        if (closeRequested) {
            throw new IOException("MessageStream is closed");
        }
        IOException f = status.failure();
        if (f != null) {
            throw new IOException(f.getMessage(), f);
        }
        return -1;
    }

    /** An exception for a call that found a pipe or the mailbox closed; other misuse is rethrown. */
    IOException closedOr(IllegalStateException e) {
        IOException f = status.failure();
        if (closeRequested) {
            return new IOException("MessageStream is closed", e);
        }
        if (f != null) {
            return new IOException(f.getMessage(), f);
        }
        if (status.inboundDone() || !channel.isOpen() || mailbox.pipes().length == 0) {
            return new IOException("the connection is closed (the peer closed it, or the channel was closed)", e);
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
     * @return the count of the writers' mailbox's wake-ups
     */
    public long outboundWakeups() {
        return mailbox.wakeups();
    }

    /** How many times the reader parked on an empty inbound window (for the tests). */
    long readerWaits() {
        return status.readerWait().sleeps();
    }

    /** The reader's wait, for its counters (for the tests). */
    ReaderWait readerWait() {
        return status.readerWait();
    }

    /** The loop's linger for the reader's answers, for its counters (for the tests). */
    LoopLinger loopLinger() {
        return decoder.linger();
    }

    /**
     * Closes the stream: the messages flushed by every writer before this call are handed to the
     * socket (waiting at most {@link MessageStreamBuilder#lingerMillis} for it to take them), the channel is
     * closed, writers and the reader get {@link IOException} from then on, and the pipes' memory and
     * the mailbox's descriptor is released. Waits for all that unless called on the event loop.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closeRequested) {
            closeRequested = true;
            status.wakeReader(); // a reader waiting now wakes up and throws
            try {
                loop.execute(lifecycle.closeTask);
            } catch (RejectedExecutionException e) {
                lifecycle.release(); // the loop is gone: nobody else touches the pipes
            }
        }
        if (!loop.inEventLoop()) {
            try {
                lifecycle.releasedFuture().get(lingerMillis + 10_000, TimeUnit.MILLISECONDS);
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
        return lifecycle.releasedFuture().copy();
    }

    /**
     * Describes the stream.
     *
     * @return the channel and the state
     */
    @Override
    public String toString() {
        return "MessageStream[" + channel + (closeRequested ? ", closed" : status.inboundDone() ? ", ended" : "")
                + ", bufferSize=" + bufferSize + "]";
    }
}
