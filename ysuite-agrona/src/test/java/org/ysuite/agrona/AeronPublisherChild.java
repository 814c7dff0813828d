package org.ysuite.agrona;

import io.aeron.Aeron;
import io.aeron.Publication;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.ysuite.shared.SharedSignalSender;
import org.ysuite.shared.SharedSignaler;

/**
 * The publishing JVM of {@link AeronSubscriberSleepTest}: {@code <aeronDir> <doorbell>} connects
 * to the media driver, adds the IPC publication, opens the doorbell's sender and prints
 * {@code READY} once the subscriber is connected; then, for each line {@code send <n> <first>}
 * on standard input, publishes the longs first .. first + n - 1 (each offer followed by a ring) and
 * prints {@code SENT <n> wakeups=<total>}; {@code exit} (or the end of input) ends it.
 */
public final class AeronPublisherChild {

    static final String CHANNEL = "aeron:ipc";
    static final int STREAM = 1001;

    private AeronPublisherChild() {
    }

    /**
     * The child's entry point.
     *
     * @param args the Aeron directory and the doorbell's path
     * @throws Exception on any failure (a non-zero exit)
     */
    public static void main(String[] args) throws Exception {
        try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(args[0]));
                Publication publication = aeron.addPublication(CHANNEL, STREAM);
                SharedSignalSender doorbell = SharedSignaler.openSender(Path.of(args[1]))) {
            while (!publication.isConnected()) {
                Thread.onSpinWait(); // the subscription exists before this child starts
            }
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            UnsafeBuffer message = new UnsafeBuffer(new byte[Long.BYTES]);
            for (String line; (line = in.readLine()) != null && !"exit".equals(line);) {
                String[] w = line.split(" ");
                long n = Long.parseLong(w[1]);
                long first = Long.parseLong(w[2]);
                for (long seq = first; seq < first + n; seq++) {
                    message.putLong(0, seq);
                    AeronSleepExample.publish(publication, doorbell, message, Long.BYTES);
                }
                System.out.println("SENT " + n + " wakeups=" + doorbell.wakeups());
                System.out.flush();
            }
        }
    }

    /** Starts this class in a child JVM on the test's class path, with Agrona's add-opens. */
    static Process start(Path aeronDir, Path doorbell) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--add-opens");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        if (Runtime.version().feature() >= 24) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.add("-Xmx128m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path") + File.pathSeparator
                + Paths.get("target", "test-classes").toAbsolutePath());
        cmd.add(AeronPublisherChild.class.getName());
        cmd.add(aeronDir.toString());
        cmd.add(doorbell.toString());
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
