package org.ysuite.bench.support;

import java.util.concurrent.TimeUnit;

/**
 * The second thread of a two-thread benchmark (an echo or a consumer), owned by a JMH state:
 * started in {@code @Setup(Level.Trial)}, stopped in {@code @TearDown(Level.Trial)}.
 *
 * <p>The body is called in a loop until the thread is interrupted; blocking waits inside it are
 * the transport's own (interruptible, or woken by the stop action). {@link #stop(Runnable)}
 * interrupts the thread, runs the transport's wake-up action (a poison message, a halt, a
 * close) and joins with a bounded timeout: a thread that does not stop, or a body that failed,
 * makes the benchmark fail instead of hanging the run.
 */
public final class Partner {

    /** One step of the partner's loop. */
    @FunctionalInterface
    public interface Step {
        /**
         * Runs one step (wait for and handle what arrived).
         *
         * @throws Exception any failure; an interruption ends the loop quietly when stopping
         */
        void run() throws Exception;
    }

    private static final long STOP_TIMEOUT_SECONDS = 10;

    private final Thread thread;
    private volatile boolean stopping;
    private volatile Throwable failure;

    private Partner(String name, Step step) {
        this.thread = new Thread(() -> loop(step), name);
        this.thread.setDaemon(true);
    }

    /**
     * Starts a partner thread.
     *
     * @param name thread name
     * @param step the loop body
     * @return the started partner
     */
    public static Partner start(String name, Step step) {
        Partner p = new Partner(name, step);
        p.thread.start();
        return p;
    }

    private void loop(Step step) {
        try {
            while (!stopping) {
                step.run();
            }
        } catch (Throwable t) {
            if (!stopping) {
                failure = t;
                t.printStackTrace();
            }
        }
    }

    /**
     * Returns whether the partner has been asked to stop.
     *
     * @return true once {@link #stop} was called
     */
    public boolean stopping() {
        return stopping;
    }

    /**
     * Returns the partner thread's id (for {@link java.lang.management.ThreadMXBean}).
     *
     * @return the thread id
     */
    @SuppressWarnings("deprecation") // Thread.getId: threadId() is JDK 19+
    public long threadId() {
        return thread.getId();
    }

    /**
     * Fails if the partner thread died: call it where a benchmark would otherwise wait forever.
     */
    public void check() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException("partner thread " + thread.getName() + " failed", t);
        }
    }

    /**
     * Stops the partner: marks it stopping, interrupts it, runs {@code wake} and joins it.
     *
     * @param wake extra action that makes a blocked partner return (may be null)
     * @throws InterruptedException if interrupted while joining
     */
    public void stop(Runnable wake) throws InterruptedException {
        stop(wake, true);
    }

    /**
     * Stops the partner by {@code wake} alone, without interrupting it: for transports whose
     * threads must not be interrupted (JeroMQ's mailboxes close their channels on interrupt).
     *
     * @param wake the action that makes the partner return (a poison message)
     * @throws InterruptedException if interrupted while joining
     */
    public void stopWithoutInterrupt(Runnable wake) throws InterruptedException {
        stop(wake, false);
    }

    private void stop(Runnable wake, boolean interrupt) throws InterruptedException {
        stopping = true;
        if (interrupt) {
            thread.interrupt();
        }
        if (wake != null) {
            wake.run();
        }
        thread.join(TimeUnit.SECONDS.toMillis(STOP_TIMEOUT_SECONDS));
        if (thread.isAlive()) {
            throw new IllegalStateException("partner thread " + thread.getName()
                    + " did not stop within " + STOP_TIMEOUT_SECONDS + " s");
        }
        check();
    }
}
