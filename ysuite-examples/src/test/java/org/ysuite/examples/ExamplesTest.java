package org.ysuite.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Runs each example to its end and checks the summary it prints. */
class ExamplesTest {

    interface Example {
        void run(PrintStream out, String[] args) throws Exception;
    }

    /** Runs {@code example} (at most 10 minutes) and returns the lines it printed, which go to the test's log too. */
    static String[] runExample(Example example, String... args) {
        return assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
                example.run(out, args);
            }
            String printed = bytes.toString(StandardCharsets.UTF_8);
            System.out.print(printed);
            return printed.split("\\R");
        });
    }

    private static void assertWakeups(String line, String pattern) {
        Matcher m = Pattern.compile(pattern).matcher(line);
        assertTrue(m.matches(), line);
        assertTrue(Integer.parseInt(m.group(1)) >= 1, "the poller never woke for a signal: " + line);
    }

    @Test
    void pollLoopServesSocketAndPipesTogether() {
        String[] lines = runExample(PollLoop::run);
        assertEquals("PollLoop: served 1000 socket messages and 1000 pipe messages from 2 writers in one poll(2) loop",
                lines[0]);
        assertWakeups(lines[1], "PollLoop: \\d+ poll\\(2\\) calls, (\\d+) signaler wake-ups, kind SOCKETPAIR");
    }

    @Test
    void pollLoopOverEventfd() {
        String[] lines = runExample(PollLoop::run, "300", "2000", "eventfd");
        assertEquals("PollLoop: served 300 socket messages and 4000 pipe messages from 2 writers in one poll(2) loop",
                lines[0]);
        assertWakeups(lines[1], "PollLoop: \\d+ poll\\(2\\) calls, (\\d+) signaler wake-ups, kind EVENTFD");
    }

    @Test
    void epollLoopServesSocketAndPipesTogether() {
        String[] lines = runExample(EpollLoop::run);
        assertEquals("EpollLoop: served 1000 socket messages and 1000 pipe messages from 2 writers in one epoll loop",
                lines[0]);
        assertWakeups(lines[1], "EpollLoop: \\d+ epoll_wait calls, (\\d+) signaler wake-ups, kind SOCKETPAIR");
    }

    @Test
    void nioSelectorLoopServesSocketAndPipesTogether() {
        String[] lines = runExample(NioSelectorLoop::run);
        assertEquals("NioSelectorLoop: served 1000 socket messages and 1000 pipe messages from 2 writers in one "
                + "Selector loop", lines[0]);
        assertWakeups(lines[1], "NioSelectorLoop: \\d+ select calls, (\\d+) signaler wake-ups");
    }

    @Test
    void nettyEchoServiceRepliesThroughTheMailboxOverEpoll() {
        String[] lines = runExample(NettyEchoService::run, "5000", "3", "epoll");
        assertEquals("NettyEchoService: served 15000 requests from 3 clients through 2 application threads, "
                + "every reply in order", lines[0]);
        Matcher m = Pattern.compile("NettyEchoService: (\\d+) replies through the mailbox, (\\d+) loop wake-ups, "
                + "transport epoll").matcher(lines[1]);
        assertTrue(m.matches(), lines[1]);
        assertEquals(15000, Integer.parseInt(m.group(1)));
        int wakeups = Integer.parseInt(m.group(2));
        assertTrue(wakeups >= 1 && wakeups <= 15000, lines[1]);
    }

    @Test
    void nettyEchoServiceOverNio() {
        String[] lines = runExample(NettyEchoService::run, "2000", "2", "nio");
        assertEquals("NettyEchoService: served 4000 requests from 2 clients through 2 application threads, "
                + "every reply in order", lines[0]);
        assertTrue(lines[1].matches("NettyEchoService: 4000 replies through the mailbox, \\d+ loop wake-ups, "
                + "transport nio"), lines[1]);
    }
}
