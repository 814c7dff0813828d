package org.ysuite.bench.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The veth variant of the network runs: a network namespace {@value #NAME} joined to the root
 * namespace by a veth pair ({@value #CLIENT_ADDRESS} here, {@value #SERVER_ADDRESS} inside), made
 * and removed with {@code ip} (needs root, or CAP_NET_ADMIN).
 */
public final class Netns {

    /** The namespace's name. */
    public static final String NAME = "ysuite-net";
    /** The root namespace's end of the veth pair. */
    public static final String CLIENT_ADDRESS = "10.211.77.1";
    /** The namespace's end, where the servers listen. */
    public static final String SERVER_ADDRESS = "10.211.77.2";

    private Netns() {
    }

    /**
     * Makes the namespace and the veth pair (removing leftovers of an earlier run first).
     *
     * @return {@code null} on success, or why it could not be made (the runs then use loopback)
     */
    public static String setUp() {
        tearDown();
        List<List<String>> steps = List.of(
                List.of("ip", "netns", "add", NAME),
                List.of("ip", "link", "add", "ysv0", "type", "veth", "peer", "name", "ysv1"),
                List.of("ip", "link", "set", "ysv1", "netns", NAME),
                List.of("ip", "addr", "add", CLIENT_ADDRESS + "/24", "dev", "ysv0"),
                List.of("ip", "link", "set", "ysv0", "up"),
                List.of("ip", "netns", "exec", NAME, "ip", "addr", "add", SERVER_ADDRESS + "/24", "dev", "ysv1"),
                List.of("ip", "netns", "exec", NAME, "ip", "link", "set", "ysv1", "up"),
                List.of("ip", "netns", "exec", NAME, "ip", "link", "set", "lo", "up"));
        for (List<String> step : steps) {
            String err = run(step);
            if (err != null) {
                tearDown();
                return String.join(" ", step) + ": " + err;
            }
        }
        return null;
    }

    /** Removes the namespace (and with it the veth pair); does nothing if there is none. */
    public static void tearDown() {
        run(List.of("ip", "netns", "del", NAME));
        run(List.of("ip", "link", "del", "ysv0"));
    }

    private static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "timed out";
            }
            return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
