package org.ysuite.bench;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.ysuite.YPipe;
import org.ysuite.bench.support.Msg;
import org.ysuite.bench.support.Partner;
import org.ysuite.bench.support.Transport;
import org.ysuite.bench.support.Wake;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Seed 000, scenario 1, the worst case: one message bounced between two threads, the receiver
 * asleep each time (it found its pipe empty and went to wait before the message arrived).
 *
 * <p>The JMH thread pings, an echo thread owned by the state pongs. One invocation is a round
 * trip, counted as two messages, so the score is the one-way density in ns/msg.
 *
 * <p>{@link #ypipe} measures the YPipe rows (one per signaler and policy); {@link #peer} every
 * other contender, the one its state's {@code peer} parameter names ({@link Peer}, the factory).
 *
 * <p>Longer than 500 lines on purpose: the report's worst-case scenario is this one JMH class
 * (its name is the scenario), so every contender's ping-pong lives here beside its factory.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Msg.HEAP, Msg.NATIVE})
@Timeout(time = 60)
public class WorstCase {

    /** YPipe in each direction, woken by the chosen signaler. */
    @State(Scope.Benchmark)
    public static class YPipePing {
        /** Signaler: YPollset ("with poll"), YSemaphore ("without poll"), YSocketPair. */
        @Param({Wake.POLLSET, Wake.SEMAPHORE, Wake.SOCKETPAIR, Wake.EVENTFD})
        public String signaler;
        /** The pipes' readers' policy ({@link Wake#policy(int)}): 0 is pure park, 200 the default. */
        @Param({"0", "200"})
        public int spin;

        YPipe<Long> ping;
        YPipe<Long> pong;
        Wake echoWake;
        Wake mainWake;
        Partner echo;

        /** Makes the pipes and signalers and starts the echo. */
        @Setup(Level.Trial)
        public void setup() {
            // The pipes' readers wait as `spin` says ("pure park" parks at its first empty look,
            // so the receiver really is asleep each time: the seed's worst case); the signalers
            // keep their default, purePark(): a waiting side spins once, in its pipe's reader
            // (docs/design.md, "Who spins where").
            ping = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, Wake.policy(spin));
            pong = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, Wake.policy(spin));
            echoWake = Wake.create(signaler, 0);
            mainWake = Wake.create(signaler, 0);
            echo = Partner.start("ypipe-echo", () -> {
                Long m;
                while ((m = ping.read()) == null) {
                    echoWake.await();
                }
                pong.write(m);
                if (!pong.flush()) {
                    mainWake.signal();
                }
            });
        }

        /**
         * Stops the echo and closes the signalers.
         *
         * @throws Exception if the echo does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            echo.stop(null);
            echoWake.close();
            mainWake.close();
        }
    }

    /**
     * y-suite: YPipe plus a signaler (YPollset = "with poll", YSemaphore = "without poll").
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "YPipe", kind = Transport.Kind.YSUITE)
    public Long ypipe(YPipePing s) throws InterruptedException {
        s.ping.write(Msg.MESSAGE);
        if (!s.ping.flush()) {
            s.echoWake.signal();
        }
        Long m;
        while ((m = s.pong.read()) == null) {
            s.mainWake.await();
        }
        return m;
    }

    /** A running ping-pong: its echo thread started; {@link #pingPong} is the measured path. */
    public interface Ping extends AutoCloseable {
        /**
         * Sends one message and waits for its echo, each side waiting the transport's way.
         *
         * @return the echoed value
         * @throws Exception if the run is stopped or the transport fails
         */
        long pingPong() throws Exception;
    }

    /** The contenders beside the YPipe rows: the constant's name is the row's name ({@code -p peer=<name>}). */
    public enum Peer {
        /** java.util.concurrent.SynchronousQueue put/take. */
        @Transport(label = "SynchronousQueue", kind = Transport.Kind.BLOCKING)
        synchronousQueue(v -> new QueuePing(SynchronousQueue::new, 0, v)),
        /** java.util.concurrent.LinkedTransferQueue put/take. */
        @Transport(label = "LinkedTransferQueue", kind = Transport.Kind.BLOCKING)
        linkedTransferQueue(v -> new QueuePing(LinkedTransferQueue::new, 0, v)),
        /** java.util.concurrent.ArrayBlockingQueue put/take. */
        @Transport(label = "ArrayBlockingQueue", kind = Transport.Kind.BLOCKING)
        arrayBlockingQueue(v -> new QueuePing(() -> new ArrayBlockingQueue<>(Msg.CAPACITY), 0, v)),
        /** JCTools MpscBlockingConsumerArrayQueue put/take. */
        @Transport(label = "JCTools MpscBlockingConsumerArrayQueue", kind = Transport.Kind.BLOCKING)
        jctoolsMpscBlocking(v -> new QueuePing(() -> new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY), 0, v)),
        /**
         * JCTools MpscBlockingConsumerArrayQueue whose two waiting sides spin as long as ysuite's
         * default policy spins at most ({@link org.ysuite.WaitPolicy#DEFAULT_SPINS} rounds of
         * {@code poll()} and {@link Thread#onSpinWait()}) before {@code take()}: the same-spin peer
         * of the default-policy rows.
         */
        @Transport(label = "JCTools MpscBlockingConsumerArrayQueue (spin, then take)", kind = Transport.Kind.BLOCKING)
        jctoolsMpscBlockingSpin(v -> new QueuePing(() -> new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY),
                        org.ysuite.WaitPolicy.DEFAULT_SPINS, v)),
        /** LockSupport park/unpark alone: the floor under every blocking row. */
        @Transport(label = "LockSupport park/unpark (JVM floor)", kind = Transport.Kind.BASELINE)
        parkUnpark(v -> new ParkPing()),
        /** LMAX Disruptor with BlockingWaitStrategy. */
        @Transport(label = "Disruptor (BlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
        disruptorBlocking(v -> new DisruptorPing()),
        /** JeroMQ inproc PAIR send/recv. */
        @Transport(label = "JeroMQ inproc PAIR", kind = Transport.Kind.BLOCKING)
        jeromqPair(v -> new ZmqPing()),
        /** Local sockets: 8 bytes each way over a JDK Unix-domain SocketChannel. */
        @Transport(label = "Unix-domain SocketChannel", kind = Transport.Kind.SOCKET)
        unixSocketChannel(v -> new UnixSocketPing());

        private final Opener open;

        Peer(Opener open) {
            this.open = open;
        }

        /**
         * Makes this contender's pair and starts its echo.
         *
         * @param virtualEcho whether a queue's echo runs in a virtual thread ({@link VirtualThreads})
         * @return the ping-pong
         * @throws Exception if it cannot be set up
         */
        public Ping open(boolean virtualEcho) throws Exception {
            return open.open(virtualEcho);
        }
    }

    /** Makes a contender's ping-pong. */
    private interface Opener {
        Ping open(boolean virtualEcho) throws Exception;
    }

    /** Every contender but the YPipe rows, made by {@link Peer}. */
    @State(Scope.Benchmark)
    public static class Peers {
        /** The contender (all of them unless {@code -p peer=...} says otherwise). */
        @Param
        public Peer peer;

        Ping ping;

        /**
         * Opens the contender's pair and starts its echo.
         *
         * @throws Exception if it cannot be set up
         */
        @Setup(Level.Trial)
        public void setup() throws Exception {
            ping = peer.open(false);
        }

        /**
         * Stops the echo and frees the transport.
         *
         * @throws Exception if the echo does not stop
         */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            ping.close();
        }
    }

    /**
     * The contender its state holds: one round trip, each side waiting the transport's way.
     *
     * @param s state
     * @return the echoed value
     * @throws Exception if the run is stopped or the transport fails
     */
    @Benchmark
    @OperationsPerInvocation(2)
    public long peer(Peers s) throws Exception {
        return s.ping.pingPong();
    }

    /**
     * A blocking queue in each direction: put, then take ({@code spins} rounds of poll first).
     */
    static final class QueuePing implements Ping {
        final BlockingQueue<Long> ping;
        final BlockingQueue<Long> pong;
        private final int spins;
        private final Partner echo;

        QueuePing(java.util.function.Supplier<BlockingQueue<Long>> queues, int spins, boolean virtual) {
            ping = queues.get();
            pong = queues.get();
            this.spins = spins;
            Partner.Step step = () -> pong.put(receive(ping));
            echo = virtual ? Partner.startVirtual("queue-echo", step) : Partner.start("queue-echo", step);
        }

        private Long receive(BlockingQueue<Long> q) throws InterruptedException {
            for (int round = 0; round < spins; round++) {
                Long m = q.poll();
                if (m != null) {
                    return m;
                }
                Thread.onSpinWait();
            }
            return q.take();
        }

        @Override
        public long pingPong() throws InterruptedException {
            ping.put(Msg.MESSAGE);
            return receive(pong);
        }

        @Override
        public void close() throws InterruptedException {
            echo.stop(null);
        }
    }

    /**
     * The JVM's park/unpark floor: a turn handed back and forth with {@code LockSupport} alone
     * (two volatile counters, no queue, no spin), each side parked whenever it waits. Every
     * blocking row of this scenario pays at least this once per message; the pure-park y-suite
     * rows are measured against it.
     *
     * <p>Ordering: the pinger writes {@code ping} (volatile) and then reads {@code echoThread};
     * the echo writes {@code echoThread} and then reads {@code ping}. Both pairs are volatile, so
     * at least one side sees the other's write: either the pinger unparks the echo, or the echo
     * sees the new {@code ping} without parking. The echo's write of {@code pong} publishes the
     * reply; {@code main} is written before the first {@code ping} and so is visible to the echo.
     */
    static final class ParkPing implements Ping {
        volatile long ping;
        volatile long pong;
        volatile Thread main;
        volatile Thread echoThread;
        private final Partner echo;

        ParkPing() {
            echo = Partner.start("park-echo", () -> {
                Thread self = Thread.currentThread();
                if (echoThread == null) {
                    echoThread = self;
                }
                long p;
                while ((p = ping) == pong) {
                    if (self.isInterrupted()) {
                        return;
                    }
                    LockSupport.park(this);
                }
                pong = p;
                LockSupport.unpark(main);
            });
        }

        @Override
        public long pingPong() throws InterruptedException {
            if (main == null) {
                main = Thread.currentThread();
            }
            long next = ping + 1;
            ping = next;
            LockSupport.unpark(echoThread);
            while (pong != next) {
                echo.check();
                if (Thread.interrupted()) {
                    throw new InterruptedException("parkUnpark stopped");
                }
                LockSupport.park(this);
            }
            return next;
        }

        @Override
        public void close() throws InterruptedException {
            echo.stop(null);
        }
    }

    /** Mutable event of the Disruptor rings. */
    static final class LongEvent {
        long value;
    }

    /**
     * LMAX Disruptor, BlockingWaitStrategy: the echo is a BatchEventProcessor on the ping ring
     * that publishes to the pong ring; the pinger waits on the pong ring's barrier.
     */
    static final class DisruptorPing implements Ping {
        private final RingBuffer<LongEvent> ping =
                RingBuffer.createSingleProducer(LongEvent::new, 1024, new BlockingWaitStrategy());
        private final RingBuffer<LongEvent> pong =
                RingBuffer.createSingleProducer(LongEvent::new, 1024, new BlockingWaitStrategy());
        private final SequenceBarrier pongBarrier = pong.newBarrier();
        private final Sequence pongConsumed = new Sequence();
        private final BatchEventProcessor<LongEvent> echo;
        private final Thread echoThread;

        DisruptorPing() {
            pong.addGatingSequences(pongConsumed);
            echo = new BatchEventProcessorBuilder().build(ping, ping.newBarrier(),
                    (event, sequence, endOfBatch) -> {
                        long seq = pong.next();
                        pong.get(seq).value = event.value;
                        pong.publish(seq);
                    });
            ping.addGatingSequences(echo.getSequence());
            echoThread = new Thread(echo, "disruptor-echo");
            echoThread.setDaemon(true);
            echoThread.start();
        }

        @Override
        public long pingPong() throws Exception {
            long seq = ping.next();
            ping.get(seq).value = seq;
            ping.publish(seq);
            long want = pongConsumed.get() + 1;
            pongBarrier.waitFor(want);
            long v = pong.get(want).value;
            pongConsumed.set(want);
            return v;
        }

        @Override
        public void close() throws InterruptedException {
            echo.halt();
            echoThread.join(10_000);
            if (echoThread.isAlive()) {
                throw new IllegalStateException("disruptor echo did not stop");
            }
        }
    }

    /** JeroMQ inproc PAIR sockets; the echo thread owns its socket. */
    static final class ZmqPing implements Ping {
        private static final byte[] STOP = new byte[] {1};
        private final byte[] payload = new byte[8];
        private final ZContext ctx = new ZContext();
        private final ZMQ.Socket main = ctx.createSocket(SocketType.PAIR);
        private final Partner echo;

        ZmqPing() {
            String addr = "inproc://worst-" + System.nanoTime();
            main.bind(addr);
            ZMQ.Socket peer = ctx.createSocket(SocketType.PAIR);
            peer.connect(addr);
            echo = Partner.start("zmq-echo", () -> {
                byte[] m = peer.recv(0);
                if (m == null || m.length == 1) {
                    peer.close();
                    throw new InterruptedException("stop");
                }
                peer.send(m, 0);
            });
        }

        @Override
        public long pingPong() {
            main.send(payload, 0);
            return main.recv(0).length;
        }

        @Override
        public void close() throws InterruptedException {
            echo.stopWithoutInterrupt(() -> main.send(STOP, 0));
            main.close();
            ctx.close();
        }
    }

    /** A connected pair of JDK Unix-domain SocketChannels in blocking mode: 8 bytes each way. */
    static final class UnixSocketPing implements Ping {
        private final Path dir;
        private final SocketChannel main;
        private final SocketChannel peer;
        private final ByteBuffer out = ByteBuffer.allocateDirect(8);
        private final ByteBuffer in = ByteBuffer.allocateDirect(8);
        private final Partner echo;

        UnixSocketPing() throws IOException {
            SocketChannel[] pair = UnixSockets.connectedPair();
            dir = UnixSockets.lastDir;
            main = pair[0];
            peer = pair[1];
            ByteBuffer buf = ByteBuffer.allocateDirect(8);
            echo = Partner.start("uds-echo", () -> {
                buf.clear();
                UnixSockets.readFully(peer, buf);
                buf.flip();
                UnixSockets.writeFully(peer, buf);
            });
        }

        @Override
        public long pingPong() throws IOException {
            out.clear();
            out.putLong(0, 42);
            UnixSockets.writeFully(main, out);
            in.clear();
            UnixSockets.readFully(main, in);
            return in.get(0);
        }

        @Override
        public void close() throws InterruptedException {
            echo.stop(() -> UnixSockets.closeQuietly(peer));
            UnixSockets.closeQuietly(main);
            UnixSockets.deleteQuietly(dir);
        }
    }

    /** Helpers for JDK Unix-domain socket channels. */
    static final class UnixSockets {
        static Path lastDir;

        private UnixSockets() {
        }

        static SocketChannel[] connectedPair() throws IOException {
            Path dir = Files.createTempDirectory("ysuite-bench");
            lastDir = dir;
            UnixDomainSocketAddress addr = UnixDomainSocketAddress.of(dir.resolve("s"));
            try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                server.bind(addr);
                SocketChannel a = SocketChannel.open(StandardProtocolFamily.UNIX);
                a.connect(addr);
                SocketChannel b = server.accept();
                return new SocketChannel[] {a, b};
            }
        }

        static void readFully(SocketChannel ch, ByteBuffer buf) throws IOException {
            while (buf.hasRemaining()) {
                if (ch.read(buf) < 0) {
                    throw new IOException("socket closed");
                }
            }
        }

        static void writeFully(SocketChannel ch, ByteBuffer buf) throws IOException {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }

        static void closeQuietly(SocketChannel ch) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing at teardown
            }
        }

        static void deleteQuietly(Path dir) {
            try {
                Files.deleteIfExists(dir.resolve("s"));
                Files.deleteIfExists(dir);
            } catch (IOException ignored) {
                // temp dir
            }
        }
    }
}
