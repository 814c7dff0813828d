package org.ysuite.examples.shm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.ysuite.shared.PipeSideTakenException;
import org.ysuite.shared.SharedPipeReader;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;

/** A pipe file's whole life: a consumer that may start first, a producer that may run again. */
public final class PipeLifecycle {

    private PipeLifecycle() {
    }

    /**
     * The producer: creates the file, or replaces one that an earlier run left and no live
     * process holds, sends the messages and closes.
     *
     * @param file the pipe file
     * @param messages what to send
     * @throws IOException if the file cannot be created, or a live process holds the old one
     * @throws InterruptedException if interrupted while waiting for space
     */
    public static void produce(Path file, String... messages) throws IOException, InterruptedException {
        try (SharedPipeWriter out = SharedYPipe.builder(file)
                .capacity(1 << 20)
                .replaceStale()                    // a file no live process holds is replaced
                .createWriter()) {                 // (a live one: PipeSideTakenException)
            for (String m : messages) {
                byte[] msg = m.getBytes(StandardCharsets.UTF_8);
                while (!out.write(msg)) {
                    out.flush();
                    out.awaitSpace(msg.length);
                }
            }
            out.flush();
        }                                          // close() leaves the file: the consumer reads on
    }

    /**
     * The consumer: waits for the file, reads to the producer's close, then deletes the file.
     *
     * @param file the pipe file
     * @return the messages received
     * @throws IOException if no file appears in 30 s, or the producer died
     *     ({@link org.ysuite.shared.PeerGoneException}: the file stays for a restarted producer)
     * @throws InterruptedException if interrupted while waiting for a message
     */
    public static List<String> consume(Path file) throws IOException, InterruptedException {
        List<String> received = new ArrayList<>();
        try (SharedPipeReader in = SharedYPipe.builder(file)
                .awaitFile(30, TimeUnit.SECONDS)  // the producer may start later
                .openReader()) {
            byte[] buf = new byte[in.maxMessageLength()];
            while (in.awaitMessage()) {            // false: the producer closed, all was read
                int n;
                while ((n = in.read(buf)) >= 0) {
                    received.add(new String(buf, 0, n, StandardCharsets.UTF_8));
                }
            }
        }
        try {
            SharedYPipe.delete(file);              // all was read: nobody needs the file now
        } catch (PipeSideTakenException e) {
            // a new producer has replaced it already: that file stays
        }
        return received;
    }
}
