package org.ysuite;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.ysuite.internal.Waits;

/** Thread helpers for the signaler tests: daemon threads, failure capture, no Thread.sleep. */
public final class TestThreads {

    /** A body that may throw anything. */
    public interface Body {
        void run() throws Throwable;
    }

    /** A started daemon thread that records the first throwable of its body. */
    public static final class Runner {
        public final Thread thread;
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        Runner(String name, Body body) {
            thread = new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, name);
            thread.setDaemon(true); // a hung test must not keep the JVM alive
            thread.start();
        }

        /** Joins (bounded) and rethrows the body's failure, if any. */
        public void join() throws Throwable {
            thread.join(TimeUnit.SECONDS.toMillis(120)); // a failure bound, far above a loaded machine's need
            if (thread.isAlive()) {
                fail(thread.getName() + " did not finish");
            }
            Throwable t = failure.get();
            if (t != null) {
                throw t;
            }
        }
    }

    private TestThreads() {
    }

    public static Runner start(String name, Body body) {
        return new Runner(name, body);
    }

    /** Waits (bounded, without sleeping) until {@code t} is parked (WAITING / TIMED_WAITING). */
    public static void awaitParked(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120); // a failure bound only
        for (;;) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                return;
            }
            if (s == Thread.State.TERMINATED) {
                fail(t.getName() + " terminated instead of waiting");
            }
            if (System.nanoTime() - deadline > 0) {
                fail(t.getName() + " never parked; state " + s);
            }
            Thread.yield();
        }
    }
}
