package org.ysuite.examples;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YSemaphore;

/**
 * The two programs of the README, runnable: a writer and a reader over a {@link YPipe} woken by a
 * {@link YSemaphore}, and three writers to one reader through a {@link YMailbox}.
 *
 * <pre>{@code
 * java -jar ysuite-examples/target/ysuite-examples.jar readme
 * }</pre>
 */
public final class ReadmeExamples {

    private ReadmeExamples() {
    }

    /**
     * Runs both examples, printing what the readers receive.
     *
     * @param args ignored
     * @throws InterruptedException if interrupted while joining a thread
     */
    public static void main(String[] args) throws InterruptedException {
        semaphore(System.out);
        mailbox(System.out, 3, 1000);
    }

    /**
     * The README's first program: the reader waits for the signal only after {@code read()}
     * returned {@code null}; the writer signals only when {@code flush()} returns {@code false}.
     *
     * @param out where the reader prints the messages
     * @throws InterruptedException if interrupted while joining the reader
     */
    public static void semaphore(PrintStream out) throws InterruptedException {
        YPipe<String> pipe = new YPipe<>();
        YSemaphore wakeReader = new YSemaphore();

        Thread reader = new Thread(() -> {
            try {
                for (;;) {
                    String m = pipe.read();
                    if (m == null) {                     // empty: the reader is now asleep
                        wakeReader.await();              // until the writer's flush finds it so
                        continue;
                    }
                    if (m.equals("bye")) {
                        return;
                    }
                    out.println(m);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "readme-reader");
        reader.start();

        for (String m : List.of("hello", "world", "bye")) {
            pipe.write(m);                               // write many ...
            if (!pipe.flush()) {
                wakeReader.signal(0);                    // ... flush once; signal a sleeping reader
            }
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        if (reader.isAlive()) {
            reader.interrupt();
            throw new IllegalStateException("the reader did not finish");
        }
    }

    /**
     * The README's second program: {@code writers} threads each send {@code perWriter} numbered
     * messages; the reader polls until it has them all and prints one summary line.
     *
     * @param out where the summary goes
     * @param writers how many writer threads
     * @param perWriter messages per writer
     * @throws InterruptedException if interrupted while polling or joining
     */
    public static void mailbox(PrintStream out, int writers, int perWriter)
            throws InterruptedException {
        YMailbox<long[]> mailbox = new YMailbox<>();     // over a new YPollset
        Thread[] threads = new Thread[writers];
        for (int i = 0; i < writers; i++) {
            YMailbox.Writer<long[]> writer = mailbox.newWriter();
            long id = i;
            threads[i] = new Thread(() -> {
                for (long seq = 0; seq < perWriter; seq++) {
                    writer.send(new long[] {id, seq});   // write + flush; signals a sleeping reader
                }
            }, "readme-writer-" + i);
            threads[i].start();
        }
        long[] next = new long[writers];
        long[] received = {0};
        long[] outOfOrder = {0};
        while (received[0] < (long) writers * perWriter) {
            int n = mailbox.poll(m -> {                  // sleeps until some writer flushed,
                if (next[(int) m[0]]++ != m[1]) {        // then drains every signalled pipe
                    outOfOrder[0]++;
                }
                received[0]++;
            }, 30, TimeUnit.SECONDS);
            if (n == 0) {
                throw new IllegalStateException("no message for 30 s after " + received[0]);
            }
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        out.println("mailbox: " + received[0] + " messages from " + writers + " writers, "
                + outOfOrder[0] + " out of order");
    }
}
