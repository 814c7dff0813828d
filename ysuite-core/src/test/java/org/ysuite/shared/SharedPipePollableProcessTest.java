package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import jnr.ffi.Pointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ysuite.WaitPolicy;
import org.ysuite.internal.LibC;
import org.ysuite.internal.Posix;

/**
 * A pollable shared pipe between JVMs: a child JVM writes ({@link SharedPipeChild}, which knows
 * nothing of polling), this JVM's reader waits in {@code epoll_wait} on its FIFO whenever
 * {@link SharedPipeReader#prepareToPoll()} says so, and checks every message.
 */
class SharedPipePollableProcessTest extends SharedPipeFileFixture {

    static final int COUNT = 200_000;
    /** The longest a live writer may leave the reader without a wake-up. */
    static final int WAIT_MILLIS = 30_000;

    @Test
    @Timeout(300)
    void aChildJvmsFlushesWakeThisJvmsReaderInEpoll() throws Exception {
        SharedYPipe.builder(file).capacity(1 << 14).createWriter().close();
        LibC libc = Posix.libc();
        int epfd = libc.epoll_create1(Posix.EPOLL_CLOEXEC);
        assertTrue(epfd >= 0, "epoll_create1: errno " + Posix.errno());
        Pointer event = Posix.allocate(Posix.EPOLL_EVENT_SIZE);
        Process child = null;
        try (SharedPipeReader in = SharedYPipe.builder(file).readerPolicy(WaitPolicy.purePark())
                .peerCheck(100, TimeUnit.MILLISECONDS).pollable().openReader()) {
            event.putInt(0, Posix.EPOLLIN);
            assertEquals(0, libc.epoll_ctl(epfd, Posix.EPOLL_CTL_ADD, in.wakeFd(), event));
            SharedYPipeProcessTest.CheckingReader reader = new SharedYPipeProcessTest.CheckingReader(in);
            child = SharedPipeChild.start(true, file.toString(), "0", String.valueOf(COUNT), "11", "2000", "go");
            BufferedReader childOut = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            assertEquals("OPEN", childOut.readLine());
            assertTrue(in.prepareToPoll(), "nothing written yet: the first wait is for the child's first flush");
            child.getOutputStream().write('\n');
            child.getOutputStream().flush();
            boolean poll = true;
            while (reader.next < COUNT) {
                if (poll) {
                    int n = libc.epoll_wait(epfd, event, 1, WAIT_MILLIS);
                    assertTrue(n == 1 || (n < 0 && Posix.errno() == Posix.EINTR),
                            "no wake-up through epoll in " + WAIT_MILLIS + " ms at message " + reader.next
                                    + " (epoll_wait " + n + ")");
                } else {
                    assertTrue(!in.isEndOfStream(), "the writer closed at message " + reader.next);
                    reader.readBatchOnce();
                }
                poll = in.prepareToPoll();
            }
            assertEquals("DONE", childOut.readLine());
            assertEquals(0, child.waitFor());
            assertTrue(in.isEndOfStream(), "every message read, then the end");
            assertTrue(in.stats().wakeups() >= 1, "the first flush woke the reader: " + in.stats());
        } finally {
            Posix.closeQuietly(epfd);
            if (child != null) {
                child.destroyForcibly();
                child.getInputStream().close();
                child.getOutputStream().close();
            }
        }
    }
}
