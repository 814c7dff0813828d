package org.ysuite.examples.shm;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.ysuite.shared.PeerGoneException;
import org.ysuite.shared.PipeSideTakenException;
import org.ysuite.shared.SharedPipeReader;
import org.ysuite.shared.SharedYPipe;

/**
 * The consumer service: opens the reader side of the {@link Producer}'s pipe (waiting up to
 * {@code waitSeconds}, default 30, for the file to appear), reads every message, checks that
 * each carries the next number and the bytes that number gives, and ends at the producer's clean
 * close, printing
 * {@code Consumer: received <count> messages, <bytes> bytes, crc32 <hex>, in order, <rate> msgs/s}
 * (the rate from the first message to the end). Then it deletes the file (unless a new producer
 * has already replaced it). A producer that dies
 * without closing ends it, after it has read every message the producer flushed, with
 * {@code Consumer: producer gone after <count> messages, every one whole and in order (<why>)}
 * and exit code 1 (the file is left for a restarted producer to reopen).
 *
 * <pre>
 * java -cp ysuite-examples/target/ysuite-examples.jar org.ysuite.examples.shm.Consumer /dev/shm/ysuite-example
 * java -jar ysuite-examples/target/ysuite-examples.jar shm-consumer /dev/shm/ysuite-example
 * </pre>
 */
public final class Consumer {

    private Consumer() {
    }

    /**
     * Runs the consumer.
     *
     * @param args {@code <file> [waitSeconds]}
     * @throws Exception if the pipe cannot be opened or a message is wrong
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: Consumer <file> [waitSeconds]");
            System.exit(2);
        }
        try {
            run(System.out, Paths.get(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 30);
        } catch (PeerGoneException e) {
            System.exit(1); // run() has said so
        }
    }

    /**
     * Opens the pipe, reads to its end and deletes the file.
     *
     * @param out where the summary goes
     * @param file the producer's pipe file
     * @param waitSeconds how long to wait for the file to appear
     * @return the number of messages received
     * @throws PeerGoneException if the producer died without closing (after every flushed message
     *     was read; the summary line says how many)
     * @throws Exception if the pipe cannot be opened in time or a message is wrong
     */
    public static long run(PrintStream out, Path file, int waitSeconds) throws Exception {
        byte[] buf = new byte[Orders.MAX];
        byte[] expected = new byte[Orders.MAX];
        CRC32 crc = new CRC32();
        long count = 0;
        long bytes = 0;
        long start = 0;
        try (SharedPipeReader pipe = open(file, waitSeconds)) {
            out.println("Consumer: opened " + file);
            out.flush();
            while (awaitMessage(pipe, out, count)) {                 // false: the producer closed, all was read
                int n;
                while ((n = pipe.read(buf)) >= 0) {       // -1: empty, the next awaitMessage sleeps
                    if (count == 0) {
                        start = System.nanoTime();
                    }
                    check(count, buf, n, expected);
                    crc.update(buf, 0, n);
                    bytes += n;
                    count++;
                }
            }
            long nanos = System.nanoTime() - start;
            out.printf("Consumer: received %d messages, %d bytes, crc32 %08x, in order, %d msgs/s%n", count, bytes,
                    crc.getValue(), Orders.rate(count, nanos));
        }
        try {
            SharedYPipe.delete(file);                   // all was read: nobody needs the file now
        } catch (PipeSideTakenException e) {
            // a new producer has replaced it already: that file stays
        }
        return count;
    }

    /** {@link SharedYPipe#awaitMessage()}, saying how far it got if the producer died. */
    private static boolean awaitMessage(SharedPipeReader pipe, PrintStream out, long count) throws Exception {
        try {
            return pipe.awaitMessage();
        } catch (PeerGoneException e) {
            out.println("Consumer: producer gone after " + count + " messages, every one whole and in order ("
                    + e.getMessage() + ")");
            out.flush();
            throw e;
        }
    }

    private static void check(long number, byte[] msg, int length, byte[] expected) {
        int want = Orders.fill(number, expected);
        if (length != want || !java.util.Arrays.equals(msg, 0, length, expected, 0, want)) {
            throw new IllegalStateException("message " + number + " is wrong: " + length + " bytes carrying number "
                    + (length >= 8 ? Orders.number(msg) : -1) + ", expected " + want + " bytes");
        }
    }

    /** Opens the reader side, waiting for the producer to have created the file. */
    private static SharedPipeReader open(Path file, int waitSeconds) throws IOException {
        try {
            return SharedYPipe.builder(file)
                    .awaitFile(waitSeconds, TimeUnit.SECONDS)   // the producer may start later
                    .openReader();
        } catch (NoSuchFileException e) {
            throw new IOException("no pipe at " + file + " after " + waitSeconds + " s: start the Producer", e);
        }
    }
}
