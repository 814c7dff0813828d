package org.ysuite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code report zmq-peers} refuses bad arguments before it builds or starts anything. */
class ZmqPeersRunnerTest {

    @TempDir
    Path tmp;

    private int run(String... args) throws IOException {
        String[] all = new String[args.length + 3];
        all[0] = "zmq-peers";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--out";
        all[args.length + 2] = tmp.resolve("out").toString();
        return ReportRunner.run(all);
    }

    @Test
    void badArgumentsExitWithTwoAndWriteNothing() throws IOException {
        assertEquals(2, run("--bogus"), "unknown argument");
        assertEquals(2, run("--sockets", "router,dealer"), "a socket type that is not router or pub");
        assertEquals(2, run("--peers", "0"), "no peers");
        assertEquals(2, run("--peers", "1000,40000"), "more peers than the descriptors allow");
        assertEquals(2, run("--rounds", "0"), "no fan-out round");
        assertEquals(2, run("--rounds", "many"), "not a number");
        assertFalse(Files.exists(tmp.resolve("out")), "nothing is written before the arguments are checked");
    }
}
