package org.ysuite.bench.ipc;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import org.ysuite.shared.SharedPipeReader;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;
import org.ysuite.WaitPolicy;

/**
 * ysuite's {@link SharedYPipe}, one pipe file each way in the run's folder under
 * {@code /dev/shm} ({@code to-child}, {@code to-parent}; 1 MiB rings), both sides of both pipes
 * waiting as {@link org.ysuite.bench.support.Wake#policy(int) Wake.policy(spins)} says (each
 * side with a state of its own): {@code ysuite:0} is pure park (a reader that finds nothing
 * sleeps on the futex at once), {@code ysuite:200} the default policy. Each {@link #send} writes and flushes; the flush wakes the reader only if it found it
 * asleep. {@code ysuite-epoll:<spins>}: the readers are opened pollable and wait in
 * {@code epoll_wait} on their wake-up FIFO ({@link EpollWait}) instead of the futex.
 */
final class YsuiteLink implements Link {

    private static final int CAPACITY = 1 << 20;

    private final SharedPipeWriter out;
    private SharedPipeReader in;
    private final WaitPolicy policy;
    /** The reader's epoll set, if the link polls ({@code ysuite-epoll}); else null. */
    private EpollWait epoll;
    private final boolean pollable;

    private YsuiteLink(SharedPipeWriter out, SharedPipeReader in, WaitPolicy policy, boolean pollable)
            throws IOException {
        this.out = out;
        this.policy = policy;
        this.pollable = pollable;
        reader(in);
    }

    private void reader(SharedPipeReader reader) throws IOException {
        this.in = reader;
        if (reader != null && pollable) {
            epoll = new EpollWait(reader.wakeFd());
        }
    }

    private static SharedYPipe.Builder pipe(Path file, WaitPolicy policy, boolean pollable) {
        SharedYPipe.Builder b = SharedYPipe.builder(file).capacity(CAPACITY).readerPolicy(policy).writerPolicy(policy);
        return pollable ? b.pollable() : b;
    }

    static Link.Pending listen(Path dir, String spins, boolean pollable) throws IOException {
        WaitPolicy policy = org.ysuite.bench.support.Wake.policy(Integer.parseInt(spins));
        YsuiteLink link = new YsuiteLink(pipe(dir.resolve("to-child"), policy, pollable).createWriter(), null, policy,
                pollable);
        return new Link.Pending() {
            @Override
            public Link accept() throws IOException {
                // the child created to-parent before it said READY
                link.reader(pipe(dir.resolve("to-parent"), link.policy, pollable).openReader());
                return link;
            }

            @Override
            public void close() {
                link.close();
            }
        };
    }

    static Link connect(Path dir, String spins, boolean pollable) throws IOException {
        WaitPolicy policy = org.ysuite.bench.support.Wake.policy(Integer.parseInt(spins));
        SharedPipeReader in = pipe(dir.resolve("to-child"), policy, pollable).openReader();
        try {
            return new YsuiteLink(pipe(dir.resolve("to-parent"), policy, pollable).createWriter(), in, policy,
                    pollable);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    @Override
    public void send(byte[] msg, int length) throws IOException {
        try {
            while (!out.write(msg, 0, length, false)) {
                out.flush();
                out.awaitSpace(length);
            }
            out.flush(); // wakes the reader (FUTEX_WAKE) only if it found it asleep
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for room");
        }
    }

    @Override
    public int receive(byte[] dst) throws IOException {
        try {
            for (;;) {
                int n = in.read(dst);
                if (n >= 0) {
                    return n;
                }
                if (epoll != null) {
                    if (in.prepareToPoll()) {
                        epoll.await(); // the flush that finds us asleep writes the FIFO
                    } else if (in.isEndOfStream()) {
                        return -1;
                    }
                } else if (!in.awaitMessage()) {
                    return -1; // the writer closed and everything was read
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a message");
        }
    }

    @Override
    public void closeOutput() {
        out.close();
    }

    @Override
    public void close() {
        out.close();
        if (epoll != null) {
            epoll.close();
        }
        if (in != null) {
            in.close();
        }
    }
}
