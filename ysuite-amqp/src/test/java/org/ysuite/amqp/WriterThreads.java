package org.ysuite.amqp;

import java.util.concurrent.atomic.AtomicReference;

/** Runs one thread per writer and waits for all of them; the first failure of any fails the caller. */
final class WriterThreads {

    /** What writer thread {@code id} does. */
    interface Body {
        void run(int id) throws Exception;
    }

    private WriterThreads() {
    }

    static void run(int threads, Body body) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] t = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            int id = i;
            t[i] = new Thread(() -> {
                try {
                    body.run(id);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "writer-" + i);
            t[i].start();
        }
        for (Thread x : t) {
            x.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("writer thread failed", failure.get());
        }
    }
}
