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
 * <p>Longer than 500 lines on purpose: the report's worst-case scenario is this one JMH class
 * (its name is the scenario), so every contender's state and benchmark method lives here.
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

    /** A blocking queue in each direction: put, then take. */
    public abstract static class QueuePing {
        BlockingQueue<Long> ping;
        BlockingQueue<Long> pong;
        Partner echo;

        abstract BlockingQueue<Long> newQueue();

        /** Takes the next message the way this peer waits: {@code take()}, unless a subclass spins first. */
        Long receive(BlockingQueue<Long> q) throws InterruptedException {
            return q.take();
        }

        /** Starts the echo thread; {@link VirtualThreads} runs it in a virtual thread. */
        Partner startEcho(Partner.Step step) {
            return Partner.start("queue-echo", step);
        }

        @Setup(Level.Trial)
        public void setup() {
            ping = newQueue();
            pong = newQueue();
            echo = startEcho(() -> pong.put(receive(ping)));
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            echo.stop(null);
        }
    }

    /** java.util.concurrent.SynchronousQueue. */
    @State(Scope.Benchmark)
    public static class SynchronousQueuePing extends QueuePing {
        @Override
        BlockingQueue<Long> newQueue() {
            return new SynchronousQueue<>();
        }
    }

    /** java.util.concurrent.LinkedTransferQueue. */
    @State(Scope.Benchmark)
    public static class LinkedTransferQueuePing extends QueuePing {
        @Override
        BlockingQueue<Long> newQueue() {
            return new LinkedTransferQueue<>();
        }
    }

    /** java.util.concurrent.ArrayBlockingQueue. */
    @State(Scope.Benchmark)
    public static class ArrayBlockingQueuePing extends QueuePing {
        @Override
        BlockingQueue<Long> newQueue() {
            return new ArrayBlockingQueue<>(Msg.CAPACITY);
        }
    }

    /** JCTools MpscBlockingConsumerArrayQueue. */
    @State(Scope.Benchmark)
    public static class MpscBlockingPing extends QueuePing {
        @Override
        BlockingQueue<Long> newQueue() {
            return new MpscBlockingConsumerArrayQueue<>(Msg.CAPACITY);
        }
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue whose two waiting sides spin as long as ysuite's
     * default policy spins at most ({@link org.ysuite.WaitPolicy#DEFAULT_SPINS} rounds of
     * {@code poll()} and {@link Thread#onSpinWait()}) before {@code take()}: the same-spin peer of
     * the default-policy rows.
     */
    @State(Scope.Benchmark)
    public static class MpscBlockingSpinPing extends MpscBlockingPing {
        @Override
        Long receive(BlockingQueue<Long> q) throws InterruptedException {
            for (int round = 0; round < org.ysuite.WaitPolicy.DEFAULT_SPINS; round++) {
                Long m = q.poll();
                if (m != null) {
                    return m;
                }
                Thread.onSpinWait();
            }
            return q.take();
        }
    }

    private static Long queuePingPong(QueuePing s) throws InterruptedException {
        s.ping.put(Msg.MESSAGE);
        return s.receive(s.pong);
    }

    /**
     * SynchronousQueue put/take.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "SynchronousQueue", kind = Transport.Kind.BLOCKING)
    public Long synchronousQueue(SynchronousQueuePing s) throws InterruptedException {
        return queuePingPong(s);
    }

    /**
     * LinkedTransferQueue put/take.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "LinkedTransferQueue", kind = Transport.Kind.BLOCKING)
    public Long linkedTransferQueue(LinkedTransferQueuePing s) throws InterruptedException {
        return queuePingPong(s);
    }

    /**
     * ArrayBlockingQueue put/take.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "ArrayBlockingQueue", kind = Transport.Kind.BLOCKING)
    public Long arrayBlockingQueue(ArrayBlockingQueuePing s) throws InterruptedException {
        return queuePingPong(s);
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue put/take.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "JCTools MpscBlockingConsumerArrayQueue", kind = Transport.Kind.BLOCKING)
    public Long jctoolsMpscBlocking(MpscBlockingPing s) throws InterruptedException {
        return queuePingPong(s);
    }

    /**
     * JCTools MpscBlockingConsumerArrayQueue put, then 200 rounds of poll before take, each side.
     *
     * @param s state
     * @return the echoed message
     * @throws InterruptedException if the run is stopped
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "JCTools MpscBlockingConsumerArrayQueue (spin, then take)", kind = Transport.Kind.BLOCKING)
    public Long jctoolsMpscBlockingSpin(MpscBlockingSpinPing s) throws InterruptedException {
        return queuePingPong(s);
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
    @State(Scope.Benchmark)
    public static class ParkPing {
        volatile long ping;
        volatile long pong;
        volatile Thread main;
        volatile Thread echoThread;
        Partner echo;

        @Setup(Level.Trial)
        public void setup() {
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

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            echo.stop(null);
        }
    }

    /**
     * LockSupport park/unpark alone: the floor under every blocking row.
     *
     * @param s state
     * @return the echoed count
     * @throws InterruptedException if the run is stopped (JMH's timeout interrupts)
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "LockSupport park/unpark (JVM floor)", kind = Transport.Kind.BASELINE)
    public long parkUnpark(ParkPing s) throws InterruptedException {
        if (s.main == null) {
            s.main = Thread.currentThread();
        }
        long next = s.ping + 1;
        s.ping = next;
        LockSupport.unpark(s.echoThread);
        while (s.pong != next) {
            s.echo.check();
            if (Thread.interrupted()) {
                throw new InterruptedException("parkUnpark stopped");
            }
            LockSupport.park(s);
        }
        return next;
    }

    /** Mutable event of the Disruptor rings. */
    public static final class LongEvent {
        long value;
    }

    /**
     * LMAX Disruptor, BlockingWaitStrategy: the echo is a BatchEventProcessor on the ping ring
     * that publishes to the pong ring; the pinger waits on the pong ring's barrier.
     */
    @State(Scope.Benchmark)
    public static class DisruptorPing {
        RingBuffer<LongEvent> ping;
        RingBuffer<LongEvent> pong;
        SequenceBarrier pongBarrier;
        Sequence pongConsumed;
        BatchEventProcessor<LongEvent> echo;
        Thread echoThread;

        @Setup(Level.Trial)
        public void setup() {
            ping = RingBuffer.createSingleProducer(LongEvent::new, 1024, new BlockingWaitStrategy());
            pong = RingBuffer.createSingleProducer(LongEvent::new, 1024, new BlockingWaitStrategy());
            pongBarrier = pong.newBarrier();
            pongConsumed = new Sequence();
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

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            echo.halt();
            echoThread.join(10_000);
            if (echoThread.isAlive()) {
                throw new IllegalStateException("disruptor echo did not stop");
            }
        }
    }

    /**
     * LMAX Disruptor with BlockingWaitStrategy.
     *
     * @param s state
     * @return the echoed value
     * @throws Exception if the wait fails (alert, timeout, interruption)
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "Disruptor (BlockingWaitStrategy)", kind = Transport.Kind.BLOCKING)
    public long disruptorBlocking(DisruptorPing s) throws Exception {
        long seq = s.ping.next();
        s.ping.get(seq).value = seq;
        s.ping.publish(seq);
        long want = s.pongConsumed.get() + 1;
        s.pongBarrier.waitFor(want);
        long v = s.pong.get(want).value;
        s.pongConsumed.set(want);
        return v;
    }

    /** JeroMQ inproc PAIR sockets; the echo thread owns its socket. */
    @State(Scope.Benchmark)
    public static class ZmqPing {
        static final byte[] STOP = new byte[] {1};
        final byte[] payload = new byte[8];
        ZContext ctx;
        ZMQ.Socket main;
        Partner echo;

        @Setup(Level.Trial)
        public void setup() throws InterruptedException {
            ctx = new ZContext();
            String addr = "inproc://worst-" + System.nanoTime();
            main = ctx.createSocket(SocketType.PAIR);
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

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            echo.stopWithoutInterrupt(() -> main.send(STOP, 0));
            main.close();
            ctx.close();
        }
    }

    /**
     * JeroMQ inproc PAIR send/recv.
     *
     * @param s state
     * @return the echoed message
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "JeroMQ inproc PAIR", kind = Transport.Kind.BLOCKING)
    public byte[] jeromqPair(ZmqPing s) {
        s.main.send(s.payload, 0);
        return s.main.recv(0);
    }

    /** A connected pair of JDK Unix-domain SocketChannels in blocking mode. */
    @State(Scope.Benchmark)
    public static class UnixSocketPing {
        Path dir;
        SocketChannel main;
        SocketChannel peer;
        final ByteBuffer out = ByteBuffer.allocateDirect(8);
        final ByteBuffer in = ByteBuffer.allocateDirect(8);
        Partner echo;

        @Setup(Level.Trial)
        public void setup() throws IOException {
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

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            echo.stop(() -> UnixSockets.closeQuietly(peer));
            UnixSockets.closeQuietly(main);
            UnixSockets.deleteQuietly(dir);
        }
    }

    /**
     * Local sockets: 8 bytes each way over a JDK Unix-domain SocketChannel.
     *
     * @param s state
     * @return the first echoed byte
     * @throws IOException on a socket error
     */
    @Benchmark
    @OperationsPerInvocation(2)
    @Transport(label = "Unix-domain SocketChannel", kind = Transport.Kind.SOCKET)
    public byte unixSocketChannel(UnixSocketPing s) throws IOException {
        s.out.clear();
        s.out.putLong(0, 42);
        UnixSockets.writeFully(s.main, s.out);
        s.in.clear();
        UnixSockets.readFully(s.main, s.in);
        return s.in.get(0);
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
