package org.ysuite.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ysuite.MessageHandler;
import org.ysuite.shared.SharedPipeReader;
import org.ysuite.shared.SharedPipeWriter;
import org.ysuite.shared.SharedYPipe;
import org.ysuite.WaitPolicy;

/**
 * A pollable shared pipe's reader on a Netty epoll loop, registered the way {@link LoopMailbox}
 * registers its descriptor: the reader's wake-up FIFO as an {@link EpollIoHandle} with
 * {@code EPOLLIN}; on each event the loop reads everything, then {@code prepareToPoll()} until it
 * says to wait. A writer thread writes numbered messages; the loop must get every one in order.
 */
class SharedPipeOnEpollLoopTest {

    static final long COUNT = 200_000;

    @Test
    @Timeout(120)
    void aPollableReaderOnAnEpollLoopGetsEveryMessageInOrder() throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "ysuite-netty-shared");
        Path file = dir.resolve("pipe");
        IoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (SharedPipeWriter out = SharedYPipe.builder(file).capacity(1 << 14).createWriter();
                SharedPipeReader in = SharedYPipe.builder(file).readerPolicy(WaitPolicy.purePark())
                        .pollable().openReader()) {
            IoEventLoop loop = group.next();
            CompletableFuture<Long> done = new CompletableFuture<>();
            long[] next = {0};
            MessageHandler check = (view, offset, length) -> {
                long seq = view.order(ByteOrder.nativeOrder()).getLong(offset);
                if (seq != next[0]) {
                    done.completeExceptionally(new AssertionError("message " + seq + " where " + next[0]));
                }
                next[0]++;
            };
            Runnable drain = () -> {
                try {
                    for (;;) {
                        in.readBatch(check);
                        if (in.prepareToPoll()) {
                            return; // asleep: the writer's next flush makes the FIFO readable
                        }
                        if (in.isEndOfStream()) {
                            done.complete(next[0]);
                            return;
                        }
                    }
                } catch (RuntimeException | Error e) {
                    done.completeExceptionally(e);
                }
            };
            FileDescriptor fd = new FileDescriptor(in.wakeFd()); // the reader owns and closes it
            EpollIoHandle handle = new EpollIoHandle() {
                @Override
                public FileDescriptor fd() {
                    return fd;
                }

                @Override
                public void handle(IoRegistration registration, IoEvent event) {
                    drain.run();
                }

                @Override
                public void close() {
                    // nothing: the reader closes the FIFO
                }
            };
            IoRegistration registration = loop.register(handle).sync().getNow();
            loop.submit(() -> {
                registration.submit(EpollIoOps.EPOLLIN);
                drain.run(); // the first prepareToPoll, on the loop thread like every use of the reader
            }).sync();
            ByteBuffer msg = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            for (long seq = 0; seq < COUNT; seq++) {
                msg.putLong(0, seq);
                while (!out.write(msg.array())) {
                    out.flush();
                    assertTrue(out.awaitSpace(8, 30, TimeUnit.SECONDS),
                            "no room for 30 s at message " + seq + ": the loop was not woken (read " + next[0] + ")");
                }
                if ((seq & 7) == 0) {
                    out.flush();
                }
            }
            out.close(); // the last flush, CLOSED, and a wake-up
            assertEquals(COUNT, done.get(60, TimeUnit.SECONDS), "every message, then the end of the stream");
            assertTrue(in.stats().wakeups() >= 1, "the loop was woken through the FIFO: " + in.stats());
            loop.submit(registration::cancel).sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            SharedYPipe.delete(file);
            Files.deleteIfExists(dir);
        }
    }
}
