package org.ysuite.examples.shm;

import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.zip.CRC32;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;

/**
 * The producer service: creates a {@link SharedYPipe} over a new file (permissions 0600), sends
 * {@code count} numbered messages of 16 to 256 bytes, flushing each (a flush wakes the consumer
 * only if it found it asleep), then closes the pipe: the consumer reads what is left and sees the
 * end of the stream.
 *
 * <pre>
 * java -cp ysuite-examples/target/ysuite-examples.jar org.ysuite.examples.shm.Producer /dev/shm/ysuite-example 1000000
 * java -jar ysuite-examples/target/ysuite-examples.jar shm-producer /dev/shm/ysuite-example 1000000
 * </pre>
 * It prints {@code Producer: created <file>} once the pipe exists (start the consumer then, or
 * before: it waits for the file), and at the end
 * {@code Producer: sent <count> messages, <bytes> bytes, crc32 <hex>, <rate> msgs/s}. A file an
 * earlier run left is replaced if no live process holds it (a live one is refused); the consumer
 * deletes the file when it has read everything.
 */
public final class Producer {

    /** The pipe's ring: 1 MiB. */
    static final int CAPACITY = 1 << 20;

    private Producer() {
    }

    /**
     * Runs the producer.
     *
     * @param args {@code <file> <count>}
     * @throws Exception if the pipe cannot be created, or the consumer died while the pipe was full
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Producer <file> <count>");
            System.exit(2);
        }
        run(System.out, Paths.get(args[0]), Long.parseLong(args[1]));
    }

    /**
     * Creates the pipe and sends the messages.
     *
     * @param out where the two lines go
     * @param file the pipe's file (one no live process holds is replaced)
     * @param count how many messages, {@code >= 0}
     * @throws Exception if the pipe cannot be created, or the consumer died while the pipe was full
     */
    public static void run(PrintStream out, Path file, long count) throws Exception {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0: " + count);
        }
        byte[] msg = new byte[Orders.MAX];
        CRC32 crc = new CRC32();
        long bytes = 0;
        try (SharedPipeWriter pipe = SharedYPipe.builder(file).capacity(CAPACITY)
                .replaceStale()                     // a file an earlier run left, held by nobody, is replaced
                .createWriter()) {
            out.println("Producer: created " + file);
            out.flush();
            long start = System.nanoTime();
            for (long n = 0; n < count; n++) {
                int length = Orders.fill(n, msg);
                while (!pipe.write(msg, 0, length, false)) {
                    pipe.flush();                   // the ring is full: publish, then wait for room
                    pipe.awaitSpace(length);
                }
                pipe.flush();                       // wakes the consumer only if it sleeps
                crc.update(msg, 0, length);
                bytes += length;
            }
            long nanos = System.nanoTime() - start;
            out.printf("Producer: sent %d messages, %d bytes, crc32 %08x, %d msgs/s%n", count, bytes, crc.getValue(),
                    Orders.rate(count, nanos));
        } // close(): the consumer reads the rest, then awaitMessage() returns false
    }
}
