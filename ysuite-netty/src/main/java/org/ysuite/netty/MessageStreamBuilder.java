package org.ysuite.netty;

import io.netty.channel.Channel;
import java.util.Objects;
import java.util.function.Supplier;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;

/**
 * Settings of a {@link MessageStream}, from {@link MessageStream#builder()}. Not thread-safe; each
 * {@link #attach} makes a new stream.
 */
public final class MessageStreamBuilder {

    /**
     * The default {@link #readerSpin}: {@value} ns. On a machine where every core is busy a
     * longer spin takes the CPU from the event loop the reader waits for; where a core is free,
     * up to one round trip pays.
     */
    public static final long DEFAULT_READER_SPIN_NANOS = 10_000;
    /** The largest {@link #readerSpin} and {@link #replySpin}: {@value} ns. */
    public static final long MAX_READER_SPIN_NANOS = 1_000_000;
    /**
     * The default {@link #replySpin}: {@value} ns, a few loopback round trips on a 2-vCPU virtual
     * machine (a spinning reader gets a reply in about 20 µs where a parked one needs 50–70 µs).
     */
    public static final long DEFAULT_REPLY_SPIN_NANOS = 100_000;
    /**
     * The default {@link #loopLinger}: {@value} ns, a few times what a spinning reader takes to
     * answer a message it was waiting for.
     */
    public static final long DEFAULT_LOOP_LINGER_NANOS = 20_000;
    /**
     * The largest {@link #lingerMillis}: {@value} ms (one hour). A caller of
     * {@link MessageStream#close()} off the loop waits up to the linger and 10 s more.
     */
    public static final long MAX_LINGER_MILLIS = 3_600_000;

    int bufferSize = MessageStream.DEFAULT_BUFFER_SIZE;
    int outboundWindow = MessageStream.DEFAULT_WINDOW;
    int inboundWindow = MessageStream.DEFAULT_WINDOW;
    int maxMessageLength = MessageStream.DEFAULT_MAX_MESSAGE_LENGTH;
    MessageStream.OnFull onFull = MessageStream.OnFull.BLOCK;
    long lingerMillis = 5000;
    long readerSpinNanos = DEFAULT_READER_SPIN_NANOS;
    long replySpinNanos = DEFAULT_REPLY_SPIN_NANOS;
    long loopLingerNanos = DEFAULT_LOOP_LINGER_NANOS;
    Supplier<? extends WaitPolicy> writerPolicies = WaitPolicy::defaultPolicy;
    LoopHandler loopHandler;
    String name;
    /** An {@code io.netty.handler.ssl.SslContext}, or null (no TLS). */
    io.netty.handler.ssl.SslContext tlsContext;
    boolean verifyHostname = true;

    MessageStreamBuilder() {
    }

