package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import jnr.ffi.Pointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.ysuite.internal.Posix;

/** The descriptor side of {@link YSocketPair}: what a native poller sees, closing, leaks. */
class YSocketPairTest {

    private final Pointer pollfd = Posix.allocate(Posix.POLLFD_SIZE);

    private boolean readable(int fd) {
        return (Posix.pollIn(fd, pollfd, 0) & Posix.POLLIN) != 0;
    }

    @ParameterizedTest
    @EnumSource(YSocketPair.Kind.class)
    void fdIsArmedByAnEmptyCheckAndLevelTriggered(YSocketPair.Kind kind) {
        try (YSocketPair s = new YSocketPair(kind)) {
            assertEquals(kind, s.kind());
            int fd = s.fd();
            assertTrue(fd >= 0);
            assertFalse(readable(fd));
            assertEquals(0, s.check(id -> { }), "empty drain arms the fd");
            assertFalse(readable(fd));
            s.signal(200);
            assertTrue(readable(fd), "first signal after arming makes the fd readable");
            s.signal(3);
            assertTrue(readable(fd), "level-triggered: still readable");
            assertTrue(readable(fd), "and again, as long as the signals are not consumed");
            BitSet got = new BitSet();
            assertEquals(2, s.check(got::set));
            assertTrue(got.get(3) && got.get(200));
            assertFalse(readable(fd), "the drain read the wake-up back");
            // busy owner (its last drain found something): signals cost no write
            s.signal(7);
            assertFalse(readable(fd), "passive: no wake-up while the owner is not armed");
            assertEquals(1, s.check(id -> { }));
            assertEquals(0, s.check(id -> { }));
            s.signal(8);
            assertTrue(readable(fd));
        }
    }

    @ParameterizedTest
    @EnumSource(YSocketPair.Kind.class)
    void descriptorsAreNonBlockingAndCloseOnExec(YSocketPair.Kind kind) {
        try (YSocketPair s = new YSocketPair(kind)) {
            int flags = Posix.libc().fcntl(s.fd(), Posix.F_GETFL, 0);
            assertTrue((flags & Posix.O_NONBLOCK) != 0, "O_NONBLOCK");
            int fdFlags = Posix.libc().fcntl(s.fd(), Posix.F_GETFD, 0);
            assertTrue((fdFlags & Posix.FD_CLOEXEC) != 0, "FD_CLOEXEC");
        }
    }

    @Test
    void eventfdUsesOneDescriptorAndSocketpairTwo() throws IOException {
        long base = openFds();
        try (YSocketPair s = new YSocketPair(YSocketPair.Kind.SOCKETPAIR)) {
            assertEquals(base + 2, openFds(), String.valueOf(s));
        }
        try (YSocketPair s = new YSocketPair(YSocketPair.Kind.EVENTFD)) {
            assertEquals(base + 1, openFds(), String.valueOf(s));
        }
        assertEquals(base, openFds());
    }

    /**
     * The passive scheme keeps at most one wake-up byte unread, so a full socket never happens in
     * use; force it by writing wake-ups directly: EAGAIN must neither block nor throw, and the fd
     * stays readable, so no wake-up can be lost by it.
     */
    @Test
    void eagainOnAFullSocketNeitherBlocksNorLosesTheWakeup() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (YSocketPair s = new YSocketPair(YSocketPair.Kind.SOCKETPAIR)) {
                for (int i = 0; i < 100_000; i++) {
                    s.writeWakeup(); // fills the socket buffer after a few hundred bytes, then EAGAIN
                }
                assertTrue(readable(s.fd()));
                s.signal(4);
                BitSet got = new BitSet();
                assertEquals(1, s.check(got::set));
                assertTrue(got.get(4));
            }
        });
    }

    @Test
    void constructorRejectsBadArguments() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new YSocketPair(-1));
        assertEquals("spinIterations must be >= 0: -1", e.getMessage());
        assertThrows(NullPointerException.class, () -> new YSocketPair((YSocketPair.Kind) null));
    }

    @Test
    void fdAfterCloseIsAnError() {
        YSocketPair s = new YSocketPair();
        s.close();
        assertThrows(IllegalStateException.class, s::fd);
    }

    @ParameterizedTest
    @EnumSource(YSocketPair.Kind.class)
    void descriptorCountReturnsToBaselineAfterTenThousandCycles(YSocketPair.Kind kind) throws IOException {
        long base = openFds();
        for (int i = 0; i < 10_000; i++) {
            YSocketPair s = new YSocketPair(kind);
            if ((i & 1) == 0) {
                s.check(id -> { });
                s.signal(i & 255); // leave an unread wake-up in the descriptor
            }
            s.close();
        }
        assertEquals(base, openFds());
    }

    /**
     * Closes while 4 threads signal (with the owner re-arming so that wake-ups are really written),
     * then opens files that take the freed descriptor numbers: no late signal may write into them.
     */
    @ParameterizedTest
    @EnumSource(YSocketPair.Kind.class)
    void closeWhileFourThreadsSignalNeverWritesIntoARecycledDescriptor(YSocketPair.Kind kind,
            @TempDir Path dir) {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                Path a = dir.resolve("a");
                Path b = dir.resolve("b");
                int reused = 0;
                for (int iter = 0; iter < 1_000; iter++) {
                    YSocketPair s = new YSocketPair(kind);
                    int fd = s.fd();
                    CyclicBarrier start = new CyclicBarrier(5);
                    AtomicBoolean sawClosed = new AtomicBoolean();
                    List<Future<?>> tasks = new ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        final int seed = iter * 4 + t;
                        tasks.add(pool.submit(() -> {
                            SplittableRandom rnd = new SplittableRandom(seed);
                            start.await();
                            for (;;) {
                                try {
                                    s.signal(rnd.nextInt(256));
                                } catch (IllegalStateException closed) {
                                    sawClosed.set(true);
                                    return null;
                                }
                            }
                        }));
                    }
                    start.await();
                    for (int k = 0; k < 20; k++) {
                        s.check(id -> { }); // drains and, when empty, re-arms: the next signal writes
                    }
                    s.close();
                    try (FileChannel fa = FileChannel.open(a, StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
                         FileChannel fb = FileChannel.open(b, StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                        if (isOurFile(fd, a) || isOurFile(fd, b)) {
                            reused++;
                        }
                        for (Future<?> f : tasks) {
                            f.get(10, TimeUnit.SECONDS);
                        }
                        assertEquals(0, fa.size(), "a signal wrote into a recycled descriptor");
                        assertEquals(0, fb.size(), "a signal wrote into a recycled descriptor");
                    }
                    assertTrue(sawClosed.get());
                }
                assertNotEquals(0, reused, "the freed descriptor numbers were never reused: test is void");
            } finally {
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            }
        });
    }

    private static boolean isOurFile(int fd, Path file) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).equals(file.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }
}
