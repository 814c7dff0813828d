package org.ysuite;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The child JVM of {@link ThreadCheckTest#checkedModeRefusesEveryOverlapAtOnce()}, started with
 * {@code -Dysuite.checkThreads=true}: prints one line per scenario that behaved, and exits 1 with
 * the reason on the first one that did not.
 */
public final class CheckedThreadsChild {

    private CheckedThreadsChild() {
    }

    /**
     * Runs the scenarios.
     *
     * @param args none
     * @throws Exception on a failure to start or join a thread
     */
    public static void main(String[] args) throws Exception {
        System.out.println("checked " + ThreadCheck.CHECKED);
        if (!ThreadCheck.CHECKED) {
            fail("the checked mode is off");
        }
        sharedWriter();
        twoReaders();
        System.out.flush();
    }

    /** A writer inside its signal: another thread's very first write is refused, untouched. */
    private static void sharedWriter() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Signaler held = new Signaler() {
            @Override
            public void signal(int id) {
                inside.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public int capacity() {
                return 1;
            }
        };
        YMailbox<Integer> mailbox = new YMailbox<>(held);
        YMailbox.Writer<Integer> writer = mailbox.newWriter();
        Thread first = new Thread(() -> writer.send(1), "first-writer");
        first.start();
        if (!inside.await(60, TimeUnit.SECONDS)) {
            fail("the first send never signalled");
        }
        try {
            writer.write(2);
            fail("a second thread's write was accepted while the first signalled");
        } catch (IllegalStateException e) {
            if (!e.getMessage().startsWith("a pipe has one writer thread at a time: " + first)) {
                fail("wrong message: " + e.getMessage());
            }
        }
        release.countDown();
        first.join(60_000);
        if (writer.pipe.unwrite() != null || mailbox.stats().messagesFlushed() != 1) {
            fail("the refused write reached the pipe");
        }
        mailbox.close();
        System.out.println("writer refused at its first write, pipe untouched");
    }

    /**
     * Two threads read one pipe as fast as they can while this thread writes 1, 2, 3...: the
     * first overlap is refused, and until then every item was read exactly once, with no other
     * exception (a failure bound of 60 s, far above what an overlap takes to happen).
     */
    private static void twoReaders() throws Exception {
        YPipe<Long> pipe = new YPipe<>(16, WaitPolicy.spinThenPark(100));
        AtomicReference<Throwable> refused = new AtomicReference<>();
        long[] sums = new long[2];
        long[] counts = new long[2];
        Thread[] readers = new Thread[2];
        for (int i = 0; i < 2; i++) {
            int me = i;
            readers[i] = new Thread(() -> {
                try {
                    while (refused.get() == null) {
                        Long v = pipe.read();
                        if (v != null) {
                            sums[me] += v;
                            counts[me]++;
                        }
                    }
                } catch (Throwable t) {
                    refused.compareAndSet(null, t);
                }
            }, "reader-" + i);
            readers[i].setDaemon(true);
            readers[i].start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long written = 0;
        while (refused.get() == null && System.nanoTime() < deadline) {
            pipe.write(++written);
            pipe.flush(); // a reader asleep misses nothing that matters here: the next flush lands
        }
        for (Thread t : readers) {
            t.join(60_000);
        }
        Throwable t = refused.get();
        if (!(t instanceof IllegalStateException)
                || !t.getMessage().startsWith("a YPipe has one reader thread at a time")) {
            fail("expected the refusal, got " + t);
        }
        // Drain what is left (the readers are gone); every item read exactly once.
        long sum = sums[0] + sums[1];
        long count = counts[0] + counts[1];
        long[] rest = {0, 0};
        pipe.flush();
        while (pipe.readBatchAwake(x -> {
            rest[0] += x;
            rest[1]++;
        }) > 0) {
            // drained
        }
        sum += rest[0];
        count += rest[1];
        if (count != written || sum != written * (written + 1) / 2) {
            fail("read " + count + " items summing " + sum + " of " + written);
        }
        System.out.println("readers: refused, no other exception, no item lost or doubled");
    }

    private static void fail(String why) {
        System.out.println("FAIL " + why);
        System.out.flush();
        System.exit(1);
    }
}
