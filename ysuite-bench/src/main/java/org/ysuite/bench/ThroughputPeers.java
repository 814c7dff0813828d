package org.ysuite.bench;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.jctools.queues.SpscArrayQueue;
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YSemaphore;
import org.ysuite.bench.support.CountingSink;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Window;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The contenders of {@link Throughput} (seed 000, maximal throughput) beside its YPipe rows:
 * ysuite's OffHeapYPipe and YMailbox, JDK queues, JCTools, the Disruptor, JeroMQ, Unix-domain
 * sockets and Agrona, each with its reader thread, written the way that library's users write it.
 * {@link Peer} is the one factory: {@link Throughput#peer} measures whichever one its state holds.
 */
public final class ThroughputPeers {

    private ThroughputPeers() {
    }

    /** A running stream: its reader thread started; {@link #send} is the measured path. */
    public interface Sender extends AutoCloseable {
        /**
         * Sends one message, flushed (published) at once, waiting the transport's way while full.
         *
         * @throws Exception if the run is stopped or the transport fails
         */
        void send() throws Exception;
    }

    /** The contenders: the constant's name is the row's name ({@code -p peer=<name>}). */
    public enum Peer {
        /** OffHeapYPipe of 8-byte messages over a 64 KiB ring, woken by a YSemaphore. */
        @Transport(label = "OffHeapYPipe (8 B)", kind = Transport.Kind.YSUITE)
        offHeapYPipe(v -> new OffHeap()),
        /** YMailbox over its YPollset, one writer. */
        @Transport(label = "YMailbox", kind = Transport.Kind.YSUITE)
        ymailbox(v -> new Mailbox()),
        /** java.util.concurrent.SynchronousQueue put. */
        @Transport(label = "SynchronousQueue", kind = Transport.Kind.BLOCKING)
        synchronousQueue(v -> new Queue(new SynchronousQueue<>(), false, v)),
        /** java.util.concurrent.LinkedTransferQueue put (unbounded: held to the credit window). */
        @Transport(label = "LinkedTransferQueue", kind = Transport.Kind.BLOCKING)
        linkedTransferQueue(v -> new Queue(new LinkedTransferQueue<>(), true, v)),
        /** java.util.concurrent.ArrayBlockingQueue put. */
        @Transport(label = "ArrayBlockingQueue", kind = Transport.Kind.BLOCKING)
        arrayBlockingQueue(v -> new Queue(new ArrayBlockingQueue<>(Msg.CAPACITY), false, v)),
        /** JCTools MpscBlockingConsumerArrayQueue offer; the reader drains, then takes when empty. */
        @Transport(label = "JCTools MpscBlockingConsumerArrayQueue", kind = Transport.Kind.BLOCKING)
        jctoolsMpscBlocking(v -> new Mpsc(0, v)),
        /**
         * As {@link #jctoolsMpscBlocking}, the reader spinning as long as ysuite's default policy
         * spins at most ({@link WaitPolicy#DEFAULT_SPINS} rounds) before take(): the same-spin peer.
         */
        @Transport(label = "JCTools MpscBlockingConsumerArrayQueue (spin, then take)", kind = Transport.Kind.BLOCKING)
        jctoolsMpscBlockingSpin(v -> new Mpsc(WaitPolicy.DEFAULT_SPINS, v)),
        /** LMAX Disruptor, BlockingWaitStrategy: next, set, publish. */
        @Transport(label = "Disruptor (BlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
        disruptorBlocking(v -> new Disruptor(new BlockingWaitStrategy())),
        /** LMAX Disruptor, BusySpinWaitStrategy: next, set, publish. */
        @Transport(label = "Disruptor (BusySpinWaitStrategy)", kind = Transport.Kind.BUSY_SPIN)
        disruptorBusySpin(v -> new Disruptor(new BusySpinWaitStrategy())),
        /** JeroMQ inproc PAIR send (blocks at the high-water mark). */
        @Transport(label = "JeroMQ inproc PAIR", kind = Transport.Kind.BLOCKING)
        jeromqPair(v -> new Zmq()),
        /** Local sockets: one 8-byte write per message, the reader reads all it can. */
        @Transport(label = "Unix-domain SocketChannel", kind = Transport.Kind.SOCKET)
        unixSocketChannel(v -> new UnixSocket()),
        /** JCTools SpscArrayQueue offer (spinning while full); the reader spins when empty. */
        @Transport(label = "JCTools SpscArrayQueue (busy-spin)", kind = Transport.Kind.BUSY_SPIN)
        jctoolsSpsc(v -> new Spsc()),
        /** Agrona OneToOneConcurrentArrayQueue offer (spinning while full); the reader spins. */
        @Transport(label = "Agrona OneToOneConcurrentArrayQueue (busy-spin)", kind = Transport.Kind.BUSY_SPIN)
        agronaQueue(v -> new AgronaQueue()),
        /** Agrona OneToOneRingBuffer write of 8 bytes (spinning while full); the reader spins. */
        @Transport(label = "Agrona OneToOneRingBuffer (busy-spin)", kind = Transport.Kind.BUSY_SPIN)
        agronaRingBuffer(v -> new AgronaRing());

        private final Opener open;

        Peer(Opener open) {
            this.open = open;
        }

        /**
         * Makes this contender's stream and starts its reader.
         *
         * @param virtualReader whether a queue's reader runs in a virtual thread ({@link VirtualThreads})
         * @return the stream
         * @throws Exception if it cannot be set up
         */
        public Sender open(boolean virtualReader) throws Exception {
            return open.open(virtualReader);
        }
    }

    /** Makes a contender's stream. */
    private interface Opener {
        Sender open(boolean virtualReader) throws Exception;
    }

    /** A stream whose reader is one {@link Partner}, stopped (interrupted) at close. */
    abstract static class Read implements Sender {
        Partner reader;

        @Override
        public void close() throws Exception {
            reader.stop(null);
        }
    }

    /** A blocking queue drained in batches; take() when empty. */
    static final class Queue extends Read {
        private final BlockingQueue<Long> queue;
        private final Window window;

        Queue(BlockingQueue<Long> q, boolean windowed, boolean virtual) {
            queue = q;
            window = windowed ? new Window(Msg.WINDOW) : null;
            CountingSink<Long> sink = new CountingSink<>();
            Partner.Step step = () -> {
                int n = q.drainTo(sink);
                if (n == 0) {
                    sink.add(q.take());
                    n = 1;
                }
                if (window != null) {
                    window.consumed(n);
                }
            };
            reader = virtual ? Partner.startVirtual("queue-reader", step) : Partner.start("queue-reader", step);
        }

        @Override
        public void send() throws InterruptedException {
            if (window != null) {
                window.beforeSend(1);
            }
            queue.put(Msg.MESSAGE);
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue: offer, yielding while full (its producers cannot
     * block: put() throws); the reader drains, looks {@code spins} more rounds, then takes.
     */
    static final class Mpsc extends Read {
        private final MpscBlockingConsumerArrayQueue<Long> queue = new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY);

        Mpsc(int spins, boolean virtual) {
            CountingSink<Long> counting = new CountingSink<>();
            MessagePassingQueue.Consumer<Long> sink = counting::accept;
            Partner.Step step = () -> {
                if (queue.drain(sink) > 0) {
                    return;
                }
                for (int round = 0; round < spins; round++) {
                    Thread.onSpinWait();
                    if (queue.drain(sink) > 0) {
                        return;
                    }
                }
                counting.add(queue.take());
            };
            reader = virtual ? Partner.startVirtual("mpsc-reader", step) : Partner.start("mpsc-reader", step);
        }

        @Override
        public void send() {
            while (!queue.offer(Msg.MESSAGE)) {
                Thread.yield();
            }
        }
    }

    /** OffHeapYPipe: write (waiting for space when full), flush, signal when the reader sleeps. */
    static final class OffHeap extends Read {
        final byte[] payload = new byte[8];
        final OffHeapYPipe pipe = new OffHeapYPipe(64 * 1024);
        final YSemaphore wake = new YSemaphore();
        private long sum;

        OffHeap() {
            MessageHandler handler = (buf, off, len) -> sum += buf.getLong(off);
            reader = Partner.start("offheap-reader", () -> {
                if (pipe.readBatch(handler) == 0) {
                    wake.await();
                }
            });
        }

        @Override
        public void send() throws InterruptedException {
            while (!pipe.write(payload)) {
                pipe.awaitSpace(payload.length);
            }
            if (!pipe.flush()) {
                wake.signal(0);
            }
        }

        @Override
        public void close() throws Exception {
            super.close();
            pipe.close();
        }
    }

    /** YMailbox: send (write + flush, signalling only a sleeping reader), held to the window. */
    static final class Mailbox extends Read {
        private final YMailbox<Long> mailbox = new YMailbox<>();
        private final YMailbox.Writer<Long> writer = mailbox.newWriter();
        private final Window window = new Window(Msg.WINDOW);

        Mailbox() {
            CountingSink<Long> sink = new CountingSink<>();
            reader = Partner.start("mailbox-reader", () -> window.consumed(mailbox.poll(sink)));
        }

        @Override
        public void send() {
            window.beforeSend(1);
            writer.send(Msg.MESSAGE);
        }
    }

    /** Mutable event of the Disruptor ring. */
    static final class LongEvent {
        long value;
    }

    /** A Disruptor ring with one BatchEventProcessor: next, set, publish. */
    static final class Disruptor implements Sender {
        private final RingBuffer<LongEvent> ring;
        private final BatchEventProcessor<LongEvent> processor;
        private final Thread thread;
        private long sum;

        Disruptor(WaitStrategy strategy) {
            ring = RingBuffer.createSingleProducer(LongEvent::new, Msg.CAPACITY, strategy);
            processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(),
                    (event, sequence, endOfBatch) -> sum += event.value);
            ring.addGatingSequences(processor.getSequence());
            thread = new Thread(processor, "disruptor-reader");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void send() {
            long seq = ring.next();
            ring.get(seq).value = seq;
            ring.publish(seq);
        }

        @Override
        public void close() throws InterruptedException {
            processor.halt();
            thread.join(10_000);
            if (thread.isAlive()) {
                throw new IllegalStateException("disruptor reader did not stop");
            }
        }
    }

    /** JeroMQ inproc PAIR: the reader owns its socket and stops at a one-byte message. */
    static final class Zmq extends Read {
        private final byte[] payload = new byte[8];
        private final ZContext ctx = new ZContext();
        private final ZMQ.Socket main = ctx.createSocket(SocketType.PAIR);

        Zmq() {
            String addr = "inproc://thr-" + System.nanoTime();
            main.bind(addr);
            ZMQ.Socket peer = ctx.createSocket(SocketType.PAIR);
            peer.connect(addr);
            reader = Partner.start("zmq-reader", () -> {
                byte[] m = peer.recv(0);
                if (m == null || m.length == 1) {
                    peer.close();
                    throw new InterruptedException("stop");
                }
            });
        }

        @Override
        public void send() {
            if (!main.send(payload, 0)) {
                throw new IllegalStateException("JeroMQ did not queue the message");
            }
        }

        @Override
        public void close() throws Exception {
            reader.stopWithoutInterrupt(() -> main.send(new byte[] {1}, 0));
            main.close();
            ctx.close();
        }
    }

    /** JDK Unix-domain SocketChannel: 8 bytes a message, the reader reads all it can. */
    static final class UnixSocket extends Read {
        private final ByteBuffer out = ByteBuffer.allocateDirect(8);
        private final Path dir;
        private final SocketChannel main;
        private final SocketChannel peer;

        UnixSocket() throws java.io.IOException {
            SocketChannel[] pair = WorstCase.UnixSockets.connectedPair();
            dir = WorstCase.UnixSockets.lastDir;
            main = pair[0];
            peer = pair[1];
            ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
            reader = Partner.start("uds-reader", () -> {
                in.clear();
                if (peer.read(in) < 0) {
                    throw new java.io.IOException("closed");
                }
            });
        }

        @Override
        public void send() throws java.io.IOException {
            out.clear();
            WorstCase.UnixSockets.writeFully(main, out);
        }

        @Override
        public void close() throws Exception {
            reader.stop(() -> WorstCase.UnixSockets.closeQuietly(peer));
            WorstCase.UnixSockets.closeQuietly(main);
            WorstCase.UnixSockets.deleteQuietly(dir);
        }
    }

    /** JCTools SpscArrayQueue, the reader spins when empty. */
    static final class Spsc extends Read {
        private final SpscArrayQueue<Long> queue = new SpscArrayQueue<>(Msg.CAPACITY);

        Spsc() {
            CountingSink<Long> counting = new CountingSink<>();
            MessagePassingQueue.Consumer<Long> sink = counting::accept;
            reader = Partner.start("spsc-reader", () -> {
                if (queue.drain(sink) == 0) {
                    Thread.onSpinWait();
                }
            });
        }

        @Override
        public void send() {
            while (!queue.offer(Msg.MESSAGE)) {
                Thread.onSpinWait();
            }
        }
    }

    /** Agrona OneToOneConcurrentArrayQueue, the reader spins when empty. */
    static final class AgronaQueue extends Read {
        private final OneToOneConcurrentArrayQueue<Long> queue = new OneToOneConcurrentArrayQueue<>(Msg.CAPACITY);

        AgronaQueue() {
            CountingSink<Long> sink = new CountingSink<>();
            reader = Partner.start("agrona-q-reader", () -> {
                if (queue.drain(sink) == 0) {
                    Thread.onSpinWait();
                }
            });
        }

        @Override
        public void send() {
            while (!queue.offer(Msg.MESSAGE)) {
                Thread.onSpinWait();
            }
        }
    }

    /** Agrona OneToOneRingBuffer of 8-byte messages, the reader spins when empty. */
    static final class AgronaRing extends Read {
        private final OneToOneRingBuffer ring = new OneToOneRingBuffer(new UnsafeBuffer(
                ByteBuffer.allocateDirect(64 * 1024 + RingBufferDescriptor.TRAILER_LENGTH)));
        private final UnsafeBuffer src = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        private long sum;

        AgronaRing() {
            org.agrona.concurrent.MessageHandler handler = (type, buffer, index, length) -> sum += buffer.getLong(index);
            reader = Partner.start("agrona-rb-reader", () -> {
                if (ring.read(handler) == 0) {
                    Thread.onSpinWait();
                }
            });
        }

        @Override
        public void send() {
            while (!ring.write(1, src, 0, 8)) {
                Thread.onSpinWait();
            }
        }
    }
}
