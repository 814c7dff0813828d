package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What ysuite's waits do in a virtual thread (JDK 21+); the virtual-thread tests are skipped, with
 * the reason shown, on a JDK without virtual threads.
 *
 * <p><b>No pinning</b> ({@link #tenThousandVirtualReadersNeverPin}): {@value #LANES} lanes, each a
 * virtual thread with its own pipe and signaler, of six kinds: a {@link YPipe} woken by a
 * {@link YSemaphore}, a {@link YPollset}, a {@link YSocketPair} (half socketpair, half eventfd)
 * or a {@link NioSignaler}, the last two with the owner mixing {@code check()} and {@code poll()}
 * (the path that used to wait in native {@code poll(2)}); a {@link YMailbox}; and a virtual
 * <em>writer</em> waiting in {@link OffHeapYPipe#awaitSpace(int)} on a ring that holds three
 * messages. Four platform threads feed the readers, one message per lane per round, so every
 * reader finds its pipe empty and waits about {@value #MESSAGES} times; a fifth drains the rings.
 * A JFR recording of {@code jdk.VirtualThreadPinned} with threshold 0, started in-process, is
 * dumped and read back: it must hold no event, and every message must arrive, in order.
 *
 * <p>The descriptor-backed lanes are capped at {@value #FD_LANES} each (the other kinds share the
 * rest): 500 socketpairs, 500 eventfds and 1000 NIO pipes are about 3500 descriptors, within the
 * 4096 a default {@code ulimit -n} hard limit allows (the JVM raises its soft limit to the hard
 * one); 10<sup>4</sup> socketpairs alone would need 2&times;10<sup>4</sup>.
 *
 * <p>A zero count proves nothing if the recorder cannot see a pin, so
 * {@link #recorderSeesADeliberatePin} parks a virtual thread inside a class initializer (a VM
 * frame on its stack: it pins on every JDK) and requires the same recording to report it. What
 * JFR cannot see is a virtual thread blocked in a native call, which never tries to park: the
 * owner's wait for an in-flight wake-up byte used to be such a {@code poll(2)}, and
 * {@link #inFlightWakeupParksInsteadOfPolling} checks that it now parks. (Tried as a mutant, socketpair
 * readers blocking in {@code poll(2)} on {@code fd()} produced no pinning event; they held both
 * carriers, the start latch's wake-up chain stopped at a virtual thread that could not be
 * scheduled, the feeders never started, and this test failed at its join timeout instead.)
 */
public class VirtualThreadsTest {

    static final int LANES = 10_000;
    static final int FD_LANES = 1_000;
    static final int MESSAGES = 16;
    static final int FEEDERS = 4;
    /** Ring of the awaitSpace lanes: 256 bytes hold three 60-byte messages (64 with header). */
    static final int RING = OffHeapYPipe.MIN_CAPACITY_BYTES;
    static final int RING_MESSAGE = 60;
    static final long TIMEOUT_SECONDS = 120;

    static final String PINNED = "jdk.VirtualThreadPinned";

    @TempDir
    Path tmp;

    // ---------------------------------------------------------------------------------------
    // Virtual threads through method handles: the tests compile for release 17.
    // ---------------------------------------------------------------------------------------

    /** {@code Thread.ofVirtual()} and {@code Thread.Builder.unstarted(Runnable)}, or null. */
    private static final MethodHandle OF_VIRTUAL;
    private static final MethodHandle UNSTARTED;

    static {
        MethodHandle ofVirtual = null;
        MethodHandle unstarted = null;
        try {
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtualType = Class.forName("java.lang.Thread$Builder$OfVirtual");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtualType));
            unstarted = lookup.findVirtual(builder, "unstarted",
                    MethodType.methodType(Thread.class, Runnable.class));
        } catch (ReflectiveOperationException e) {
            ofVirtual = null; // JDK < 21: no virtual threads
            unstarted = null;
        }
        OF_VIRTUAL = ofVirtual;
        UNSTARTED = unstarted;
    }

    public static void assumeVirtualThreads() {
        assumeTrue(OF_VIRTUAL != null, () -> "SKIPPED: java " + Runtime.version()
                + " has no virtual threads (Thread.ofVirtual() needs JDK 21+)");
    }

    public static Thread newVirtualThread(String name, Runnable body) {
        Thread t;
        try {
            t = (Thread) UNSTARTED.invoke(OF_VIRTUAL.invoke(), body);
        } catch (Throwable e) {
            throw new AssertionError("cannot create a virtual thread", e);
        }
        t.setName(name);
        assertTrue(WaitPolicy.isVirtual(t), name + " should be virtual");
        return t;
    }

    // ---------------------------------------------------------------------------------------
    // The lanes
    // ---------------------------------------------------------------------------------------

    /** One virtual thread and the pipe and signaler it waits on. */
    abstract static class Lane {
        final String name;
        /** Messages taken, in order; written by the virtual thread, read after its join. */
        int received;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread;

        Lane(String name) {
            this.name = name;
        }

        /** The virtual thread's work. */
        abstract void run() throws Exception;

        /** Platform feeder: delivers message {@code seq}; no-op for the awaitSpace lanes. */
        abstract void feed(int seq);

        /** Platform drainer (awaitSpace lanes only): takes what is there, returns how much. */
        int drain() {
            return 0;
        }

        void accept(int value) {
            if (value != received) {
                throw new AssertionError(name + ": got message " + value + ", expected " + received);
            }
            received++;
        }

        void close() throws Exception {
        }
    }

    /** A YPipe whose reader waits on a pollable signaler, fired with id 0 when flush asks. */
    static final class PipeLane extends Lane {
        final YPipe<Integer> pipe = new YPipe<>();
        final PollableSignaler signaler;
        /** {@code check()} first and {@code poll()} only if it found nothing (arms a WOKEN race). */
        final boolean checkThenPoll;

        PipeLane(String name, PollableSignaler signaler, boolean checkThenPoll) {
            super(name);
            this.signaler = signaler;
            this.checkThenPoll = checkThenPoll;
        }

        // Made here, on the platform thread that builds the lanes: the first run of a lambda links
        // its call site, and the JDK's linkage may block on its own locks under a native frame
        // (a pinned event that is not a ysuite wait; seen once in CI on JDK 25).
        private final IntConsumer ignore = id -> { };

        @Override
        void run() throws Exception {
            while (received < MESSAGES) {
                Integer v = pipe.read();
                if (v != null) {
                    accept(v);
                } else if (!checkThenPoll || signaler.check(ignore) == 0) {
                    signaler.poll(ignore);
                }
            }
        }

        @Override
        void feed(int seq) {
            pipe.write(seq);
            if (!pipe.flush()) {
                signaler.signal(0);
            }
        }

        @Override
        void close() throws Exception {
            if (signaler instanceof AutoCloseable) {
                ((AutoCloseable) signaler).close();
            }
        }
    }

    /** A YMailbox with one writer (the feeder's) and a virtual reader in {@code poll}. */
    static final class MailboxLane extends Lane {
        final YMailbox<Integer> mailbox = new YMailbox<>();
        final YMailbox.Writer<Integer> writer = mailbox.newWriter();

        MailboxLane(String name) {
            super(name);
        }

        /** Linked on the platform thread that builds the lane (see {@code PipeLane.ignore}). */
        private final java.util.function.Consumer<Integer> handler = this::accept;

        @Override
        void run() throws Exception {
            while (received < MESSAGES) {
                mailbox.poll(handler);
            }
        }

        @Override
        void feed(int seq) {
            writer.send(seq);
        }

        @Override
        void close() {
            mailbox.close();
        }
    }

    /**
     * A virtual writer filling a three-message ring, so it waits in {@code awaitSpace} for the
     * platform drainer; it fires the drainer's semaphore when a flush finds the reader asleep.
     */
    static final class RingLane extends Lane {
        final OffHeapYPipe ring = new OffHeapYPipe(RING);
        final YSemaphore drainerWake;
        final byte[] in = new byte[RING_MESSAGE];

        RingLane(String name, YSemaphore drainerWake) {
            super(name);
            this.drainerWake = drainerWake;
        }

        @Override
        void run() throws Exception {
            byte[] out = new byte[RING_MESSAGE];
            ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.nativeOrder());
            for (int seq = 0; seq < MESSAGES; seq++) {
                b.putInt(0, seq);
                while (!ring.write(out)) {
                    ring.awaitSpace(RING_MESSAGE); // everything before is flushed: allowed
                }
                if (!ring.flush()) {
                    drainerWake.signal(0);
                }
            }
        }

        @Override
        void feed(int seq) {
        }

        @Override
        int drain() {
            int n = 0;
            while (ring.read(in) >= 0) {
                accept(ByteBuffer.wrap(in).order(ByteOrder.nativeOrder()).getInt(0));
                n++;
            }
            return n;
        }

        @Override
        void close() {
            ring.close();
        }
    }

    /**
     * Runs every lane kind's paths once on this platform thread, before the recording: a class
     * loaded for the first time inside a virtual thread, while other virtual threads contend for
     * the class loader, can pin its carrier (seen in CI on JDK 25: {@code loadClassOrNull} under
     * a first write). That is the JDK's class loading, not a ysuite wait, which is what this test
     * is about.
     */
    private static void warmUp() throws Exception {
        List<Lane> once = List.of(
                new PipeLane("warm-socketpair", new YSocketPair(YSocketPair.Kind.SOCKETPAIR), true),
                new PipeLane("warm-eventfd", new YSocketPair(YSocketPair.Kind.EVENTFD), true),
                new PipeLane("warm-nio", new NioSignaler(), true),
                new PipeLane("warm-semaphore", new YSemaphore(), false),
                new PipeLane("warm-pollset", new YPollset(), false),
                new MailboxLane("warm-mailbox"));
        for (Lane lane : once) {
            for (int seq = 0; seq < MESSAGES; seq++) {
                lane.feed(seq);
            }
            lane.run();
            lane.close();
        }
        YSemaphore wake = new YSemaphore();
        RingLane ring = new RingLane("warm-ring", wake);
        byte[] out = new byte[RING_MESSAGE];
        assertTrue(ring.ring.write(out));
        if (!ring.ring.flush()) {
            wake.signal(0);
        }
        ring.ring.awaitSpace(RING_MESSAGE);
        assertEquals(1, ring.drain());
        ring.close();
    }

    private static List<Lane> lanes(YSemaphore drainerWake) {
        List<Lane> lanes = new ArrayList<>(LANES);
        int fdHalf = FD_LANES / 2;
        for (int i = 0; i < fdHalf; i++) {
            lanes.add(new PipeLane("socketpair-" + i, new YSocketPair(YSocketPair.Kind.SOCKETPAIR), true));
            lanes.add(new PipeLane("eventfd-" + i, new YSocketPair(YSocketPair.Kind.EVENTFD), true));
        }
        for (int i = 0; i < FD_LANES; i++) {
            lanes.add(new PipeLane("nio-" + i, new NioSignaler(), true));
        }
        int rest = (LANES - lanes.size()) / 4;
        for (int i = 0; i < rest; i++) {
            lanes.add(new PipeLane("semaphore-" + i, new YSemaphore(), false));
            lanes.add(new PipeLane("pollset-" + i, new YPollset(), false));
            lanes.add(new MailboxLane("mailbox-" + i));
        }
        for (int i = 0; lanes.size() < LANES; i++) {
            lanes.add(new RingLane("awaitSpace-" + i, drainerWake));
        }
        return lanes;
    }

    // ---------------------------------------------------------------------------------------
    // The tests
    // ---------------------------------------------------------------------------------------

    @Test
    void tenThousandVirtualReadersNeverPin() throws Throwable {
        assumeVirtualThreads();
        assertTrue(WaitPolicy.virtualThreadSpins() <= WaitPolicy.DEFAULT_SPINS);
        YSemaphore drainerWake = new YSemaphore();
        List<Lane> lanes = lanes(drainerWake);
        assertEquals(LANES, lanes.size());
        List<Lane> rings = new ArrayList<>();
        List<List<Lane>> fed = new ArrayList<>();
        for (int w = 0; w < FEEDERS; w++) {
            fed.add(new ArrayList<>());
        }
        for (int i = 0; i < lanes.size(); i++) {
            Lane lane = lanes.get(i);
            if (lane instanceof RingLane) {
                rings.add(lane);
            } else {
                fed.get(i % FEEDERS).add(lane);
            }
        }
        warmUp();
        Path dump = tmp.resolve("pinned.jfr");
        List<RecordedEvent> pinned;
        try (Recording recording = pinnedRecording()) {
            recording.start();
            CountDownLatch go = new CountDownLatch(1);
            for (Lane lane : lanes) {
                lane.thread = newVirtualThread(lane.name, () -> {
                    try {
                        go.await();
                        lane.run();
                    } catch (Throwable t) {
                        lane.failure.compareAndSet(null, t);
                    }
                });
                lane.thread.start();
            }
            List<TestThreads.Runner> platform = new ArrayList<>();
            for (List<Lane> mine : fed) {
                platform.add(TestThreads.start("feeder", () -> {
                    go.await();
                    for (int seq = 0; seq < MESSAGES; seq++) {
                        for (Lane lane : mine) {
                            lane.feed(seq);
                        }
                    }
                }));
            }
            platform.add(TestThreads.start("drainer", () -> {
                go.await();
                long left = (long) rings.size() * MESSAGES;
                IntConsumer ignore = id -> { };
                while (left > 0) {
                    int n = 0;
                    for (Lane ring : rings) {
                        n += ring.drain(); // an empty ring puts its reader asleep: next flush signals
                    }
                    left -= n;
                    if (n == 0 && left > 0 && drainerWake.poll(ignore, TIMEOUT_SECONDS, TimeUnit.SECONDS) == 0) {
                        fail("drainer: no awaitSpace writer flushed for " + TIMEOUT_SECONDS + " s; "
                                + left + " ring messages missing");
                    }
                }
            }));
            go.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            for (Lane lane : lanes) {
                long ms = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                lane.thread.join(ms);
                if (lane.thread.isAlive()) {
                    fail(lane.name + " did not finish in " + TIMEOUT_SECONDS + " s: received "
                            + lane.received + " of " + MESSAGES + ", state " + lane.thread.getState());
                }
            }
            for (TestThreads.Runner r : platform) {
                r.join();
            }
            recording.stop();
            recording.dump(dump);
            pinned = pinnedEvents(dump);
        } finally {
            for (Lane lane : lanes) {
                lane.close();
            }
        }
        long lost = 0;
        for (Lane lane : lanes) {
            Throwable t = lane.failure.get();
            if (t != null) {
                throw new AssertionError(lane.name + " failed", t);
            }
            lost += MESSAGES - lane.received;
        }
        assertEquals(0, lost, "messages lost");
        assertTrue(pinned.isEmpty(), () -> pinned.size() + " jdk.VirtualThreadPinned events; first: "
                + describe(pinned.get(0)));
    }

    /** Holder whose initializer parks: its caller runs a VM frame (class init), so it pins. */
    static final class ParksInInitializer {
        static {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }

        static void touch() {
        }
    }

    @Test
    void recorderSeesADeliberatePin() throws Throwable {
        assumeVirtualThreads();
        Path dump = tmp.resolve("control.jfr");
        try (Recording recording = pinnedRecording()) {
            recording.start();
            Thread t = newVirtualThread("pins-in-clinit", ParksInInitializer::touch);
            t.start();
            t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            assertFalse(t.isAlive(), "the control thread did not finish");
            recording.stop();
            recording.dump(dump);
        }
        List<RecordedEvent> pinned = pinnedEvents(dump);
        assertFalse(pinned.isEmpty(), "the recording missed a virtual thread parking inside <clinit>:"
                + " a zero count from it would prove nothing");
    }

    /**
     * The owner finds the state WOKEN and no byte (a signaller won ARMED&rarr;WOKEN and has not
     * written yet): it must park (unmount) while it waits, not block in native {@code poll(2)}.
     * Runs on a platform thread on every JDK (a native wait shows as RUNNABLE, a park as
     * TIMED_WAITING) and, on JDK 21+, on a virtual thread too.
     */
    @Test
    void inFlightWakeupParksInsteadOfPolling() throws Throwable {
        inFlightWakeupParks(false);
        if (OF_VIRTUAL != null) {
            inFlightWakeupParks(true);
        }
    }

    private void inFlightWakeupParks(boolean virtual) throws Throwable {
        VarHandle state = MethodHandles.privateLookupIn(WakeupSignaler.class, MethodHandles.lookup())
                .findVarHandle(WakeupSignaler.class, "state", int.class);
        try (YSocketPair s = new YSocketPair(YSocketPair.Kind.SOCKETPAIR, WaitPolicy.purePark())) {
            assertEquals(0, s.check(id -> { }), "nothing fired yet: check arms");
            assertEquals(WakeupSignaler.ARMED, s.stateNow());
            // Play the signaller that won ARMED->WOKEN and has not written its byte yet.
            assertTrue(state.compareAndSet(s, WakeupSignaler.ARMED, WakeupSignaler.WOKEN));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int[] got = new int[1];
            Runnable owner = () -> {
                try {
                    got[0] = s.poll(id -> assertEquals(7, id));
                } catch (Throwable t) {
                    failure.set(t);
                }
            };
            Thread t = virtual ? newVirtualThread("owner-virtual", owner) : new Thread(owner, "owner-platform");
            t.setDaemon(true);
            t.start();
            TestThreads.awaitParked(t); // fails after 20 s if it only ever sits in poll(2)
            s.signal(7); // WOKEN: sets the bit only, the owner's next look takes it
            t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            assertFalse(t.isAlive(), "owner still waiting after the signal");
            if (failure.get() != null) {
                throw failure.get();
            }
            assertEquals(1, got[0]);
        }
    }

    @Test
    void policyCapsSpinsOnlyInVirtualThreads() throws Throwable {
        assertEquals(WaitPolicy.DEFAULT_SPINS, WaitPolicy.defaultPolicy().spins(), "platform thread");
        assertFalse(WaitPolicy.isVirtual(Thread.currentThread()));
        assumeVirtualThreads();
        int[] seen = new int[3];
        Thread t = newVirtualThread("policy", () -> {
            seen[0] = WaitPolicy.defaultPolicy().spins();
            seen[1] = WaitPolicy.spinThenPark(5_000).spins();
            seen[2] = WaitPolicy.adaptive().spins();
        });
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
        assertFalse(t.isAlive());
        int cap = WaitPolicy.virtualThreadSpins();
        assertEquals(Math.min(cap, WaitPolicy.DEFAULT_SPINS), seen[0], "default policy, virtual");
        assertEquals(Math.min(cap, 5_000), seen[1], "spinThenPark(5000), virtual");
        assertEquals(Math.min(cap, WaitPolicy.DEFAULT_SPINS), seen[2], "adaptive, virtual");
    }

    // ---------------------------------------------------------------------------------------
    // JFR
    // ---------------------------------------------------------------------------------------

    private static Recording pinnedRecording() {
        Recording recording = new Recording();
        recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
        return recording;
    }

    private static List<RecordedEvent> pinnedEvents(Path dump) throws Exception {
        assertTrue(Files.size(dump) > 0, "empty JFR dump");
        List<RecordedEvent> pinned = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(dump)) {
            if (PINNED.equals(e.getEventType().getName())) {
                pinned.add(e);
            }
        }
        return pinned;
    }

    private static String describe(RecordedEvent e) {
        StringBuilder b = new StringBuilder(e.getEventType().getName());
        if (e.hasField("pinnedReason")) {
            b.append(" (").append(e.getString("pinnedReason")).append(')');
        }
        if (e.getStackTrace() != null) {
            for (RecordedFrame f : e.getStackTrace().getFrames()) {
                b.append("\n  at ").append(f.getMethod().getType().getName()).append('.')
                        .append(f.getMethod().getName()).append(':').append(f.getLineNumber());
            }
        }
        return b.toString();
    }
}
