package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.ysuite.WaitPolicy;
import org.ysuite.internal.Waits;

/**
 * The shared-pipe tests' fixture: {@code pipe} in a fresh directory (under /dev/shm where there
 * is one), sides that check their peer rarely, and looks into the file from outside.
 */
abstract class SharedPipeFileFixture {

    Path dir;
    Path file;

    @BeforeEach
    void makeDir() throws IOException {
        dir = SharedMessages.newDir("ysuite-" + getClass().getSimpleName());
        file = dir.resolve("pipe");
    }

    @AfterEach
    void removeDir() throws IOException {
        SharedMessages.removeDir(dir);
    }

    /** A builder whose sleepers check their peer rarely: a wait that ends must have been woken. */
    SharedYPipe.Builder slowPeerCheck() {
        return SharedYPipe.builder(file).peerCheck(1, TimeUnit.HOURS)
                .readerPolicy(WaitPolicy.purePark()).writerPolicy(WaitPolicy.purePark());
    }

    /** Reads a long of the file through a channel of its own (the page cache is shared). */
    long wordOfFile(int offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            ch.read(b, offset);
            return b.getLong(0);
        }
    }

    /**
     * Waits (yielding, bounded) until bit 0 of the word is up and the sleeper's native thread
     * (found by its name in /proc/self/task) is asleep in the kernel: a JNI call shows as
     * RUNNABLE to Java, so the thread's own state says nothing.
     */
    void awaitSleepBit(int offset, Thread sleeper) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((wordOfFile(offset) & 1) == 0 || !nativeThreadSleeps(sleeper.getName())) {
            if (System.nanoTime() > deadline) {
                fail("the sleep bit at " + offset + " never rose, or " + sleeper.getName() + " never slept");
            }
            Thread.yield();
        }
    }

    static boolean nativeThreadSleeps(String name) throws IOException {
        String comm = name.length() > 15 ? name.substring(0, 15) : name;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.collect(Collectors.toList())) {
                try {
                    if (Files.readString(task.resolve("comm")).trim().equals(comm)) {
                        String stat = Files.readString(task.resolve("stat"));
                        return stat.charAt(stat.lastIndexOf(')') + 2) == 'S';
                    }
                } catch (IOException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        throw new AssertionError("no native thread named " + comm);
    }

    void patch(int offset, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), offset);
        }
    }

    static byte[] intBytes(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, v).array();
    }

    /** Writes a native-order int into the file through a channel of its own. */
    void patchInt(int offset, int v) throws IOException {
        patch(offset, intBytes(v));
    }
}
