package org.ysuite.bench.profile;

import java.util.function.Consumer;
import org.jctools.queues.MpscBlockingConsumerArrayQueue;
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;

/**
 * Instructions per message on one thread, for {@code valgrind --tool=callgrind}, which counts
 * instructions repeatably on a noisy machine (and where {@code perf} is not supported). One
 * thread writes a message, flushes, and reads it back, {@code n} times: the single-thread cost
 * of each side's path, atomics included, without the cache-line transfers of two threads (which
 * only a two-thread benchmark shows). Run it twice, with {@code n} and {@code 2n}, and take the
 * difference of the totals over {@code n}: JVM start-up and warm-up cancel out.
 *
 * <pre>{@code
 * valgrind --tool=callgrind --callgrind-out-file=/dev/null java -XX:TieredStopAtLevel=4 \
 *     -cp ysuite-bench.jar org.ysuite.bench.profile.InstructionProfile ypipe 1000000
 * }</pre>
 * Transports: {@code ypipe}, {@code ypipe-asleep} (the reader finds the pipe empty each time and
 * sleeps; the flush signals a YSemaphore), {@code mailbox}, {@code offheap}, {@code jctools}.
 */
public final class InstructionProfile {

    private InstructionProfile() {
    }

    /**
     * Runs the loop.
     *
     * @param args transport and message count
     * @throws Exception never in practice
     */
    public static void main(String[] args) throws Exception {
        String transport = args[0];
        long n = Long.parseLong(args[1]);
        long[] sum = new long[1];
        Consumer<Long> sink = v -> sum[0] += v;
        Long msg = 42L;
        long warm = 200_000; // the same warm-up in both runs: cancels out with start-up
        switch (transport) {
            case "ypipe": {
                YPipe<Long> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());
                for (long i = 0; i < warm + n; i++) {
                    pipe.write(msg);
                    pipe.flush();
                    pipe.readBatch(sink); // finds the item: no sleep
                }
                break;
            }
            case "ypipe-asleep": {
                YPipe<Long> pipe = new YPipe<>(YPipe.DEFAULT_CHUNK_SIZE, WaitPolicy.purePark());
                YSemaphore wake = new YSemaphore(WaitPolicy.purePark());
                for (long i = 0; i < warm + n; i++) {
                    pipe.readBatch(sink); // empty: swaps in ASLEEP
                    pipe.write(msg);
                    if (!pipe.flush()) {
                        wake.signal(0);
                    }
                    wake.await(); // the signal is there: taken without parking
                    pipe.readBatch(sink);
                }
                break;
            }
            case "mailbox": {
                YMailbox<Long> mailbox = new YMailbox<>(new YPollset(), WaitPolicy.purePark());
                YMailbox.Writer<Long> w = mailbox.newWriter();
                for (long i = 0; i < warm + n; i++) {
                    w.send(msg);
                    mailbox.check(sink);
                }
                break;
            }
            case "offheap": {
                try (OffHeapYPipe pipe = new OffHeapYPipe(64 * 1024)) {
                    byte[] payload = new byte[8];
                    MessageHandler h = (buf, off, len) -> sum[0] += buf.getLong(off);
                    for (long i = 0; i < warm + n; i++) {
                        pipe.write(payload);
                        pipe.flush();
                        pipe.readBatch(h);
                    }
                }
                break;
            }
            case "jctools": {
                MpscBlockingConsumerArrayQueue<Long> q = new MpscBlockingConsumerArrayQueue<>(4096);
                for (long i = 0; i < warm + n; i++) {
                    q.offer(msg);
                    q.drain(sink::accept);
                }
                break;
            }
            default:
                throw new IllegalArgumentException("unknown transport: " + transport);
        }
        System.out.println(transport + " " + n + " " + sum[0]);
    }
}
