// Over 500 lines: one test class per public type (LoopMailbox) with its shared fixtures (descriptor
// counting, the order check, the echo traffic); each test is a lifecycle or hand-off scenario.
package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalIoHandler;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(300)
class LoopMailboxTest {

    /** A test message: which writer sent it and its sequence number for that writer. */
    record Msg(int writer, long seq) { }

    /**
     * Per-writer order and exactly-once delivery, checked on the loop thread. Only the loop thread
     * touches it until the mailbox's close future completes (which publishes it to the test).
     */
    static final class OrderCheck {
        final long[] next;
        final AtomicReference<String> failure = new AtomicReference<>();
        IoEventLoop loop;
        long total;

        OrderCheck(int writers) {
            next = new long[writers];
        }

        void accept(Msg m) {
            // On the loop thread; or, if a shutdown with a zero quiet period ended the loop without
            // unregistering the mailbox, after the loop has terminated (see LoopMailbox: Closing).
            if (!loop.inEventLoop() && !loop.isTerminated()) {
                failure.compareAndSet(null, "handler ran on " + Thread.currentThread().getName());
            }
            if (m.seq != next[m.writer]) {
                failure.compareAndSet(null, "writer " + m.writer + ": got " + m.seq + ", expected " + next[m.writer]);
            }
            next[m.writer] = m.seq + 1;
            total++;
        }
    }

