package org.ysuite.shared;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The other process of {@link SharedSignalerTest}: {@code send <file> <id>...} opens a sender,
 * fires each id and prints {@code OK wakeups=<n>}; {@code own <file>} creates the signaler,
 * prints {@code READY} and waits for a line (or the end) of its standard input.
 */
public final class SharedSignalerChild {

    private SharedSignalerChild() {
    }

    /**
     * The child's entry point.
     *
     * @param args the mode, the file, and the ids to send
     * @throws Exception on any failure (a non-zero exit)
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        if ("own".equals(args[0])) {
            try (SharedSignaler owner = SharedSignaler.create(file, 4)) {
                System.out.println("READY " + owner.path());
                System.out.flush();
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            }
            return;
        }
        try (SharedSignalSender sender = SharedSignaler.openSender(file)) {
            for (int i = 2; i < args.length; i++) {
                sender.signal(Integer.parseInt(args[i]));
            }
            System.out.println("OK wakeups=" + sender.wakeups());
        }
    }

    /** Starts this class in a child JVM with {@code args}, standard error merged into its output. */
    static Process start(String... args) throws Exception {
        return new ProcessBuilder(SharedPipeChild.command(SharedSignalerChild.class, true, args))
                .redirectErrorStream(true).start();
    }
}