    /**
     * Names the stream: the name appears in the Flight Recorder events of its pipes and of its
     * reader's sleep (see docs/observability.md), and in {@link MessageStream#name()}.
     *
     * @param name the name
     * @return this builder
     * @throws NullPointerException if {@code name} is null
     */
    public MessageStreamBuilder name(String name) {
        this.name = java.util.Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * Sets the largest batch the loop hands to the socket in one call (seed 003's buffer size).
     *
     * @param bytes from {@value MessageStream#MIN_BUFFER_SIZE} to {@value MessageStream#MAX_BUFFER_SIZE}; default
     *     {@value MessageStream#DEFAULT_BUFFER_SIZE}
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is out of range
     */
    public MessageStreamBuilder bufferSize(int bytes) {
        if (bytes < MessageStream.MIN_BUFFER_SIZE || bytes > MessageStream.MAX_BUFFER_SIZE) {
            throw new IllegalArgumentException("bufferSize must be from " + MessageStream.MIN_BUFFER_SIZE + " to "
                    + MessageStream.MAX_BUFFER_SIZE + " bytes, not " + bytes);
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
     *     {@value OffHeapYPipe#MAX_CAPACITY_BYTES}; default {@value MessageStream#DEFAULT_WINDOW}
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is out of range or not a power of two
     */
    public MessageStreamBuilder outboundWindow(int bytes) {
        this.outboundWindow = checkWindow("outboundWindow", bytes);
        return this;
    }

    /**
     * Sets the size of the inbound pipe (how far the loop may read ahead of the reader before it
     * stops reading the channel).
     *
     * @param bytes a power of two from {@value OffHeapYPipe#MIN_CAPACITY_BYTES} to
     *     {@value OffHeapYPipe#MAX_CAPACITY_BYTES}; default {@value MessageStream#DEFAULT_WINDOW}
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is out of range or not a power of two
     */
    public MessageStreamBuilder inboundWindow(int bytes) {
        this.inboundWindow = checkWindow("inboundWindow", bytes);
        return this;
    }

    /**
     * Sets the longest message either side accepts; a longer incoming frame fails the
     * connection. It must fit both windows (checked by {@link #attach}).
     *
     * @param bytes {@code >= 0}; default {@value MessageStream#DEFAULT_MAX_MESSAGE_LENGTH}
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public MessageStreamBuilder maxMessageLength(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("maxMessageLength must be >= 0, not " + bytes);
        }
        this.maxMessageLength = bytes;
        return this;
    }

    /**
     * Sets what {@link MessageWriter#send} does when its window is full.
     *
     * @param policy {@link MessageStream.OnFull#BLOCK} (default) or {@link MessageStream.OnFull#FAIL}
     * @return this builder
     * @throws NullPointerException if {@code policy} is null
     */
    public MessageStreamBuilder onFull(MessageStream.OnFull policy) {
        this.onFull = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * Sets how long {@link MessageStream#close()} waits for the socket to take the messages
     * already sent before it closes the channel anyway.
     *
     * @param millis {@code 0} to {@link #MAX_LINGER_MILLIS}; default 5000
     * @return this builder
     * @throws IllegalArgumentException if {@code millis} is out of range
     */
    public MessageStreamBuilder lingerMillis(long millis) {
        if (millis < 0 || millis > MAX_LINGER_MILLIS) {
            throw new IllegalArgumentException("lingerMillis must be from 0 to " + MAX_LINGER_MILLIS + " ms, not "
                    + millis);
        }
        this.lingerMillis = millis;
        return this;
    }

    /**
     * Sets the longest the reader spins, when it finds the inbound window empty, before it parks,
     * for a message it did not ask for (see {@link #replySpin} for a reply to its own). The spin
     * is adaptive: about as long as recent such waits took, at most this long, and none while
     * waits keep taking longer than this (a sparse stream costs no spinning CPU). {@code 0} parks
     * at once. A virtual thread spins at most {@link WaitPolicy#virtualThreadSpins()} rounds'
     * worth, i.e. not at all by default.
     *
     * @param nanos from 0 to {@value #MAX_READER_SPIN_NANOS}; default
     *     {@value #DEFAULT_READER_SPIN_NANOS}
     * @return this builder
     * @throws IllegalArgumentException if {@code nanos} is out of range
     */
    public MessageStreamBuilder readerSpin(long nanos) {
        this.readerSpinNanos = checkSpin("readerSpin", nanos);
        return this;
    }

    /**
     * Sets the longest the reader spins before it parks when the reading thread itself sent a
     * message since its last wait: a request/response, whose reply is due within a round trip.
     * Adaptive as {@link #readerSpin} is: about as long as recent replies took, at most this long,
     * and none while replies keep taking longer (a client that waits seconds for its answers
     * soon spins not at all). A spinning reader takes its reply without a wake-up, and on a
     * machine with a free core the loops' wake-ups are cheaper too; on a machine where every core
     * is busy the spin competes with the event loops, so set it lower there. {@code 0} parks at
     * once. Virtual threads as for {@link #readerSpin}.
     *
     * @param nanos from 0 to {@value #MAX_READER_SPIN_NANOS}; default
     *     {@value #DEFAULT_REPLY_SPIN_NANOS}
     * @return this builder
     * @throws IllegalArgumentException if {@code nanos} is out of range
     */
    public MessageStreamBuilder replySpin(long nanos) {
        this.replySpinNanos = checkSpin("replySpin", nanos);
        return this;
    }

    /**
     * Sets the longest the event loop stays awake, after it handed messages to a reader that is
     * awake (spinning or busy), for that reader's answer: a send that finds the loop awake wakes
     * nothing (no system call) and goes out at once. Adaptive: about twice as long as recent
     * answers took, at most this long, and none while lingers keep running out (a reader that
     * does not answer, as in one-way traffic, soon costs the loop nothing). While it lingers the
     * loop handles no other channel's I/O, so keep it short on loops that serve many channels.
     * {@code 0} never lingers. Streams whose handler runs on the loop ({@link #onLoop}) never
     * linger.
     *
     * @param nanos from 0 to {@value #MAX_READER_SPIN_NANOS}; default
     *     {@value #DEFAULT_LOOP_LINGER_NANOS}
     * @return this builder
     * @throws IllegalArgumentException if {@code nanos} is out of range
     */
    public MessageStreamBuilder loopLinger(long nanos) {
        this.loopLingerNanos = checkSpin("loopLinger", nanos);
        return this;
    }

    private static long checkSpin(String name, long nanos) {
        if (nanos < 0 || nanos > MAX_READER_SPIN_NANOS) {
            throw new IllegalArgumentException(name + " must be from 0 to " + MAX_READER_SPIN_NANOS
                    + " ns, not " + nanos);
        }
        return nanos;
    }

    /**
     * Sets how a writer waits for room ({@link MessageStream.OnFull#BLOCK}): {@code policies}
     * is called once per {@link MessageStream#newWriter()}, so that each writer thread has its
     * own (an {@link WaitPolicy#adaptive() adaptive} policy keeps state of its waiting thread).
     *
     * @param policies gives each new writer its policy, e.g. {@code WaitPolicy::adaptive};
     *     default {@code WaitPolicy::defaultPolicy}
     * @return this builder
     * @throws NullPointerException if {@code policies} is null
     */
    public MessageStreamBuilder writerWaitPolicy(Supplier<? extends WaitPolicy> policies) {
        this.writerPolicies = Objects.requireNonNull(policies, "policies");
        return this;
    }

    /**
     * Makes the stream hand each inbound message to {@code handler} on the channel's event loop
     * instead of to {@link MessageStream#receive(byte[])}: a server that answers on the loop,
     * with no thread hand-off and no wake-up on its side (see {@link LoopHandler}). The replies
     * are framed into the outbound batch and flushed once per read of the loop. While the
     * channel is not writable (the peer does not read the replies), the stream stops reading it,
     * so a fast requester cannot make this side buffer without bound. {@code receive} on such a
     * stream returns no message: it waits for the end ({@code -1}, or the failure as
     * {@code IOException}). The inbound window is not used (set it small to save memory).
     *
     * @param handler called on the loop with each inbound message; {@code null} (the default)
     *     delivers the messages to {@code receive}
     * @return this builder
     */
    public MessageStreamBuilder onLoop(LoopHandler handler) {
        this.loopHandler = handler;
        return this;
    }

    /**
     * Runs the stream over TLS with Netty's {@code SslHandler}, made from {@code context} and put
     * first in the pipeline, ahead of the frame decoder and encoder. A server context
     * ({@code SslContextBuilder.forServer}) authenticates this side to its clients, and requires
     * their certificates too when built with {@code ClientAuth.REQUIRE} (mutual authentication). A
     * client context ({@code SslContextBuilder.forClient}) verifies the server's certificate against
     * its trust, and its host name against the connect address's host (hostname verification,
     * HTTPS rules: a DNS name or an IP address in the certificate's subject alternative names),
     * unless {@link #insecureNoHostnameVerification()} is called. A client's handler is made at the
     * connect (or at {@link #attach}, for a channel already connected).
     *
     * <p>Messages sent before the handshake completes wait in the writers' windows, as they wait for
     * the connect, and go out once it succeeds; nothing is received before. A failed handshake ends
     * the stream as a refused connect does: {@link MessageStream#receive} and the writers throw an
     * {@link java.io.IOException} whose message reads "TLS handshake with &lt;address&gt; failed:
     * &lt;cause&gt;". Needs {@code netty-handler} on the class or module path (the application's, as
     * Netty is).
     *
     * @param context a client or server {@code SslContext}; {@code null} (the default) for no TLS
     * @return this builder
     */
    public MessageStreamBuilder tls(io.netty.handler.ssl.SslContext context) {
        this.tlsContext = context;
        return this;
    }

    /**
     * Turns a TLS client's hostname verification off: the server's certificate is still checked
     * against the client's trust, but any host's certificate issued by a trusted authority is
     * accepted. The risk: anyone holding such a certificate for another host (any customer of a
     * public authority, any service of a shared private one) can stand between this client and its
     * server, read and change every message. Use it only where the trust itself names one peer
     * (e.g. a trust store holding exactly the server's own certificate). No effect on a server.
     *
     * @return this builder
     */
    public MessageStreamBuilder insecureNoHostnameVerification() {
        this.verifyHostname = false;
        return this;
    }

    /**
     * Makes a stream over {@code channel} and adds its handlers at the end of the channel's
     * pipeline (and, with {@link #tls}, an {@code SslHandler} at its start). Call it before the channel reads (in a {@code ChannelInitializer}, or with
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
        int fits = loopHandler != null ? OffHeapYPipe.maxMessageLength(outboundWindow) // no inbound window
                : Math.min(OffHeapYPipe.maxMessageLength(outboundWindow), OffHeapYPipe.maxMessageLength(inboundWindow));
        if (maxMessageLength > fits) {
            throw new IllegalArgumentException("maxMessageLength (" + maxMessageLength
                    + ") must be at most " + fits + " bytes for windows of " + outboundWindow
                    + " and " + inboundWindow + " bytes (window / 2 - 4)");
        }
        MessageStream s = new MessageStream(this, channel);
        channel.pipeline().addLast("ysuite-frame-decoder", s.decoder);
        channel.pipeline().addLast("ysuite-frame-encoder", s.encoder);
        channel.pipeline().addLast("ysuite-message-stream", s.lifecycle);
        return s;
    }
}