    /**
     * The open descriptors of this JVM that a mailbox or Netty could leak (sockets, pipes,
     * eventfds, epoll instances): number to what it refers to. Files are left out: the JVM opens
     * and closes some on its own at any time (jars, cgroup statistics, the listing itself).
     */
    static java.util.TreeMap<Integer, String> fds() throws IOException {
        java.util.TreeMap<Integer, String> out = new java.util.TreeMap<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) fds::iterator) {
                String target;
                try {
                    target = Files.readSymbolicLink(p).toString();
                } catch (IOException e) {
                    continue; // the directory stream's own descriptor, already closed
                }
                if (target.startsWith("socket:") || target.startsWith("pipe:") || target.startsWith("anon_inode:")) {
                    out.put(Integer.valueOf(p.getFileName().toString()), target);
                }
            }
        }
        return out;
    }

    /** Fails with the descriptors that differ if the open set is not {@code baseline}. */
    static void assertSameFds(java.util.Map<Integer, String> baseline, String when) throws IOException {
        java.util.Map<Integer, String> now = fds();
        if (!now.equals(baseline)) {
            java.util.Map<Integer, String> added = new java.util.TreeMap<>(now);
            added.keySet().removeAll(baseline.keySet());
            java.util.Map<Integer, String> gone = new java.util.TreeMap<>(baseline);
            gone.keySet().removeAll(now.keySet());
            throw new AssertionError(when + ": descriptors differ from the baseline; opened " + added
                    + ", closed " + gone);
        }
    }

    private static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t, long seconds) throws InterruptedException {
        t.join(TimeUnit.SECONDS.toMillis(seconds));
        if (t.isAlive()) {
            throw new AssertionError(t.getName() + " did not finish in " + seconds + " s");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void millionMessagesFromFourWritersWhileTheLoopServesTcpEcho(Transport transport) throws Exception {
        final int writers = 4;
        final int perWriter = 250_000;
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            IoEventLoop loop = group.next();
            EchoTraffic echo = new EchoTraffic(loop, transport);
            echo.awaitFlowing(10);
            OrderCheck check = new OrderCheck(writers);
            check.loop = loop;
            CountDownLatch all = new CountDownLatch(1);
            LoopMailbox<Msg> box = transport.<Msg>builder(loop, m -> {
                check.accept(m);
                if (check.total == writers * (long) perWriter) {
                    all.countDown();
                }
            }).register();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                final int id = w;
                LoopMailbox.Sender<Msg> out = box.newSender();
                threads.add(start("writer-" + w, () -> {
                    for (long i = 0; i < perWriter; i++) {
                        out.send(new Msg(id, i));
                    }
                }));
            }
            for (Thread t : threads) {
                join(t, 120);
            }
            assertTrue(all.await(60, TimeUnit.SECONDS), "not every message was delivered in 60 s: " + box);
            box.close().get(10, TimeUnit.SECONDS);
            assertNull(check.failure.get());
            long[] expected = new long[writers];
            java.util.Arrays.fill(expected, perWriter);
            assertArrayEquals(expected, check.next);
            assertEquals(writers * (long) perWriter, box.delivered());
            assertTrue(box.wakeups() <= box.delivered(), "more wake-ups than messages: " + box);
            echo.awaitMoreEchoed(1 << 20, 30); // the echo client is still served
            assertNull(echo.failure());
            echo.close();
        } finally {
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aLoopBusyWithSocketTrafficStillDrainsTheMailbox(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            IoEventLoop loop = group.next();
            EchoTraffic echo = new EchoTraffic(loop, transport);
            echo.awaitFlowing(10);
            LinkedBlockingQueue<Long> delivered = new LinkedBlockingQueue<>();
            LoopMailbox<Long> box = transport.<Long>builder(loop, delivered::add).register();
            LoopMailbox.Sender<Long> out = box.newSender();
            long echoBefore = echo.echoedBytes();
            // at least 500 messages, and on until the echo has moved meanwhile (however fast the
            // hand-offs were): the loop must have served both; 10^7 messages bound the test
            for (long i = 0; i < 500 || echo.echoedBytes() == echoBefore && i < 10_000_000; i++) {
                // one message at a time, each sent after the last was delivered: the loop sleeps
                // in (or is busy around) its poller between them, with sockets always ready. A
                // mailbox the loop never serves leaves its message undelivered: 60 s is a failure
                // bound, not a speed the test asks for.
                out.send(i);
                Long got = delivered.poll(60, TimeUnit.SECONDS);
                assertEquals(Long.valueOf(i), got, "message " + i + " not delivered in 60 s while the loop is busy");
            }
            assertTrue(echo.echoedBytes() > echoBefore, "the echo traffic did not run meanwhile");
            assertNull(echo.failure());
            box.close().get(10, TimeUnit.SECONDS);
            echo.close();
        } finally {
            Transport.shutdown(group);
        }
    }

    /**
     * The wake-up is Netty's own: a send that finds the loop asleep on its pipe queues the pipe's
     * drain task on the loop (as {@code execute} would), and further sends before that task ran
     * queue nothing (unlike {@code execute}: no task per message). The loop is held inside a task
     * of the test's meanwhile, so the queue can be counted without a race.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aSenderQueuesOneDrainTaskPerSleepOfTheLoopNotOnePerMessage(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        CountDownLatch release = new CountDownLatch(1);
        try {
            IoEventLoop loop = group.next();
            List<String> seen = new ArrayList<>(); // loop thread until the close future
            LoopMailbox<String> box = transport.<String>builder(loop, seen::add).register();
            box.registrationFuture().get(10, TimeUnit.SECONDS);
            LoopMailbox.Sender<String> out = box.newSender();
            LoopHold.hold(loop, release);
            SingleThreadEventExecutor executor = (SingleThreadEventExecutor) loop;
            int before = executor.pendingTasks();
            out.send("a");
            assertEquals(before + 1, executor.pendingTasks(), "the first send did not queue the drain task");
            out.send("b");
            out.write("c");
            out.flush();
            assertEquals(before + 1, executor.pendingTasks(), "a send queued a task while one was queued");
            release.countDown();
            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(List.of("a", "b", "c"), seen);
        } finally {
            release.countDown(); // also when an assertion failed: the loop must be let go
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aThrowingHandlerIsReportedAndTheRestOfTheBatchIsDelivered(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            IoEventLoop loop = group.next();
            List<Long> seen = new ArrayList<>();             // loop thread until the close future
            List<Long> failedMessages = new ArrayList<>();   // idem
            LoopMailbox<Long> box = transport.<Long>builder(loop, m -> {
                seen.add(m);
                if (m % 3 == 0) {
                    throw new IllegalArgumentException("boom " + m);
                }
            }).onHandlerFailure((m, t) -> {
                if (t instanceof IllegalArgumentException && t.getMessage().equals("boom " + m)) {
                    failedMessages.add(m);
                }
            }).register();
            box.registrationFuture().get(10, TimeUnit.SECONDS);
            LoopMailbox.Sender<Long> out = box.newSender();
            for (long i = 0; i < 1000; i++) {
                out.write(i);
            }
            out.flush(); // one batch of 1000, a third of which throw
            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(1000, seen.size());
            for (int i = 0; i < 1000; i++) {
                assertEquals(i, seen.get(i));
            }
            assertEquals(334, failedMessages.size());
        } finally {
            Transport.shutdown(group);
        }
    }

    @Test
    void byDefaultAThrowingHandlerIsLoggedThroughNettysLogger() throws Exception {
        Logger jul = Logger.getLogger(LoopMailbox.class.getName());
        List<LogRecord> records = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public synchronized void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(capture);
        boolean parents = jul.getUseParentHandlers();
        jul.setUseParentHandlers(false); // keep 10 stack traces out of the build log
        MultiThreadIoEventLoopGroup group = Transport.EPOLL_EVENTFD.newGroup();
        try {
            LoopMailbox<Long> box = LoopMailbox.register(group.next(), m -> {
                throw new IllegalStateException("handler failure " + m);
            });
            LoopMailbox.Sender<Long> out = box.newSender();
            for (long i = 0; i < 10; i++) {
                out.write(i);
            }
            out.flush();
            box.close().get(10, TimeUnit.SECONDS);
            assertEquals(10, box.delivered());
        } finally {
            Transport.shutdown(group);
            jul.removeHandler(capture);
            jul.setUseParentHandlers(parents);
        }
        synchronized (capture) {
            assertEquals(10, records.size());
            for (int i = 0; i < 10; i++) {
                assertEquals(Level.WARNING, records.get(i).getLevel());
                assertEquals("handler failure " + i, records.get(i).getThrown().getMessage());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void descriptorsReturnToBaselineOverAThousandRegisterCloseCycles(Transport transport) throws Exception {
        java.util.Map<Integer, String> beforeGroup = fds();
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            IoEventLoop loop = group.next();
            long[] got = new long[1];
            java.util.Map<Integer, String> baseline = null;
            for (int cycle = -3; cycle < 1000; cycle++) {
                if (cycle == 0) {
                    baseline = fds(); // after three warm-up cycles (class loading, native libraries)
                }
                LoopMailbox<Long> box = transport.<Long>builder(loop, m -> got[0]++).register();
                LoopMailbox.Sender<Long> out = box.newSender();
                out.send(1L);
                out.send(2L);
                box.close().get(10, TimeUnit.SECONDS);
                assertThrows(IllegalStateException.class, () -> out.send(3L));
                if (cycle >= 0) {
                    if (transport == Transport.NIO) {
                        // The JDK closes a cancelled channel's descriptor at the selector's next
                        // select: pipe ends may still be open right after the close. Let the loop
                        // run a few turns (each task wakes its selector), bounded; a leak stays.
                        java.util.Map<Integer, String> now = fds();
                        now.keySet().removeAll(baseline.keySet());
                        for (int turn = 0; turn < 100 && now.size() > 1; turn++) {
                            loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
                            now = fds();
                            now.keySet().removeAll(baseline.keySet());
                        }
                        assertTrue(now.size() <= 1 && now.values().stream().allMatch(t -> t.startsWith("pipe:")),
                                "cycle " + cycle + ": opened " + now);
                    } else {
                        assertSameFds(baseline, "cycle " + cycle);
                    }
                }
            }
            assertEquals(2 * 1003, loop.submit(() -> got[0]).get(10, TimeUnit.SECONDS));
        } finally {
            Transport.shutdown(group);
        }
        assertSameFds(beforeGroup, "after the group terminated");
    }

    enum CloseBy { MAILBOX, GROUP_SHUTDOWN }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closingTheMailboxWhileWritersSendLosesAndRepeatsNothing(Transport transport) throws Exception {
        closeWhileWritersSend(transport, CloseBy.MAILBOX);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void shuttingTheGroupDownWhileWritersSendLosesAndRepeatsNothing(Transport transport) throws Exception {
        closeWhileWritersSend(transport, CloseBy.GROUP_SHUTDOWN);
    }

    /**
     * One mailbox on {@code loop} and {@code writers} threads sending to it flat out (each at most
     * {@code window} messages ahead of the loop: the pipes are unbounded and the machine may starve
     * the loop thread) until they are refused; {@link #verify} checks the outcome.
     */
    static final class CloseRound {
        final OrderCheck check;
        final AtomicLongArray progress;
        final CountDownLatch flowing = new CountDownLatch(1);
        final long[] accepted;
        /** The first refusal that was not the mailbox's own. */
        final AtomicReference<Throwable> foreignRefusal = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        final LoopMailbox<Msg> box;

        CloseRound(Transport transport, IoEventLoop loop, int writers, long flowingAt, long window) {
            check = new OrderCheck(writers);
            check.loop = loop;
            progress = new AtomicLongArray(writers);
            accepted = new long[writers];
            box = transport.<Msg>builder(loop, m -> {
                check.accept(m);
                progress.lazySet(m.writer, m.seq + 1);
                if (check.total == flowingAt) {
                    flowing.countDown();
                }
            }).register();
            for (int w = 0; w < writers; w++) {
                final int id = w;
                LoopMailbox.Sender<Msg> out = box.newSender();
                threads.add(start("writer-" + w, () -> {
                    long i = 0;
                    try {
                        for (;; i++) {
                            while (i - progress.get(id) > window) {
                                Thread.yield();
                            }
                            out.send(new Msg(id, i));
                        }
                    } catch (IllegalStateException e) {
                        accepted[id] = i;
                        // the mailbox's own refusal, not a late failure of the closed signaler
                        if (!e.getMessage().startsWith("LoopMailbox is closed")) {
                            foreignRefusal.compareAndSet(null, e);
                        }
                    }
                }));
            }
        }

        void awaitFlowing(int round) throws InterruptedException {
            assertTrue(flowing.await(30, TimeUnit.SECONDS), "round " + round + ": messages did not flow: " + box);
        }

        /** After the close was started: every writer refused by the mailbox, nothing lost or repeated. */
        void verify(int round) throws Exception {
            for (Thread t : threads) {
                join(t, 30); // every writer must end with the refusal
            }
            box.closeFuture().get(10, TimeUnit.SECONDS);
            assertNull(foreignRefusal.get(), "round " + round + ": refused by something else than the mailbox");
            assertNull(check.failure.get(), "round " + round);
            assertArrayEquals(accepted, check.next, "round " + round + ": accepted vs delivered per writer");
            assertTrue(box.isClosed());
            assertThrows(IllegalStateException.class, box::newSender);
        }
    }

    private void closeWhileWritersSend(Transport transport, CloseBy by) throws Exception {
        // warm up once (native libraries, class loading), then take the baseline
        Transport.shutdown(transport.newGroup());
        java.util.Map<Integer, String> baseline = fds();
        for (int round = 0; round < 20; round++) {
            MultiThreadIoEventLoopGroup group = transport.newGroup();
            try {
                CloseRound r = new CloseRound(transport, group.next(), 3, 2000, 4096);
                r.awaitFlowing(round);
                if (by == CloseBy.MAILBOX) {
                    r.box.close();
                } else {
                    group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
                }
                r.verify(round);
            } finally {
                Transport.shutdown(group);
            }
        }
        assertSameFds(baseline, "after 20 rounds");
    }

    /**
     * Many short rounds on one loop: a mailbox, two writers sending flat out, a close from the
     * test thread after a few hundred messages. Every round must end with each writer refused by
     * the mailbox itself and every accepted message delivered once: a close that did not wait for
     * the sender calls in progress shows up as a refusal from the closed signaler underneath, or as
     * a count mismatch.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void closeRacesWithSendersOverManyMailboxes(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            IoEventLoop loop = group.next();
            for (int round = 0; round < 300; round++) {
                CloseRound r = new CloseRound(transport, loop, 2, 300, 1024);
                r.awaitFlowing(round);
                r.box.close();
                r.verify(round);
            }
        } finally {
            Transport.shutdown(group);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closeFromTheHandlerStillDeliversTheAcceptedBatch(Transport transport) throws Exception {
        MultiThreadIoEventLoopGroup group = transport.newGroup();
        try {
            IoEventLoop loop = group.next();
            List<Long> seen = new ArrayList<>();
            AtomicReference<LoopMailbox<Long>> self = new AtomicReference<>();
            LoopMailbox<Long> box = transport.<Long>builder(loop, m -> {
                seen.add(m);
                if (m == 10) {
                    self.get().close();
                }
            }).register();
            self.set(box);
            box.registrationFuture().get(10, TimeUnit.SECONDS);
            LoopMailbox.Sender<Long> out = box.newSender();
            for (long i = 0; i < 100; i++) {
                out.write(i);
            }
            out.flush();
            box.closeFuture().get(10, TimeUnit.SECONDS);
            assertEquals(100, seen.size());
            assertEquals(99L, seen.get(99));
        } finally {
            Transport.shutdown(group);
        }
    }

    @Test
    void misuseGetsClearExceptions() throws Exception {
        MultiThreadIoEventLoopGroup local = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> LoopMailbox.register(local.next(), m -> { }));
            assertTrue(e.getMessage().contains("epoll or NIO"), e.getMessage());
        } finally {
            Transport.shutdown(local);
        }
        MultiThreadIoEventLoopGroup group = Transport.EPOLL_EVENTFD.newGroup();
        IoEventLoop loop = group.next();
        assertThrows(NullPointerException.class, () -> LoopMailbox.register(loop, null));
        assertThrows(NullPointerException.class, () -> LoopMailbox.register(null, m -> { }));
        IllegalArgumentException limit = assertThrows(IllegalArgumentException.class,
                () -> LoopMailbox.builder(loop, m -> { }).batchLimit(0));
        assertTrue(limit.getMessage().contains("batchLimit"), limit.getMessage());
        LoopMailbox<String> box = LoopMailbox.register(loop, m -> { });
        LoopMailbox.Sender<String> out = box.newSender();
        assertSame(box, out.mailbox());
        assertThrows(NullPointerException.class, () -> out.send(null));
        box.close().get(10, TimeUnit.SECONDS);
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> out.send("late"));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        assertThrows(IllegalStateException.class, out::flush);
        assertThrows(IllegalStateException.class, box::newSender);
        box.close().get(10, TimeUnit.SECONDS); // idempotent
        Transport.shutdown(group);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> LoopMailbox.register(loop, m -> { }));
        assertTrue(refused.getMessage().contains("refused"), refused.getMessage());
    }
}
