package org.ysuite.bench.support;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
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

    private Partner(String name, Step step, boolean virtual) {
        Runnable body = () -> loop(step);
        this.thread = virtual ? VirtualThreads.unstarted(body) : new Thread(body);
        this.thread.setName(name);
        this.thread.setDaemon(true); // a no-op for a virtual thread, which is always a daemon
    }

    /**
     * Starts a partner in a virtual thread (JDK 21+). The benchmarks compile for release 17, so
     * the thread is made through a method handle to {@code Thread.ofVirtual()}.
     *
     * @param name thread name
     * @param step the loop body
     * @return the started partner
     * @throws UnsupportedOperationException on a JDK without virtual threads, saying so
     */
    public static Partner startVirtual(String name, Step step) {
        Partner p = new Partner(name, step, true);
        p.thread.start();
        return p;
    }

    /** {@code Thread.ofVirtual().unstarted(Runnable)} through method handles, looked up once. */
    private static final class VirtualThreads {
        private static final MethodHandle OF_VIRTUAL;
        private static final MethodHandle UNSTARTED;

        static {
            MethodHandle ofVirtual;
            MethodHandle unstarted;
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                ofVirtual = lookup.findStatic(Thread.class, "ofVirtual",
                        MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual")));
                unstarted = lookup.findVirtual(Class.forName("java.lang.Thread$Builder"), "unstarted",
                        MethodType.methodType(Thread.class, Runnable.class));
            } catch (ReflectiveOperationException e) {
                ofVirtual = null; // JDK < 21
                unstarted = null;
            }
            OF_VIRTUAL = ofVirtual;
            UNSTARTED = unstarted;
        }

        static Thread unstarted(Runnable body) {
            if (OF_VIRTUAL == null) {
                throw new UnsupportedOperationException("virtual threads need JDK 21+"
                        + " (Thread.ofVirtual()); this is java " + Runtime.version()
                        + ": run with a newer JAVA_HOME");
            }
            try {
                return (Thread) UNSTARTED.invoke(OF_VIRTUAL.invoke(), body);
            } catch (Throwable e) {
                throw new IllegalStateException("cannot create a virtual thread", e);
            }
        }
    }

    /**
     * Starts a partner thread.
     *
     * @param name thread name
     * @param step the loop body
     * @return the started partner
     */
    public static Partner start(String name, Step step) {
        Partner p = new Partner(name, step, false);
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
