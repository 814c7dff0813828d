package org.ysuite.zmq.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Map;

/**
 * One connection's side of a ZMTP security mechanism (ZeroMQ RFC 23 "Authentication and
 * Confidentiality"): NULL ({@link NullMechanism}), PLAIN (RFC 24: {@link PlainClientMechanism},
 * {@link PlainServerMechanism}), CURVE (RFC 25/26: {@link CurveClientMechanism},
 * {@link CurveServerMechanism}): it consumes the peer's
 * handshake commands and produces its own, then yields the peer's metadata. ERROR commands never reach
 * it (the engine handles them in every phase), and neither do the greeting's checks.
 *
 * <p>A mechanism that protects traffic (CURVE) also wraps message frames ({@link #codec()})
 * after the handshake; the engine then routes frames through it instead of its plain path.
 */
interface ZmtpMechanism {

    /** Where a mechanism sends its commands. */
    interface Output {
        /** The allocator for command frames. */
        ByteBufAllocator alloc();

        /** Queues and flushes one whole command frame (see {@link ZmtpCommands#command}); takes ownership. */
        void send(ByteBuf commandFrame);

        /**
         * Runs {@code task} on the connection's event loop later (any thread may call this), unless the
         * connection has ended by then; a {@link ZmtpProtocolException} it throws ends the connection as
         * one thrown by {@link ZmtpMechanism#command} does. For answers that come asynchronously (ZAP).
         */
        void later(Task task);

        /**
         * The handshake completed outside {@link ZmtpMechanism#command} (a ZAP answer that came after the
         * peer's last command): the engine moves to the traffic phase.
         */
        void complete() throws ZmtpProtocolException;

        /** The peer's IP address as text, empty where the transport has none (ipc, embedded). */
        String peerAddress();
    }

    /** A step of the handshake run later on the connection's loop. */
    interface Task {
        /** Runs the step. */
        void run() throws ZmtpProtocolException;
    }

    /** The name the greeting announces and expects (at most 20 ASCII bytes), e.g. {@code "NULL"}. */
    String name();

    /** Both greetings are known and agree: send the first commands (NULL and the clients of PLAIN/CURVE). */
    void start(Output out);

    /**
     * One handshake command from the peer: its body (name length, name, data) is the {@code length}
     * bytes of {@code in} from {@code offset}, valid only during this call.
     *
     * @return true once the handshake is complete (this side has sent its last command and read the peer's)
     * @throws ZmtpProtocolException if the command is not one the mechanism expects now, or malformed
     */
    boolean command(ByteBuf in, int offset, int length, Output out) throws ZmtpProtocolException;

    /** The metadata the peer sent (READY's, or INITIATE's for CURVE), once {@link #command} returned true. */
    Map<String, byte[]> peerProperties();

    /** The connection ended (in any phase): drop what is pending (a ZAP request). Event loop. */
    default void close() {
    }

    /**
     * What wraps frames after the handshake (CURVE's MESSAGE boxes), once {@link #command} returned true
     * or {@link Output#complete} was called; null for NULL and PLAIN.
     */
    default CurveCodec codec() {
        return null;
    }
}
